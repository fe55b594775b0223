package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
	"plumbline/internal/provision"
)

func setup(ctx context.Context, args []string, s *streams) error {
	f := newFlags("setup", helpText("setup"), s)
	db := f.string("db", "", "PostgreSQL connection `string` of an administrator (required unless --print)")
	printSQL := f.boolean("print", false, "print the role and grant SQL instead of applying it")
	catalogDir := f.string("catalog", "", "catalogue `directory` the database will serve: every relation it reads must exist and have a grant file (default: the embedded demo catalogue)")
	sqlDir := f.string("sql", "", "`directory` of your own SQL files (NNNN_name.sql, such as the views that present your data as the catalogue reads it), applied once each, in order, before the grants")
	g := addGrantFlags(f, true)
	if _, err := f.parse(args); err != nil {
		return err
	}
	gs, err := g.load()
	if err != nil {
		return err
	}
	ags, err := g.dirs.LoadAnalyst()
	if err != nil {
		return err
	}
	cat, err := loadCatalog(*catalogDir)
	if err != nil {
		return err
	}
	if *printSQL {
		script, err := grants.Script(g.roles, g.limits, append(gs, ags...), cat)
		if err != nil {
			return err
		}
		fmt.Fprint(s.out, script)
		return nil
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required (or --print)", errUsage)
	}
	plan := provision.Plan{Roles: g.roles, Grants: append(gs, ags...), Limits: g.limits, Catalog: cat}
	if *sqlDir != "" {
		plan.SQL = os.DirFS(*sqlDir)
	}
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	applied, err := provision.Database(ctx, conn, plan)
	var refusal *provision.Refusal
	if errors.As(err, &refusal) {
		return fmt.Errorf("%w\n%s", err, defaultsHint(g.dirs, *catalogDir, *sqlDir))
	}
	own := 0
	for _, name := range applied {
		if strings.HasPrefix(name, provision.OwnSet+"/") {
			own++
		}
	}
	fmt.Fprintf(s.out, "Applied %d of plumbline's migrations and %d of your SQL files.\n", len(applied)-own, own)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Roles %s, %s, %s and %s and the logins %s and %s are in place.\n", g.roles.Reader, g.roles.Logger, g.roles.Auth,
		g.roles.Analyst, g.roles.App, g.roles.Agent)
	fmt.Fprintf(s.out, "The reader may read %d relations: %s.\n", len(gs), strings.Join(grants.Relations(gs), ", "))
	fmt.Fprintf(s.out, "The analyst may read %d relations: %s.\n", len(ags), strings.Join(grants.Relations(ags), ", "))
	fmt.Fprintf(s.out, "Now check the login: plumbline guard --db <connection string of %s>\n", g.roles.App)
	return nil
}

// defaultsHint says which of setup's directories were left to the demo
// floor's, whose relations only plumbline demo creates, and what to pass.
func defaultsHint(dirs grants.Dirs, catalogDir, sqlDir string) string {
	var demo []string
	for _, f := range []struct{ flag, value string }{{"--grants", dirs.Reader}, {"--analyst-grants", dirs.Analyst}, {"--catalog", catalogDir}} {
		if f.value == "" {
			demo = append(demo, f.flag)
		}
	}
	hint := "Name your own grant files, analyst grant files and catalogue with --grants DIR, --analyst-grants DIR and --catalog DIR"
	if len(demo) > 0 {
		list := demo[0]
		if n := len(demo); n > 1 {
			list = strings.Join(demo[:n-1], ", ") + " and " + demo[n-1]
		}
		hint = "Without " + list + ", setup provisions the demo floor's relations, which only plumbline demo creates. " + hint
	}
	if sqlDir == "" {
		return hint + ", and pass --sql DIR with the SQL that creates your relations (or create them before setup)."
	}
	return hint + ", and check that the SQL in --sql creates every relation they name."
}
