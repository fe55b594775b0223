package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/grants"
	"plumbline/internal/provision"
)

const setupHelp = `
Usage: plumbline setup --db DSN [flags]
       plumbline setup --print [flags]

Set a database up for plumbline, connected as an administrator: apply
plumbline's own migrations (the request log), create the roles and the login
where they do not exist yet (the reader, logger and auth roles, NOLOGIN, and
the login, a member of exactly those three; the analyst role, NOLOGIN, and
the agent login the analyst's door signs in as, a member of the analyst
alone), and give them what they hold: the logger its columns of the request
log and the analyst's audit log, the reader SELECT on exactly the relations
of the grant files (--grants), the analyst SELECT on exactly those of the
analyst grant files (--analyst-grants), and nobody temporary tables. It is
safe to run again: a grant file removed since the last run is revoked.

Roles belong to the whole cluster: setup creates them once and leaves
existing ones as they are. It sets no password; give the login one with
ALTER ROLE ... PASSWORD, or sign it in however your server authenticates.
Then check the login with plumbline guard.

--print writes the role and grant SQL that setup applies after the
migrations, for a DBA to review or to apply by hand.

Examples:
  plumbline setup --db postgres://admin@db/floor --grants ./grants
  plumbline setup --print --grants ./grants --reader-role floor_reader > plumbline-grants.sql
`

func setup(ctx context.Context, args []string, s *streams) error {
	f := newFlags("setup", setupHelp, s)
	db := f.string("db", "", "PostgreSQL connection `string` of an administrator (required unless --print)")
	printSQL := f.boolean("print", false, "print the role and grant SQL instead of applying it")
	grantsDir := addGrantsFlag(f)
	analystDir := addAnalystGrantsFlag(f)
	rf := addRoleFlags(f, true)
	if _, err := f.parse(args); err != nil {
		return err
	}
	roles, err := rf.roles()
	if err != nil {
		return err
	}
	gs, err := loadGrants(*grantsDir)
	if err != nil {
		return err
	}
	ags, err := loadAnalystGrants(*analystDir)
	if err != nil {
		return err
	}
	if *printSQL {
		script, err := grants.Script(roles, append(gs, ags...))
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
	applied, err := provision.Database(ctx, conn, provision.Plan{Roles: roles, Grants: append(gs, ags...)})
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
