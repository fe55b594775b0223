package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/dbcheck"
)

const guardHelp = `
Usage: plumbline guard --db DSN [flags]

Print what plumbline's database login can reach beyond what it needs: the
check plumbline serve makes before it starts, and refuses to start on. Extra
is any relation the login can read that no grant file (--grants) names; any
write but the request log's own columns; CREATE on a schema or the database,
or temporary tables; membership in any role but the reader, logger and auth;
the superuser, createrole, createdb, bypassrls or replication attribute on
the login or a role it can become; and any security-definer function it may
run. The report also lists what the grants give the login that it lacks.

Connect as the login plumbline serves with, not as an administrator. With
--analyst-db it checks the analyst's door's login too: it may read exactly
the relations of the analyst grant files (--analyst-grants), write nothing,
and be a member of the analyst role alone. The command exits 1 when anything
is extra, so a deployment can stop there.

Examples:
  plumbline guard --db postgres://plumbline_app@db/floor
  PLUMBLINE_DB=postgres://plumbline_app@db/floor plumbline guard --grants ./grants
`

func runGuard(ctx context.Context, args []string, s *streams) error {
	f := newFlags("guard", guardHelp, s)
	db := f.string("db", "", "PostgreSQL connection `string` of plumbline's login (required)")
	grantsDir := addGrantsFlag(f)
	analystDSN := f.string("analyst-db", "", "PostgreSQL connection `string` of the analyst's door's login, to check it too")
	analystDir := addAnalystGrantsFlag(f)
	rf := addRoleFlags(f, false)
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	roles, err := rf.roles()
	if err != nil {
		return err
	}
	gs, err := loadGrants(*grantsDir)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, *db)
	if err != nil {
		return fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rep, err := dbcheck.Inspect(ctx, conn, dbcheck.LoginPolicy(roles, gs))
	if err != nil {
		return err
	}
	fmt.Fprint(s.out, rep)
	ok := rep.OK()
	if *analystDSN != "" {
		ags, err := loadAnalystGrants(*analystDir)
		if err != nil {
			return err
		}
		agent, err := pgx.Connect(ctx, *analystDSN)
		if err != nil {
			return fmt.Errorf("cannot reach the database as the analyst's door's login: %w", err)
		}
		defer agent.Close(context.WithoutCancel(ctx))
		arep, err := dbcheck.Inspect(ctx, agent, dbcheck.AnalystPolicy(roles, ags))
		if err != nil {
			return err
		}
		fmt.Fprint(s.out, "\n", arep)
		ok = ok && arep.OK()
	}
	if !ok {
		return exitError{1}
	}
	return nil
}
