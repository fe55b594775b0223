package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/catalog"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/query"
	"plumbline/internal/reqlog"
	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func demo(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func open(t *testing.T, db *pgtest.DB, cat *catalog.Catalog, opts *pgstore.Options) *pgstore.Store {
	t.Helper()
	o := pgstore.Options{Role: pgtest.Roles.Reader}
	if opts != nil {
		o = *opts
		o.Role = pgtest.Roles.Reader
	}
	st, err := pgstore.Open(context.Background(), db.AppDSN, cat, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// engine is the report engine over st, putting every call on record as the
// logger, as the server does.
func engine(db *pgtest.DB, cat *catalog.Catalog, st *pgstore.Store) *reports.Engine {
	rec := reqlog.New(st, &reqlog.Options{Role: pgtest.Roles.Logger, Logger: quiet})
	return reports.New(cat, st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet, Recorder: rec})
}

func refusal(t *testing.T, a *reports.Answer) *ask.Refusal {
	t.Helper()
	if a.Refusal == nil {
		body, _ := json.Marshal(a.Body)
		t.Fatalf("the call was answered: %s", body)
	}
	return a.Refusal
}

const lastWeek = `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"}`

// Every report transaction is read-only, runs as the reader with the
// statement timeout, and names the person, in a form PostgreSQL keeps.
func TestReportTransactions(t *testing.T) {
	db := pgtest.NewDB(t)
	st := open(t, db, demo(t), &pgstore.Options{StatementTimeout: 1500 * time.Millisecond})
	ctx := ask.WithCaller(context.Background(), ask.Caller{Person: "ana.lópez@floor.example\n" + strings.Repeat("x", 80)})
	var user, login, app, readOnly, timeout string
	err := st.Batch(ctx, pgstore.Tx{Role: pgtest.Roles.Reader}, func(b *pgx.Batch) {
		b.Queue(`SELECT current_user, session_user, current_setting('application_name'),
			current_setting('transaction_read_only'), current_setting('statement_timeout')`).QueryRow(func(r pgx.Row) error {
			return r.Scan(&user, &login, &app, &readOnly, &timeout)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "plumbline: ana.l?pez@floor.example?xxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	if user != pgtest.Roles.Reader || login != pgtest.Roles.App || app != want || readOnly != "on" || timeout != "1500ms" {
		t.Errorf("ran as %s (login %s), application_name %q, read only %s, timeout %s; want %s, %s, %q, on, 1500ms",
			user, login, app, readOnly, timeout, pgtest.Roles.Reader, pgtest.Roles.App, want)
	}
	err = st.Batch(context.Background(), pgstore.Tx{Role: pgtest.Roles.Reader}, func(b *pgx.Batch) {
		b.Queue("INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ('x', 'x', 'x', 'x', '{}')")
	})
	if code := pgCode(err); code != "25006" { // read_only_sql_transaction
		t.Errorf("a write in a report transaction: %v", err)
	}
}

// Every transaction carries its caller's person id, exactly as given, in
// a setting local to it: the next transaction on the connection, asked
// for by no one, carries none.
func TestTransactionsCarryTheCaller(t *testing.T) {
	db := pgtest.NewDB(t)
	st := open(t, db, demo(t), &pgstore.Options{MaxConns: 1})
	person := "ana.lópez@floor.example\n" + strings.Repeat("x", 80)
	read := func(ctx context.Context) (caller string) {
		t.Helper()
		err := st.Batch(ctx, pgstore.Tx{Role: pgtest.Roles.Reader}, func(b *pgx.Batch) {
			b.Queue("SELECT current_setting($1, true)", query.CallerSetting).QueryRow(func(r pgx.Row) error { return r.Scan(&caller) })
		})
		if err != nil {
			t.Fatal(err)
		}
		return caller
	}
	if got := read(ask.WithCaller(context.Background(), ask.Caller{Person: person})); got != person {
		t.Errorf("the caller's transaction carries %q, want %q", got, person)
	}
	if got := read(context.Background()); got != "" {
		t.Errorf("the next transaction, for no caller, carries %q, want none", got)
	}
}

// A report's statements are planned once per connection and that plan is
// reused: PostgreSQL's own choice plans each call anew for its values.
func TestAReportIsPlannedOnce(t *testing.T) {
	db := pgtest.NewDB(t)
	cat := demo(t)
	st := open(t, db, cat, &pgstore.Options{MaxConns: 1})
	submitted, _ := cat.Metric("submitted_sales")
	end := db.Now.AddDate(0, 0, -2)
	plan := &ask.Plan{Catalog: cat, Metrics: []*catalog.Metric{submitted}, Scope: ask.Scope{Kind: ask.ScopeFloor},
		Period: ask.Period{Start: end.AddDate(0, 0, -27), End: end}, GroupBy: "team", Limit: 51}
	stmt, _, err := query.Build(plan)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 4
	for range calls {
		if _, err := st.Run(context.Background(), plan); err != nil {
			t.Fatal(err)
		}
	}
	// The pool's one connection ran them all; the statements it prepared
	// are its own to see.
	var generic, custom int
	err = st.Pool().QueryRow(context.Background(),
		"SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1", stmt).Scan(&generic, &custom)
	if err != nil {
		t.Fatalf("the report's statement among the connection's prepared statements: %v", err)
	}
	if generic != calls || custom != 0 {
		t.Errorf("%d calls ran %d generic plans and %d custom ones; want every call on the one generic plan", calls, generic, custom)
	}
}

// A pipeline's transactions run one after the other in one batch, each as
// its own role, the later ones seeing what the earlier ones committed; a
// failure stops the rest. Afterwards the connection is the login's again,
// with none of their settings: only its own statement timeout, the store's.
func TestPipeline(t *testing.T) {
	db := pgtest.NewDB(t)
	st := open(t, db, demo(t), &pgstore.Options{MaxConns: 1, StatementTimeout: 1500 * time.Millisecond})
	ctx := context.Background()
	var seen int
	var firstUser, secondUser, readOnly string
	err := st.Pipeline(ctx,
		pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger, Write: true}, Queue: func(b *pgx.Batch) {
			b.Queue("SELECT current_user").QueryRow(func(r pgx.Row) error { return r.Scan(&firstUser) })
			b.Queue("INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ('p1', 'ana', 'c', 'sales', '{}')")
		}},
		pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger}, Queue: func(b *pgx.Batch) {
			b.Queue("SELECT current_user, current_setting('transaction_read_only'), (SELECT count(*) FROM plumbline.request_log WHERE person = 'ana')").
				QueryRow(func(r pgx.Row) error { return r.Scan(&secondUser, &readOnly, &seen) })
		}})
	if err != nil || firstUser != pgtest.Roles.Logger || secondUser != pgtest.Roles.Logger || readOnly != "on" || seen != 1 {
		t.Errorf("ran as %s then %s (read only %s), the second seeing %d rows of the first (%v)", firstUser, secondUser, readOnly, seen, err)
	}
	err = st.Pipeline(ctx,
		pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Reader}, Queue: func(b *pgx.Batch) { b.Queue("SELECT 1/0") }},
		pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger, Write: true}, Queue: func(b *pgx.Batch) {
			b.Queue("INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ('p2', 'ana', 'c', 'sales', '{}')")
		}})
	if code := pgCode(err); code != "22012" { // division_by_zero
		t.Errorf("a failing first step: %v", err)
	}
	var user, timeout string
	var rows int
	if err := st.Pool().QueryRow(ctx, `SELECT current_user, current_setting('statement_timeout'),
		(SELECT count(*) FROM plumbline.request_log)`).Scan(&user, &timeout, &rows); err != nil {
		t.Fatal(err)
	}
	if user != pgtest.Roles.App || timeout != "1500ms" || rows != 1 {
		t.Errorf("afterwards the connection is %s with timeout %s, and the log holds %d rows; want %s, 1500ms and 1 (the second pipeline's insert never ran)",
			user, timeout, rows, pgtest.Roles.App)
	}
}

// A flushing pipeline returns once its steps have committed, their writes
// visible to every session and their results read, and holds its
// connection until its flush is done; a flush that fails says so, though
// the steps' writes stand; a failing step stops the rest and the flush.
func TestPipelineFlushing(t *testing.T) {
	db := pgtest.NewDB(t)
	st := open(t, db, demo(t), &pgstore.Options{MaxConns: 1, AcquireTimeout: 3 * time.Second})
	other := db.Conn(t)
	ctx := context.Background()
	logged := func() (n int) {
		t.Helper()
		if err := other.QueryRow(ctx, "SELECT count(*) FROM plumbline.request_log").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(id string) pgstore.Step {
		return pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger, Write: true}, Queue: func(b *pgx.Batch) {
			b.Queue("INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ($1, 'ana', 'c', 'sales', '{}')", id)
		}}
	}
	var user string
	var seen int
	flushed, err := st.PipelineFlushing(ctx, insert("p1"), pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger}, Queue: func(b *pgx.Batch) {
		b.Queue("SELECT current_user, (SELECT count(*) FROM plumbline.request_log)").QueryRow(func(r pgx.Row) error { return r.Scan(&user, &seen) })
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := logged(); n != 1 || user != pgtest.Roles.Logger || seen != 1 {
		t.Errorf("before the flush: %d rows for another session; the second step ran as %s and saw %d; want 1, %s and 1", n, user, seen, pgtest.Roles.Logger)
	}
	// Until flushed is called, the pool's one connection is the flush's.
	held, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if conn, err := st.Pool().Acquire(held); err == nil {
		conn.Release()
		t.Errorf("the connection was free before the flush was awaited")
	}
	cancel()
	if err := flushed(); err != nil {
		t.Errorf("the flush: %v", err)
	}
	// The connection is free again: the pool has just the one.
	if err := st.Pool().QueryRow(ctx, "SELECT 1").Scan(new(int)); err != nil {
		t.Fatalf("after the flush the pool's one connection is not free: %v", err)
	}

	if _, err := st.PipelineFlushing(ctx, pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Reader}, Queue: func(b *pgx.Batch) { b.Queue("SELECT 1/0") }}, insert("p2")); pgCode(err) != "22012" {
		t.Errorf("a failing first step: %v", err)
	}
	if n := logged(); n != 1 {
		t.Errorf("the step after a failing one wrote: %d rows", n)
	}

	// A flush that cannot be made: the login may no longer write the
	// record that waits for the disk.
	if _, err := other.Exec(ctx, "REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) FROM "+pgtest.Roles.Logger); err != nil {
		t.Fatal(err)
	}
	flushed, err = st.PipelineFlushing(ctx, insert("p3"))
	if err != nil {
		t.Fatal(err)
	}
	if err := flushed(); pgCode(err) != "42501" { // insufficient_privilege
		t.Errorf("a flush that cannot be made: %v", err)
	}
	if n := logged(); n != 2 {
		t.Errorf("the log holds %d rows, want 2", n)
	}
	if err := st.Pool().QueryRow(ctx, "SELECT 1").Scan(new(int)); err != nil {
		t.Fatalf("after a failed flush the pool's one connection is not free: %v", err)
	}
}

// A flushing pipeline keeps its statements prepared on the connection, out
// of pgx's cache; when what one reads changes under it so that it fails (a
// column's type changed by a migration, say), the call it failed is the
// only one: its transaction failed, so the pool drops the connection, and
// what was prepared on it, and the next call prepares the statement anew.
func TestPipelineFlushingAfterASchemaChange(t *testing.T) {
	db := pgtest.NewDB(t)
	st := open(t, db, demo(t), &pgstore.Options{MaxConns: 1, AcquireTimeout: 3 * time.Second})
	admin := db.Conn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "CREATE TABLE public.probe (v int); INSERT INTO public.probe VALUES (7); GRANT SELECT ON public.probe TO "+
		pgx.Identifier{pgtest.Roles.Logger}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	run := func() (int64, error) {
		var v int64
		flushed, err := st.PipelineFlushing(ctx, pgstore.Step{Tx: pgstore.Tx{Role: pgtest.Roles.Logger, Write: true}, Queue: func(b *pgx.Batch) {
			b.Queue("SELECT v FROM public.probe").QueryRow(func(r pgx.Row) error { return r.Scan(&v) })
		}})
		if err != nil {
			return 0, err
		}
		return v, flushed()
	}
	if v, err := run(); err != nil || v != 7 {
		t.Fatalf("before the change: %d, %v; want 7", v, err)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE public.probe ALTER COLUMN v TYPE bigint; UPDATE public.probe SET v = 8"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(); pgCode(err) != "0A000" { // feature_not_supported: cached plan must not change result type
		t.Errorf("the first run after the change: %v; want the server's refusal of the plan it had", err)
	}
	for i := range 2 {
		if v, err := run(); err != nil || v != 8 {
			t.Errorf("run %d after the change: %d, %v; want 8", i+2, v, err)
		}
	}
}

// The reader cannot read member data, even with a query written by hand on
// the server's own connection: as the reader, as the login, or column by
// column; nor can the login become a role that could.
func TestMemberDataIsOutOfReach(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	var n int
	if err := db.Conn(t).QueryRow(ctx, "SELECT count(*) FROM crm.member_calls").Scan(&n); err != nil || n == 0 {
		t.Fatalf("the floor holds no member data to protect: %v", err)
	}
	st := open(t, db, demo(t), nil)
	for _, q := range []string{"SELECT * FROM crm.member_calls", "SELECT member_phone FROM crm.member_calls LIMIT 1",
		"SELECT count(*) FROM crm.member_calls", "SELECT call_id FROM crm.member_calls"} {
		err := st.Batch(ctx, pgstore.Tx{Role: pgtest.Roles.Reader}, func(b *pgx.Batch) { b.Queue(q) })
		if code := pgCode(err); code != "42501" { // insufficient_privilege
			t.Errorf("as the reader, %s: %v", q, err)
		}
		conn, err := st.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, q)
		conn.Release()
		if code := pgCode(err); code != "42501" {
			t.Errorf("as the login, %s: %v", q, err)
		}
	}
	for _, role := range []string{"postgres", "pg_read_all_data"} {
		_, err := st.Pool().Exec(ctx, "SET ROLE "+role)
		if code := pgCode(err); code != "42501" {
			t.Errorf("the login could become %s: %v", role, err)
		}
	}
}

// With every connection taken, a call waits the configured time and is
// answered "busy"; once a connection is free, calls are answered again.
func TestPoolExhaustionIsBusy(t *testing.T) {
	db := pgtest.NewDB(t)
	cat := demo(t)
	st := open(t, db, cat, &pgstore.Options{MaxConns: 1, AcquireTimeout: 100 * time.Millisecond})
	e := engine(db, cat, st)
	ctx := context.Background()
	held, err := st.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := refusal(t, e.Call(ctx, ask.Caller{Person: "ana"}, "sales", json.RawMessage(lastWeek)))
	if r.Code != ask.CodeBusy || !strings.Contains(r.Rule, "busy") {
		t.Errorf("with the pool exhausted: %+v, want busy", r)
	}
	held.Release()
	if a := e.Call(ctx, ask.Caller{Person: "ana"}, "sales", json.RawMessage(lastWeek)); a.Refusal != nil {
		t.Errorf("with a connection free again: %+v", a.Refusal)
	}
}

// slowCatalog is the demo catalogue with the quality source read through a
// view that takes seconds to answer.
func slowCatalog(t *testing.T, db *pgtest.DB) *catalog.Catalog {
	t.Helper()
	_, err := db.Conn(t).Exec(context.Background(), `
		CREATE VIEW metrics.slow_quality AS
		    SELECT q.* FROM metrics.agent_quality_daily q CROSS JOIN (SELECT pg_sleep(30)) AS slow;
		GRANT SELECT ON metrics.slow_quality TO `+pgtest.Roles.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, _ := filepath.Glob("../../catalog/demo/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.ReplaceAll(string(b), "relation: metrics.agent_quality_daily", "relation: metrics.slow_quality"))
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.LoadDir(dir)
	if err != nil || cat.Relations()[len(cat.Relations())-1] != "metrics.slow_quality" {
		t.Fatalf("the slow catalogue: %v %v", err, cat.Relations())
	}
	db.Serve(t, cat)
	return cat
}

// A query past the statement timeout is stopped and answered "timeout",
// without database text; the server goes on answering, and once the source
// is quick again its reports come back.
func TestStatementTimeout(t *testing.T) {
	db := pgtest.NewDB(t)
	cat := slowCatalog(t, db)
	st := open(t, db, cat, &pgstore.Options{StatementTimeout: 300 * time.Millisecond, MaxConns: 2})
	e := engine(db, cat, st)
	ctx := context.Background()
	ana := ask.Caller{Person: "ana"}
	for i := 0; i < 3; i++ {
		a := e.Call(ctx, ana, "quality", json.RawMessage(lastWeek))
		r := refusal(t, a)
		body, _ := json.Marshal(a.Body)
		if r.Code != ask.CodeTimeout || strings.Contains(string(body), "cancel") || strings.Contains(string(body), "statement") {
			t.Errorf("a slow query: %s", body)
		}
		if a := e.Call(ctx, ana, "health", json.RawMessage(`{}`)); a.Refusal != nil || a.Body.(*answer.Health).Database != "reachable" {
			t.Fatalf("after a timeout the server does not answer: %+v", a.Body)
		}
	}
	if _, err := db.Conn(t).Exec(ctx, "CREATE OR REPLACE VIEW metrics.slow_quality AS SELECT q.* FROM metrics.agent_quality_daily q"); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"quality", "sales"} {
		if a := e.Call(ctx, ana, tool, json.RawMessage(lastWeek)); a.Refusal != nil {
			t.Errorf("%s, with every source quick again: %+v", tool, a.Refusal)
		}
	}
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// A table locked by someone else holds a report no longer than its
// statement timeout, on a connection that has never run the report's query
// (whose batch the server must parse, waiting for the lock, before the
// transaction's own timeout is set) as on one that has: each call is
// refused as a timeout while its own context is still live, so the
// statement timeout ended it. The context's deadline is only a guard
// against a hang; how long each call took is logged.
func TestStatementTimeoutOnALockedTable(t *testing.T) {
	db := pgtest.NewDB(t)
	cat := demo(t)
	st := open(t, db, cat, &pgstore.Options{StatementTimeout: 300 * time.Millisecond, MaxConns: 1})
	e := engine(db, cat, st)
	ctx := context.Background()
	tx, err := db.Conn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE metrics.agent_quality_daily IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		start := time.Now()
		callCtx, cancel := context.WithTimeout(ctx, time.Minute)
		a := e.Call(callCtx, ask.Caller{Person: "ana"}, "quality", json.RawMessage(lastWeek))
		guarded := callCtx.Err()
		cancel()
		t.Logf("call %d on a locked table: refused after %s", i+1, time.Since(start).Round(time.Millisecond))
		if guarded != nil {
			t.Fatalf("call %d on a locked table waited for the lock until the test's guard of a minute, past its statement timeout", i+1)
		}
		if r := refusal(t, a); r.Code != ask.CodeTimeout {
			t.Errorf("call %d on a locked table: refused %s, want timeout", i+1, r.Code)
		}
	}
}

// The roster's stamp tells a changed roster from an unchanged one: read
// with the last stamp, an unchanged roster is not read again; a change to
// any row of any of its relations is read, and shows; undone, the roster
// has its first stamp again. A roster whose rows the database cannot hash
// is read whole every time, as if stamps did not exist.
func TestTheRosterStampSparesRereadingAnUnchangedRoster(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	st := open(t, db, demo(t), nil)
	first, err := st.Directory(ctx, "")
	if err != nil || first.Stamp == "" || len(first.Agents) == 0 || len(first.Targets) == 0 {
		t.Fatalf("the first read: %v, stamp %q", err, first.Stamp)
	}
	if again, err := st.Directory(ctx, first.Stamp); err != nil || again != nil {
		t.Fatalf("an unchanged roster was read again (%v)", err)
	}
	conn := db.Conn(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	// Each change, its undoing, and the text the changed roster shows.
	changes := []struct{ relation, change, undo, shows string }{
		{"dim_team", `UPDATE analytics.dim_team SET team_name = team_name || ' (renamed)' WHERE team_key = 'hawks'`,
			`UPDATE analytics.dim_team SET team_name = replace(team_name, ' (renamed)', '') WHERE team_key = 'hawks'`, " (renamed)"},
		{"dim_agent", `UPDATE analytics.dim_agent SET email = 'moved.' || email WHERE agent_key = (SELECT min(agent_key) FROM analytics.dim_agent)`,
			`UPDATE analytics.dim_agent SET email = substr(email, 7) WHERE agent_key = (SELECT min(agent_key) FROM analytics.dim_agent)`, "moved."},
		{"agent_team_history", `UPDATE analytics.agent_team_history SET effective_from = effective_from - 1 WHERE (agent_key, effective_from) = (SELECT agent_key, min(effective_from) FROM analytics.agent_team_history GROUP BY 1 ORDER BY 1 LIMIT 1)`,
			`UPDATE analytics.agent_team_history SET effective_from = effective_from + 1 WHERE (agent_key, effective_from) = (SELECT agent_key, min(effective_from) FROM analytics.agent_team_history GROUP BY 1 ORDER BY 1 LIMIT 1)`, ""},
		{"team_floor_history", `UPDATE analytics.team_floor_history SET reason = reason || ' (restated)' WHERE team_key = 'hawks'`,
			`UPDATE analytics.team_floor_history SET reason = replace(reason, ' (restated)', '') WHERE team_key = 'hawks'`, " (restated)"},
		{"targets", `DELETE FROM analytics.targets WHERE set_at = (SELECT max(set_at) FROM analytics.targets)`, "", ""},
	}
	for _, c := range changes {
		var before int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM analytics."+c.relation).Scan(&before); err != nil {
			t.Fatal(err)
		}
		exec(c.change)
		changed, err := st.Directory(ctx, first.Stamp)
		if err != nil || changed == nil || changed.Stamp == first.Stamp {
			t.Fatalf("a change to %s was not read (%v)", c.relation, err)
		}
		if c.shows != "" && !strings.Contains(fmt.Sprint(*changed), c.shows) {
			t.Errorf("the roster read after a change to %s does not show it", c.relation)
		}
		if c.undo == "" {
			if len(changed.Targets) >= len(first.Targets) {
				t.Errorf("the roster read after a delete from %s still has %d rows", c.relation, len(changed.Targets))
			}
			continue
		}
		exec(c.undo)
		undone, err := st.Directory(ctx, changed.Stamp)
		if err != nil || undone == nil || undone.Stamp != first.Stamp {
			t.Fatalf("%s as it was has another stamp (%v)", c.relation, err)
		}
	}

	// A column of a type with no hash: the roster is read whole each time.
	exec(`ALTER TABLE analytics.team_floor_history ALTER COLUMN reason TYPE xml USING xmlelement(name reason, reason)::text::xml`)
	whole, err := st.Directory(ctx, "")
	if err != nil || whole == nil || whole.Stamp != "" || len(whole.Floor) == 0 {
		t.Fatalf("a roster that cannot be stamped: %v, stamp %q", err, whole.Stamp)
	}
	if again, err := st.Directory(ctx, "anything"); err != nil || again == nil || len(again.Agents) != len(whole.Agents) {
		t.Fatalf("a roster that cannot be stamped was not read again (%v)", err)
	}
}
