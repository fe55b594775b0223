package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
	"plumbline/internal/provision"
)

func setup(ctx context.Context, args []string, s *streams) error {
	f := newFlags("setup", helpText("setup"), s)
	db := f.string("db", "", "PostgreSQL connection `string` of an administrator (required unless --print)")
	printSQL := f.boolean("print", false, "print the role and grant SQL instead of applying it")
	var dirs grants.Dirs
	var roles grants.Roles
	var limits grants.Limits
	f.register(func(fs *flag.FlagSet) {
		dirs.RegisterFlags(fs)
		roles.RegisterFlags(fs, true)
		limits.RegisterFlags(fs)
	})
	if _, err := f.parse(args); err != nil {
		return err
	}
	if err := checkRoles(roles); err != nil {
		return err
	}
	gs, err := dirs.Load()
	if err != nil {
		return err
	}
	ags, err := dirs.LoadAnalyst()
	if err != nil {
		return err
	}
	if *printSQL {
		script, err := grants.Script(roles, limits, append(gs, ags...))
		if err != nil {
			return err
		}
		fmt.Fprint(s.out, script)
		return nil
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required (or --print)", errUsage)
	}
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	applied, err := provision.Database(ctx, conn, provision.Plan{Roles: roles, Grants: append(gs, ags...), Limits: limits})
	fmt.Fprintf(s.out, "Applied %d of plumbline's migrations.\n", len(applied))
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Roles %s, %s, %s and %s and the logins %s and %s are in place.\n", roles.Reader, roles.Logger, roles.Auth,
		roles.Analyst, roles.App, roles.Agent)
	fmt.Fprintf(s.out, "The reader may read %d relations: %s.\n", len(gs), strings.Join(grants.Relations(gs), ", "))
	fmt.Fprintf(s.out, "The analyst may read %d relations: %s.\n", len(ags), strings.Join(grants.Relations(ags), ", "))
	fmt.Fprintf(s.out, "Now check the login: plumbline guard --db <connection string of %s>\n", roles.App)
	return nil
}
