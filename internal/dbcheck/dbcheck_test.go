package dbcheck_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/pgtest"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func policy(t testing.TB, r grants.Roles) dbcheck.Policy {
	t.Helper()
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	return dbcheck.LoginPolicy(r, gs)
}

// With exactly the real grants, the guard finds nothing extra and nothing
// missing.
func TestRealGrantsPass(t *testing.T) {
	db := pgtest.NewDB(t)
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.AppDSN), policy(t, pgtest.Roles))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || len(rep.Missing) > 0 {
		t.Errorf("the real grants do not pass:\n%s", rep)
	}
	if rep.Login != pgtest.Roles.App || rep.Database != db.Name {
		t.Errorf("report for %s on %s", rep.Login, rep.Database)
	}
	if !strings.Contains(rep.String(), "nothing extra") {
		t.Errorf("report:\n%s", rep)
	}
}

// What the grants give but the login cannot reach is reported as missing,
// and is no reason to refuse.
func TestMissingGrants(t *testing.T) {
	db := pgtest.NewDB(t)
	r := db.PrivateRoles(t)
	admin := db.Conn(t)
	_, err := admin.Exec(context.Background(), `REVOKE SELECT ON live.sales_board FROM `+r.Reader+`;
		REVOKE INSERT (arguments) ON plumbline.request_log FROM `+r.Logger+`; REVOKE `+r.Auth+` FROM `+r.App+`;
		REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) FROM `+r.Logger)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.LoginDSN(r.App)), policy(t, r))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cannot read live.sales_board, which a grant file names (or it does not exist)",
		"not a member of role " + r.Auth,
		"cannot execute plumbline.prune_signin_state() (or it does not exist)",
		"cannot execute pg_catalog.pg_logical_emit_message(boolean, text, text), with which the request log waits for the disk (every role may, unless revoked)",
		"cannot INSERT (arguments) on plumbline.request_log",
	}
	// Out of the auth role, the login misses all the token store holds:
	// every own table after the logger's (the request log, its outcomes
	// and the analyst's audit log).
	for _, tb := range dbcheck.Own[3:] {
		for _, p := range []struct {
			priv string
			cols []string
		}{{"SELECT", tb.Select}, {"INSERT", tb.Insert}, {"UPDATE", tb.Update}} {
			if len(p.cols) > 0 {
				want = append(want, "cannot "+p.priv+" ("+strings.Join(p.cols, ", ")+") on "+tb.Relation)
			}
		}
	}
	if !rep.OK() || strings.Join(rep.Missing, "\n") != strings.Join(want, "\n") {
		t.Errorf("missing = %q, want %q\n%s", rep.Missing, want, rep)
	}
}

// A security-definer function runs with its owner's rights, so the login
// may execute plumbline's own alone: any other is extra, and refused.
func TestSecurityDefinerFunctions(t *testing.T) {
	db := pgtest.NewDB(t)
	if _, err := db.Conn(t).Exec(context.Background(),
		`CREATE FUNCTION public.wipe_log() RETURNS void LANGUAGE sql SECURITY DEFINER AS 'DELETE FROM plumbline.request_log'`); err != nil {
		t.Fatal(err)
	}
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.AppDSN), policy(t, pgtest.Roles))
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || !strings.Contains(rep.String(), "public.wipe_log()") || strings.Contains(rep.String(), "prune_signin_state") {
		t.Errorf("a foreign security-definer function passed, or plumbline's own was named:\n%s", rep)
	}
}

// A superuser reaches everything: the report leads with the attribute and
// names the member data.
func TestSuperuserLogin(t *testing.T) {
	db := pgtest.NewDB(t)
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.DSN), policy(t, pgtest.Roles))
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || !strings.HasPrefix(rep.Extra[0], "BYPASSRLS, CREATEDB, CREATEROLE, REPLICATION, SUPERUSER on role postgres") {
		t.Fatalf("a superuser login passed or was not named first:\n%s", rep)
	}
	for _, want := range []string{"  SELECT on relation crm.member_calls, which no grant file names\n",
		"  DELETE, INSERT, REFERENCES, TRIGGER, TRUNCATE, UPDATE on relation crm.member_calls\n",
		"  CREATE, TEMPORARY on database " + db.Name + "\n", "  membership in role pg_read_all_data\n"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, rep)
		}
	}
}

// check --db: the demo catalogue against the demo floor with the real
// grants is clean; each kind of fault is named.
func TestCheckCatalog(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	app := connect(t, db.AppDSN)
	problems, err := dbcheck.CheckCatalog(ctx, app, cat, gs, pgtest.Roles.Reader)
	if err != nil || len(problems) > 0 {
		t.Fatalf("the demo floor fails the check: %v %q", err, problems)
	}

	r := db.PrivateRoles(t)
	_, err = db.Conn(t).Exec(ctx, `
		ALTER TABLE metrics.agent_quality_daily RENAME COLUMN audits_failed TO audits_not_passed;
		ALTER TABLE metrics.agent_sales_daily ALTER COLUMN lost TYPE text;
		REVOKE SELECT ON live.sales_board FROM `+r.Reader+`;
		GRANT USAGE ON SCHEMA crm TO `+r.Reader+`; GRANT SELECT (call_id, member_phone) ON crm.member_calls TO `+r.Reader+`;
		ALTER TABLE analytics.team_floor_history RENAME TO floor_history_old;
		INSERT INTO analytics.targets VALUES ('hawks', 'zq_gone', 'week', '2026-11-09', 1, 'someone', now(), 'a metric since removed'),
		  ('hawks', 'logged_hours', 'month', '2026-11-01', 1, 'someone', now(), 'a metric without a target rule'),
		  ('hawks', 'close_rate', 'week', '2026-11-09', 0.3, 'someone', now(), 'a rate the catalogue plans by the month')`)
	if err != nil {
		t.Fatal(err)
	}
	var fewer []*grants.Grant
	for _, g := range gs {
		if g.Relation != "analytics.dim_team" {
			fewer = append(fewer, g)
		}
	}
	problems, err = dbcheck.CheckCatalog(ctx, connect(t, db.LoginDSN(r.App)), cat, fewer, r.Reader)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{
		"analytics.dim_team: no grant file names it",
		"analytics.team_floor_history (roster floor_history): the relation does not exist",
		`analytics.targets: holds targets for "zq_gone", which is not a metric with a target: rule`,
		`analytics.targets: holds targets for "logged_hours", which is not a metric with a target: rule`,
		"analytics.targets: holds close_rate targets by week, but the catalogue sets them by month only",
		"crm.member_calls.member_phone: the reader can read it and its name looks like member data",
		"live.sales_board.sales (source sales_board): the reader role " + r.Reader + " cannot read it",
		"metrics.agent_quality_daily.audits_failed (source agent_quality_daily): the column does not exist",
		"metrics.agent_sales_daily.lost (source agent_sales_daily): is text, not a number",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the check does not say %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "crm.member_calls.call_id") {
		t.Errorf("a harmless column was flagged:\n%s", got)
	}
	problems, err = dbcheck.CheckCatalog(ctx, app, cat, gs, "nobody_here")
	if err != nil || !strings.Contains(strings.Join(problems, "\n"), "the reader role nobody_here does not exist") {
		t.Errorf("a missing reader role: %v %q", err, problems)
	}
}

// A refusal to start names the login and lists what it must lose: every
// extra up to twenty, then how many more plumbline guard lists.
func TestRefusal(t *testing.T) {
	for _, n := range []int{1, 20, 23} {
		rep := &dbcheck.Report{}
		for i := range n {
			rep.Extra = append(rep.Extra, fmt.Sprintf("SELECT on crm.t%02d", i))
		}
		got := rep.Refusal("the database login x")
		lines := strings.Split(got, "\n")
		listed := min(n, 20)
		if !strings.HasPrefix(lines[0], "the database login x can reach more than plumbline needs") || len(lines)-1 != listed+min(n-listed, 1) ||
			strings.Contains(got, fmt.Sprintf("crm.t%02d", listed)) || (n > 20) != strings.Contains(got, fmt.Sprintf("and %d more (plumbline guard", n-20)) {
			t.Errorf("%d extras:\n%s", n, got)
		}
	}
}
