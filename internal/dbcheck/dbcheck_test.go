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
	"plumbline/internal/query"
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
	return dbcheck.LoginPolicy(r, gs, pgtest.Catalog(t))
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
	_, err := admin.Exec(context.Background(), `REVOKE SELECT ON plumbline_seen.sales_board FROM `+r.Reader+`;
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
		"cannot read plumbline_seen.sales_board, a view through which it reads live.sales_board, filtered by reach (or it does not exist); run plumbline setup again",
		"not a member of role " + r.Auth,
		"cannot execute plumbline.prune_signin_state() (or it does not exist)",
		"cannot execute pg_catalog.pg_advisory_xact_lock(bigint) (or it does not exist)",
		"cannot execute pg_catalog.pg_logical_emit_message(boolean, text, text), with which the request log waits for the disk",
		"cannot INSERT (arguments) on plumbline.request_log",
	}
	// Out of the auth role, the login misses all the token store and the
	// directory hold: every own table after the logger's (the request log, its outcomes
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
		if tb.Delete {
			want = append(want, "cannot DELETE on "+tb.Relation)
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

// A view the reader reads a source through that no longer asks what the
// caller may see (one replaced by hand) stops the server, naming the fix.
func TestAViewThatDoesNotFilter(t *testing.T) {
	db := pgtest.NewDB(t)
	r := db.PrivateRoles(t)
	if _, err := db.Conn(t).Exec(context.Background(), "CREATE OR REPLACE VIEW plumbline_seen.sales_board AS SELECT s.* FROM live.sales_board s"); err != nil {
		t.Fatal(err)
	}
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.LoginDSN(r.App)), policy(t, r))
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT on relation plumbline_seen.sales_board, which reads its source without asking plumbline_seen.caller_reach() what the caller may see; run plumbline setup again"
	if rep.OK() || len(rep.Extra) != 1 || rep.Extra[0] != want {
		t.Errorf("extra = %q, want %q", rep.Extra, want)
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
	// The views that filter the sources by reach go with the columns they
	// read, and come back as setup makes them, over the changed sources.
	admin := db.Conn(t)
	_, err = admin.Exec(ctx, `DROP SCHEMA plumbline_seen CASCADE;
		ALTER TABLE metrics.agent_quality_daily RENAME COLUMN audits_failed TO audits_not_passed;
		ALTER TABLE metrics.agent_sales_daily ALTER COLUMN lost TYPE text;`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, query.SeenViews(cat), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	if err := grants.Apply(ctx, admin, r, gs, cat); err != nil {
		t.Fatal(err)
	}
	_, err = admin.Exec(ctx, `
		REVOKE SELECT ON plumbline_seen.sales_board FROM `+r.Reader+`;
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
		"live.sales_board.sales (source sales_board): the reader role " + r.Reader + " cannot read it through plumbline_seen.sales_board",
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

// Each line of the guard's report says how to undo what it names: the
// statement it gives, run by an administrator, or plumbline setup run
// again, leaves the login with nothing extra.
func TestEachExtraSaysHowToUndoIt(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	r := db.PrivateRoles(t)
	admin := db.Conn(t)
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	as, err := grants.LoadFor(sqlfiles.AnalystGrants(), grants.ToAnalyst)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh session each time: a database's settings apply from a
	// session's start.
	inspect := func() (*dbcheck.Report, error) {
		return dbcheck.Inspect(ctx, connect(t, db.LoginDSN(r.Agent)), dbcheck.AnalystPolicy(r, as))
	}
	names := strings.NewReplacer("{analyst}", r.Analyst, "{db}", db.Name)
	for _, c := range []struct{ grant, want string }{
		{"GRANT EXECUTE ON FUNCTION pg_read_file(text) TO {analyst}", "EXECUTE on function pg_catalog.pg_read_file(text), held by {analyst}; " +
			"PostgreSQL gives it to no role by default: REVOKE EXECUTE ON FUNCTION pg_catalog.pg_read_file(text) FROM {analyst}"},
		{"GRANT EXECUTE ON FUNCTION pg_ls_dir(text) TO PUBLIC", "EXECUTE on function pg_catalog.pg_ls_dir(text), held by PUBLIC; " +
			"PostgreSQL gives it to no role by default: REVOKE EXECUTE ON FUNCTION pg_catalog.pg_ls_dir(text) FROM PUBLIC"},
		{"CREATE FUNCTION public.as_owner() RETURNS text LANGUAGE sql SECURITY DEFINER AS 'SELECT current_user::text'",
			"EXECUTE on security-definer function public.as_owner(), held by PUBLIC; it runs with its owner's rights: " +
				"REVOKE EXECUTE ON FUNCTION public.as_owner() FROM PUBLIC"},
		{"GRANT SELECT ON pg_statistic TO {analyst}", "SELECT on relation pg_catalog.pg_statistic, held by {analyst}; " +
			"PostgreSQL gives it to no role by default: REVOKE SELECT ON pg_catalog.pg_statistic FROM {analyst}"},
		{"GRANT SELECT ON pg_stat_activity TO PUBLIC, {analyst}", "SELECT on relation pg_catalog.pg_stat_activity, held by PUBLIC, {analyst}; " +
			"setup takes it from every role, as it shows other sessions and the statistics of every table: " +
			"run plumbline setup again, and REVOKE SELECT ON pg_catalog.pg_stat_activity FROM {analyst}"},
		{"GRANT SELECT ON pg_class TO PUBLIC", "SELECT (relallvisible, relpages, reltuples) on relation pg_catalog.pg_class, held by PUBLIC; " +
			"setup takes them from every role, as they tell the size of every table: run plumbline setup again"},
		{"GRANT SELECT (reltuples) ON pg_class TO {analyst}", "SELECT (reltuples) on relation pg_catalog.pg_class, held by {analyst}; " +
			"setup takes them from every role, as they tell the size of every table: REVOKE SELECT (reltuples) ON pg_catalog.pg_class FROM {analyst}"},
		{"GRANT EXECUTE ON FUNCTION pg_notify(text, text) TO PUBLIC", "EXECUTE on function pg_catalog.pg_notify(text, text), held by PUBLIC; " +
			"setup takes it from every role, as it sends notifications to other sessions: run plumbline setup again"},
		{"SELECT lo_from_bytea(4242, 'kept aside'); GRANT SELECT, UPDATE ON LARGE OBJECT 4242 TO {analyst}",
			"SELECT, UPDATE on large object 4242, held by {analyst}: REVOKE SELECT, UPDATE ON LARGE OBJECT 4242 FROM {analyst}"},
		{"ALTER DATABASE {db} SET lo_compat_privileges = on", "lo_compat_privileges is on (set by the database), so every role may read " +
			"and change every large object: ALTER DATABASE {db} RESET lo_compat_privileges"},
		{"GRANT SET, ALTER SYSTEM ON PARAMETER log_statement TO {analyst}",
			"ALTER SYSTEM, SET on parameter log_statement, held by {analyst}: REVOKE ALTER SYSTEM, SET ON PARAMETER log_statement FROM {analyst}"},
		{`CREATE FOREIGN DATA WRAPPER "Member FDW"; GRANT USAGE ON FOREIGN DATA WRAPPER "Member FDW" TO {analyst}`,
			`USAGE on foreign-data wrapper Member FDW, held by {analyst}: REVOKE USAGE ON FOREIGN DATA WRAPPER "Member FDW" FROM {analyst}`},
		{"CREATE SERVER crm FOREIGN DATA WRAPPER \"Member FDW\"; GRANT USAGE ON FOREIGN SERVER crm TO PUBLIC",
			"USAGE on foreign server crm, held by PUBLIC: REVOKE USAGE ON FOREIGN SERVER crm FROM PUBLIC"},
		{"GRANT CREATE ON TABLESPACE pg_default TO {analyst}",
			"CREATE on tablespace pg_default, held by {analyst}: REVOKE CREATE ON TABLESPACE pg_default FROM {analyst}"},
	} {
		if _, err := admin.Exec(ctx, names.Replace(c.grant)); err != nil {
			t.Fatalf("%s: %v", c.grant, err)
		}
		rep, err := inspect()
		if err != nil {
			t.Fatal(err)
		}
		want := names.Replace(c.want)
		if len(rep.Extra) != 1 || rep.Extra[0] != want {
			t.Errorf("after %s the guard says %q, want %q", c.grant, rep.Extra, want)
			continue
		}
		fix := want[strings.LastIndex(want, ": ")+2:]
		if strings.HasPrefix(fix, "run plumbline setup again") {
			if err := grants.Apply(ctx, admin, r, append(gs, as...), pgtest.Catalog(t)); err != nil {
				t.Fatal(err)
			}
			fix = strings.TrimPrefix(strings.TrimPrefix(fix, "run plumbline setup again"), ", and ")
		}
		if fix != "" {
			if _, err := admin.Exec(ctx, fix); err != nil {
				t.Fatalf("%s: %v", fix, err)
			}
		}
		if rep, err := inspect(); err != nil || !rep.OK() {
			t.Errorf("after %s and then %s: %v\n%s", c.grant, fix, err, rep)
		}
	}
}

// The login may delete rows of the directory's tables (a person or group
// the identity provider deletes), and of no other of plumbline's own.
func TestDeleteOnlyFromTheDirectory(t *testing.T) {
	db := pgtest.NewDB(t)
	r := db.PrivateRoles(t)
	if _, err := db.Conn(t).Exec(context.Background(), `GRANT DELETE ON plumbline.oauth_tokens, plumbline.directory_changes TO `+r.Auth); err != nil {
		t.Fatal(err)
	}
	rep, err := dbcheck.Inspect(context.Background(), connect(t, db.LoginDSN(r.App)), policy(t, r))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DELETE on relation plumbline.directory_changes", "DELETE on relation plumbline.oauth_tokens"}
	if strings.Join(rep.Extra, "\n") != strings.Join(want, "\n") || len(rep.Missing) > 0 {
		t.Errorf("extra = %q, want %q; missing = %q", rep.Extra, want, rep.Missing)
	}
}
