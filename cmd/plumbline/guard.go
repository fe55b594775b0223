package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/dbcheck"
)

func runGuard(ctx context.Context, args []string, s *streams) error {
	f := newFlags("guard", helpText("guard"), s)
	db := f.string("db", "", "PostgreSQL connection `string` of plumbline's login (required)")
	analystDSN := f.string("analyst-db", "", "PostgreSQL connection `string` of the analyst's door's login, to check it too")
	catalogDir := f.string("catalog", "", "catalogue `directory` the database serves, whose sources the login must read only through the views that filter them by reach (default: the embedded demo catalogue)")
	g := addGrantFlags(f, false)
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	gs, err := g.load()
	if err != nil {
		return err
	}
	cat, err := loadCatalog(*catalogDir)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rep, err := dbcheck.Inspect(ctx, conn, dbcheck.LoginPolicy(g.roles, gs, cat))
	if err != nil {
		return err
	}
	fmt.Fprint(s.out, rep)
	ok := rep.OK()
	if *analystDSN != "" {
		ags, err := g.dirs.LoadAnalyst()
		if err != nil {
			return err
		}
		agent, err := pgx.Connect(ctx, *analystDSN)
		if err != nil {
			return fmt.Errorf("cannot reach the database as the analyst's door's login: %w", err)
		}
		defer agent.Close(context.WithoutCancel(ctx))
		arep, err := dbcheck.Inspect(ctx, agent, dbcheck.AnalystPolicy(g.roles, ags))
		if err != nil {
			return err
		}
		extra, err := dbcheck.InspectLimits(ctx, agent, g.roles.Analyst, g.limits)
		if err != nil {
			return err
		}
		arep.Extra = append(arep.Extra, extra...)
		fmt.Fprint(s.out, "\n", arep)
		ok = ok && arep.OK()
	}
	if !ok {
		return exitError{1}
	}
	return nil
}
