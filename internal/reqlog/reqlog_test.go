package reqlog_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var secret = []byte("a secret of at least sixteen bytes")

// server is an engine over a test database, signed in as plumbline's login,
// recording as the logger, and its request log.
func server(t *testing.T, db *pgtest.DB) (*reports.Engine, *reqlog.Log) {
	t.Helper()
	return serverWith(t, db, reqlog.Options{})
}

// serverWith is server with the log's options o, but for its role, its
// logger and, unless o sets one, its limit.
func serverWith(t *testing.T, db *pgtest.DB, o reqlog.Options) (*reports.Engine, *reqlog.Log) {
	t.Helper()
	st := db.Store(t)
	cat := st.Catalog()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	o.Role, o.Logger = pgtest.Roles.Logger, quiet
	if o.PerMinute == 0 {
		o.PerMinute = 100
	}
	rl := reqlog.New(st, &o)
	t.Cleanup(rl.Close)
	return reports.New(cat, st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet,
		Recorder: rl, Redact: reqlog.Redactor(secret)}), rl
}

type logRow struct {
	Person, Client, Tool string
	Arguments            string
	Started              time.Time
	Outcome              *string
	Duration             *float64
	Rows                 *int
}

func readLog(t *testing.T, conn *pgx.Conn, id string) *logRow {
	t.Helper()
	var r logRow
	err := conn.QueryRow(context.Background(), `SELECT person, client, tool, arguments::text, started_at, outcome, duration_ms, row_count
		FROM plumbline.calls WHERE request_id = $1`, id).
		Scan(&r.Person, &r.Client, &r.Tool, &r.Arguments, &r.Started, &r.Outcome, &r.Duration, &r.Rows)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return &r
}

// A call is on record with who, what and when, free text as a keyed hash
// and its length, and its outcome.
func TestCallsAreOnRecord(t *testing.T) {
	db := pgtest.NewDB(t)
	e, rl := server(t, db)
	sql := db.Conn(t)
	ctx := context.Background()
	ana := ask.Caller{Person: "ana@floor.example", Client: "claude-code"}
	before := time.Now()
	a := e.Call(ctx, ana, "sales", json.RawMessage(`{"who":{"team":"Falcons"},"period":{"named":"last_week"},"group_by":"day"}`))
	if a.Refusal != nil {
		t.Fatal(a.Refusal)
	}
	rl.Flush(ctx)
	r := readLog(t, sql, a.RequestID)
	if r == nil {
		t.Fatal("the call is not in the request log")
	}
	if r.Person != ana.Person || r.Client != ana.Client || r.Tool != "sales" || r.Started.Before(before.Add(-time.Minute)) {
		t.Errorf("logged %+v", r)
	}
	if r.Outcome == nil || *r.Outcome != "ok" || r.Rows == nil || *r.Rows != 7 || r.Duration == nil || *r.Duration <= 0 {
		t.Errorf("outcome %v, rows %v, duration %v; want ok, 7 and a duration", r.Outcome, r.Rows, r.Duration)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(r.Arguments), &args); err != nil {
		t.Fatal(err)
	}
	team := args["who"].(map[string]any)["team"].(map[string]any)
	if strings.Contains(r.Arguments, "Falcons") || team["length"] != float64(7) || team["hash"] != hmacHex("Falcons")[:32] {
		t.Errorf("the free text is logged as %v, want its keyed hash and length", team)
	}
	if args["group_by"] != "day" || args["period"].(map[string]any)["named"] != "last_week" {
		t.Errorf("fixed choices are not logged as given: %s", r.Arguments)
	}

	bad := e.Call(ctx, ana, "sales", json.RawMessage(`{"who":{"floor":true},"period":{"named":"someday"}}`))
	rl.Close() // writes what is queued, as at shutdown
	if r := readLog(t, sql, bad.RequestID); r == nil || r.Outcome == nil || *r.Outcome != ask.CodeInvalidArgument {
		t.Errorf("a refused call is logged as %+v", r)
	}
}

// hmacHex is HMAC-SHA-256 under the test's secret, hex-encoded.
func hmacHex(text string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(text))
	return hex.EncodeToString(mac.Sum(nil))
}

// The hash is HMAC-SHA-256 (test case 2 of RFC 4231, key "Jefe") cut to 128
// bits, and the length counts characters.
func TestRedactor(t *testing.T) {
	got := reqlog.Redactor([]byte("Jefe"))("what do ya want for nothing?").(ask.Redacted)
	if got.Hash != "5bdcc146bf60754e6a042426089575c7" || got.Length != 28 {
		t.Errorf("Redactor = %+v, want the RFC 4231 HMAC cut to 128 bits and length 28", got)
	}
	if other := reqlog.Redactor([]byte("another key"))("what do ya want for nothing?").(ask.Redacted); other.Hash == got.Hash {
		t.Error("the hash does not depend on the key")
	}
	if l := reqlog.Redactor(secret)("José").(ask.Redacted).Length; l != 4 {
		t.Errorf("length of José = %d characters, want 4", l)
	}
}

// salesView puts a view in the place of the sales facts, their rows as the
// table (now agent_sales_daily_table) holds them followed by tail, for the
// reader to read.
func salesView(t *testing.T, sql *pgx.Conn, tail string) {
	t.Helper()
	if _, err := sql.Exec(context.Background(), `
		ALTER TABLE metrics.agent_sales_daily RENAME TO agent_sales_daily_table;
		CREATE VIEW metrics.agent_sales_daily AS SELECT s.* FROM metrics.agent_sales_daily_table s `+tail+`;
		GRANT SELECT ON metrics.agent_sales_daily TO `+pgtest.Roles.Reader); err != nil {
		t.Fatal(err)
	}
}

// notOnRecord makes a call of sales on the floor and checks that it is
// refused as not on record, in words free of database text (permission
// errors, or what names the failing object).
func notOnRecord(t *testing.T, e *reports.Engine, object string) *reports.Answer {
	t.Helper()
	a := e.Call(context.Background(), ask.Caller{Person: "ana", Client: "c"}, "sales", json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"}}`))
	body, _ := json.Marshal(a.Body)
	if a.Refusal == nil || a.Refusal.Code != ask.CodeUnavailable || !strings.Contains(a.Refusal.Rule, "could not be put on record") {
		t.Fatalf("a call that could not be put on record was answered %s", body)
	}
	if strings.Contains(string(body), "permission") || strings.Contains(string(body), object) {
		t.Errorf("the refusal carries database text: %s", body)
	}
	return a
}

// When the call cannot be put on record it is refused before any report SQL
// runs: the report asked for would run past the statement timeout, yet the
// refusal is immediate and says why, with no database text.
func TestUnwritableLogRefusesTheCall(t *testing.T) {
	db := pgtest.NewDB(t)
	sql := db.Conn(t)
	ctx := context.Background()
	// A source that cannot answer within the timeout, and a log the
	// logger may no longer write to (table privileges belong to this
	// database alone).
	salesView(t, sql, "CROSS JOIN (SELECT pg_sleep(30)) AS slow")
	if _, err := sql.Exec(ctx, "REVOKE INSERT ON plumbline.request_log FROM "+pgtest.Roles.Logger); err != nil {
		t.Fatal(err)
	}
	e, _ := server(t, db)
	notOnRecord(t, e, "request_log")
	var n int
	if err := sql.QueryRow(ctx, "SELECT count(*) FROM plumbline.request_log").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows in the log, %v", n, err)
	}
}

// An answer leaves only once its call's row is on disk: when the flush
// that follows the row's commit fails, the report has run but its answer
// is withheld, and the call is refused as not on record; its row stands,
// with that outcome, and the metrics count a failed write of a call.
func TestAnAnswerWaitsForItsRowOnDisk(t *testing.T) {
	db := pgtest.NewDB(t)
	sql := db.Conn(t)
	ctx := context.Background()
	if _, err := sql.Exec(ctx, "REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) FROM "+pgtest.Roles.Logger); err != nil {
		t.Fatal(err)
	}
	metrics := telemetry.NewMetrics(telemetry.Build{})
	e, rl := serverWith(t, db, reqlog.Options{Metrics: metrics})
	a := notOnRecord(t, e, "pg_logical")
	rl.Flush(ctx)
	if r := readLog(t, sql, a.RequestID); r == nil || r.Outcome == nil || *r.Outcome != ask.CodeUnavailable {
		t.Errorf("the call's row: %+v, want it with outcome %s", r, ask.CodeUnavailable)
	}
	// An operator sees the refusal as a failed write of a call's row.
	scrape := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(scrape, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := telemetry.MetricLogFailures + `{write="call"} 1`; !strings.Contains(scrape.Body.String(), want) {
		t.Errorf("the metrics lack %s", want)
	}
}

// The call's row is committed before any report SQL runs: the source the
// report reads is a view that fails unless the log, as the report's own
// snapshot sees it, already holds the call. It answers, with figures.
func TestTheRowPrecedesTheReport(t *testing.T) {
	db := pgtest.NewDB(t)
	sql := db.Conn(t)
	ctx := context.Background()
	salesView(t, sql, "WHERE 1 / (SELECT count(*) FROM plumbline.request_log WHERE person = 'ana' AND tool = 'sales') > 0")
	e, _ := server(t, db)
	a := e.Call(ctx, ask.Caller{Person: "ana", Client: "c"}, "sales", json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"}}`))
	if a.Refusal != nil {
		t.Fatalf("the report ran before its call was on record: %+v", a.Refusal)
	}
	var want float64
	if err := sql.QueryRow(ctx, `SELECT sum(submitted) FROM metrics.agent_sales_daily_table s
		JOIN analytics.agent_team_history h ON h.agent_key = s.agent_key AND h.effective_from = (
			SELECT max(effective_from) FROM analytics.agent_team_history WHERE agent_key = s.agent_key AND effective_from <= s.day)
		JOIN analytics.team_floor_history f ON f.team_key = h.team_key AND f.effective_from = (
			SELECT max(effective_from) FROM analytics.team_floor_history WHERE team_key = h.team_key AND effective_from <= s.day)
		WHERE f.counts_as_sales AND s.day BETWEEN '2026-11-09' AND '2026-11-15'`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	rep := a.Body.(*answer.Report)
	if len(rep.Rows) != 1 || fmt.Sprint(rep.Rows[0][0]) != fmt.Sprint(want) {
		t.Errorf("submitted sales on the floor last week: %v, want %v", rep.Rows, want)
	}
}

// The logger writes who, what and when once and afterwards the outcome,
// once: it cannot delete a row, rewrite who/what/when or an outcome, or
// stamp its own time. Nor can the login itself.
func TestLoggerCannotRewriteTheLog(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	app, err := pgx.Connect(ctx, db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	asLogger := func(stmt string) error {
		return pgx.BeginFunc(ctx, app, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgtest.Roles.Logger); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, stmt)
			return err
		})
	}
	if err := asLogger(`INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ('r1', 'ana', 'c', 'sales', '{}')`); err != nil {
		t.Fatalf("the logger cannot put a call on record: %v", err)
	}
	if err := asLogger(`INSERT INTO plumbline.request_outcome (request_id, outcome, duration_ms, row_count) VALUES ('r1', 'ok', 3.5, 7)`); err != nil {
		t.Fatalf("the logger cannot record an outcome: %v", err)
	}
	for _, stmt := range []string{
		`DELETE FROM plumbline.request_log WHERE request_id = 'r1'`,
		`TRUNCATE plumbline.request_log`,
		`UPDATE plumbline.request_log SET person = 'bo' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_log SET client = 'x' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_log SET tool = 'hours' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_log SET arguments = '{}' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_log SET started_at = now() - interval '1 day' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_log SET request_id = 'r2' WHERE request_id = 'r1'`,
		`INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at) VALUES ('r3', 'ana', 'c', 'sales', '{}', '2020-01-01')`,
		`SELECT arguments FROM plumbline.request_log`,
		`UPDATE plumbline.request_outcome SET outcome = 'forbidden' WHERE request_id = 'r1'`,
		`UPDATE plumbline.request_outcome SET duration_ms = 1 WHERE request_id = 'r1'`,
		`DELETE FROM plumbline.request_outcome WHERE request_id = 'r1'`,
		`SELECT outcome FROM plumbline.request_outcome`,
		`SELECT outcome FROM plumbline.calls`,
	} {
		for who, run := range map[string]func(string) error{
			"the logger": asLogger,
			"the login":  func(s string) error { _, err := app.Exec(ctx, s); return err },
		} {
			var pgErr *pgconn.PgError
			if err := run(stmt); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Errorf("%s: %s: %v, want permission denied", who, stmt, err)
			}
		}
	}
	var person, outcome string
	if err := db.Conn(t).QueryRow(ctx, "SELECT person, outcome FROM plumbline.calls WHERE request_id = 'r1'").Scan(&person, &outcome); err != nil || person != "ana" || outcome != "ok" {
		t.Errorf("the row now reads %s, %s (%v)", person, outcome, err)
	}
}

// Retention deletes the calls older than the horizon and keeps the rest; it
// needs an administrator: plumbline's own login cannot prune its log.
func TestPrune(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	sql := db.Conn(t)
	if _, err := sql.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at)
		SELECT 'r' || i, 'ana', 'c', 'sales', '{}', now() - i * interval '1 day' FROM generate_series(0, 24999) i`); err != nil {
		t.Fatal(err)
	}
	if _, err := sql.Exec(ctx, `INSERT INTO plumbline.request_outcome (request_id, outcome, duration_ms, row_count)
		SELECT 'r' || i, 'ok', 1, 1 FROM generate_series(0, 24999) i`); err != nil {
		t.Fatal(err)
	}
	app, err := pgx.Connect(ctx, db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	var pgErr *pgconn.PgError
	if _, err := reqlog.Prune(ctx, app, 30*24*time.Hour, nil); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("plumbline's login pruned its own log: %v", err)
	}
	var reports []int64
	n, err := reqlog.Prune(ctx, sql, 30*24*time.Hour, func(d int64) { reports = append(reports, d) })
	if err != nil || n != 25000-30 || len(reports) != 3 {
		t.Errorf("deleted %d calls in %d batches (%v), want %d in 3", n, len(reports), err, 25000-30)
	}
	var kept int
	var oldest time.Time
	if err := sql.QueryRow(ctx, "SELECT count(*), min(started_at) FROM plumbline.request_log").Scan(&kept, &oldest); err != nil {
		t.Fatal(err)
	}
	if kept != 30 || time.Since(oldest) > 30*24*time.Hour {
		t.Errorf("kept %d calls, the oldest from %v; want the 30 of the last 30 days", kept, oldest)
	}
	var outcomes, theirs int
	if err := sql.QueryRow(ctx, `SELECT count(*), count(l.request_id) FROM plumbline.request_outcome o
		LEFT JOIN plumbline.request_log l USING (request_id)`).Scan(&outcomes, &theirs); err != nil {
		t.Fatal(err)
	}
	if outcomes != 30 || theirs != 30 {
		t.Errorf("kept %d outcomes, %d of them of calls kept; want the 30 calls' own", outcomes, theirs)
	}
	if _, err := reqlog.Prune(ctx, sql, time.Hour, nil); err == nil {
		t.Error("a horizon under a day was accepted")
	}
}

// Calls admitted at the same moment share a round trip and a commit: the
// rows of one transaction share its start (now()), and sixty-four calls at
// once are written in far fewer. Each is on record, with its own who and
// what, by the time it is let through. A person making forty of them with
// a limit of ten is let through at most ten times, every refused call on
// record as refused; the other callers are not held back.
func TestCallsAdmittedTogetherShareACommit(t *testing.T) {
	db := pgtest.NewDB(t)
	l := reqlog.New(db.Store(t), &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: 10})
	defer l.Close()
	const n, many = 64, 40
	waits, errs := admitAtOnce(l, n, func(i int) *ask.Record {
		person := "ana"
		if i >= many {
			person = fmt.Sprintf("p%d", i)
		}
		return &ask.Record{ID: fmt.Sprintf("c%02d", i), Caller: ask.Caller{Person: person, Client: "c"},
			Tool: "sales", Arguments: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}
	})
	let := 0
	for i := range n {
		switch {
		case errs[i] != nil:
			t.Fatalf("call %d: %v", i, errs[i])
		case i >= many && waits[i] != 0:
			t.Errorf("call %d, the only one of its person, was held back %v", i, waits[i])
		case i < many && waits[i] == 0:
			let++
		}
	}
	if let > 10 {
		t.Errorf("ana was let through %d times at once, with a limit of ten", let)
	}
	ctx := context.Background()
	var rows, commits, refused, mismatched int
	if err := db.Conn(t).QueryRow(ctx, `SELECT count(*), count(DISTINCT started_at), count(*) FILTER (WHERE NOT counted),
			count(*) FILTER (WHERE (arguments->>'i')::int <> substr(request_id, 2)::int OR (person = 'ana') <> (substr(request_id, 2)::int < $1))
		FROM plumbline.request_log`, many).Scan(&rows, &commits, &refused, &mismatched); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d calls at once written in %d commits; ana let through %d times of %d", n, commits, let, many)
	if rows != n || mismatched != 0 || refused != many-let {
		t.Errorf("the log holds %d rows (%d not as called), %d refused; want %d, none, %d", rows, mismatched, refused, n, many-let)
	}
	if commits > n/2 {
		t.Errorf("%d calls at once were written in %d commits: they do not share them", n, commits)
	}
}

// A call's row and its outcome are each written once and never updated,
// so the log grows only at its end: after vacuum has run, new calls' rows
// still go to its last pages, not to space left among older rows, where
// writing them would read pages the cache may no longer hold, each written
// out whole to the write-ahead log on its first change after a checkpoint.
// Calls come as a server sees them under steady load: admitted a few at a
// time, their outcomes written soon after.
func TestTheLogGrowsOnlyAtItsEnd(t *testing.T) {
	db := pgtest.NewDB(t)
	st := db.Store(t)
	l := reqlog.New(st, &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: 1000})
	const at = 8
	calls := func(from, to int) {
		for first := from; first < to; first += at {
			recs := make([]*ask.Record, at)
			_, errs := admitAtOnce(l, at, func(i int) *ask.Record {
				recs[i] = &ask.Record{ID: fmt.Sprintf("c%05d", first+i), Caller: ask.Caller{Person: fmt.Sprintf("p%d", i), Client: "c"},
					Tool: "sales", Arguments: json.RawMessage(`{"who":{"floor":true},"period":{"named":"last_week"}}`)}
				return recs[i]
			})
			for i, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
				recs[i].Outcome, recs[i].Duration, recs[i].Rows = "ok", time.Millisecond, 7
				l.Finish(context.Background(), recs[i])
			}
			l.Flush(context.Background())
		}
	}
	ctx, sql := context.Background(), db.Conn(t)
	// pages counts the pages the rows of calls from id on are on, and
	// those of them up to page last; and returns the last of them.
	pages := func(id string, last int) (n, upTo, end int) {
		t.Helper()
		if err := sql.QueryRow(ctx, `SELECT count(DISTINCT p), count(DISTINCT p) FILTER (WHERE p <= $2), max(p)
			FROM (SELECT (ctid::text::point)[0]::int AS p FROM plumbline.request_log WHERE request_id >= $1) rows`,
			id, last).Scan(&n, &upTo, &end); err != nil {
			t.Fatal(err)
		}
		return n, upTo, end
	}
	calls(0, 3000)
	if _, err := sql.Exec(ctx, "VACUUM plumbline.request_log"); err != nil {
		t.Fatal(err)
	}
	_, _, last := pages("c00000", 0)
	calls(3000, 4000)
	conns := int(st.Pool().Config().MaxConns)
	l.Close()
	// A backend reports its counts of writes when it ends.
	st.Close()
	// Each connection that wrote the log may have left its last page with
	// room; no other older page may take new rows.
	n, older, _ := pages("c03000", last)
	t.Logf("new calls' rows on %d pages, %d of them among older rows; %d connections", n, older, conns)
	if older > conns {
		t.Errorf("after vacuum new calls' rows went to %d pages, %d of them among older rows (%d connections wrote the log)", n, older, conns)
	}
	var ins, upd, outcomes, matched int64
	for wait := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err := sql.QueryRow(ctx, `SELECT sum(n_tup_ins) FILTER (WHERE relname = 'request_outcome'), sum(n_tup_upd)
			FROM pg_stat_user_tables WHERE schemaname = 'plumbline' AND relname IN ('request_log', 'request_outcome')`).Scan(&ins, &upd); err != nil {
			t.Fatal(err)
		}
		if ins >= 4000 || time.Now().After(wait) {
			break
		}
	}
	if err := sql.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE outcome = 'ok' AND duration_ms = 1 AND row_count = 7)
		FROM plumbline.calls`).Scan(&outcomes, &matched); err != nil {
		t.Fatal(err)
	}
	if ins != 4000 || upd != 0 || outcomes != 4000 || matched != 4000 {
		t.Errorf("%d outcomes written, %d rows updated; the log shows %d calls, %d with their outcome; want 4000, none, 4000, 4000",
			ins, upd, outcomes, matched)
	}
}

// A call whose row PostgreSQL refuses (here, a number jsonb cannot hold)
// spoils the batch it came in, and the batch is admitted again a call at a
// time: that call alone is refused, and every other call is on record.
func TestASpoiledCallSpoilsNoOther(t *testing.T) {
	db := pgtest.NewDB(t)
	l := reqlog.New(db.Store(t), &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: 60})
	defer l.Close()
	const n = 48
	_, errs := admitAtOnce(l, n, func(i int) *ask.Record {
		args := `{"n":1}`
		if i%8 == 0 {
			args = `{"n":1e999999}`
		}
		return &ask.Record{ID: fmt.Sprintf("s%02d", i), Caller: ask.Caller{Person: fmt.Sprintf("p%d", i), Client: "c"},
			Tool: "sales", Arguments: json.RawMessage(args)}
	})
	for i, err := range errs {
		if spoiled := i%8 == 0; spoiled != (err != nil) {
			t.Errorf("call %d (spoiled %v): %v", i, spoiled, err)
		}
	}
	var rows, commits int
	if err := db.Conn(t).QueryRow(context.Background(), "SELECT count(*), count(DISTINCT started_at) FROM plumbline.request_log").Scan(&rows, &commits); err != nil || rows != n-n/8 {
		t.Errorf("%d rows on record (%v), want %d", rows, err, n-n/8)
	}
	t.Logf("%d calls at once, %d of them spoiled: %d rows in %d commits", n, n/8, rows, commits)
}

// admitAtOnce admits n calls, record(i) the i-th, all let go at the same
// moment, and returns what each heard.
func admitAtOnce(l *reqlog.Log, n int, record func(i int) *ask.Record) ([]time.Duration, []error) {
	waits, errs := make([]time.Duration, n), make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := record(i)
			<-start
			waits[i], errs[i] = l.Admit(context.Background(), r)
		}()
	}
	close(start)
	wg.Wait()
	return waits, errs
}

// BenchmarkAdmit puts calls on record one at a time and 64 at once, each
// of its own person, within the limit: the time a call takes, and how many
// calls share a commit.
func BenchmarkAdmit(b *testing.B) {
	for _, inFlight := range []int{1, 64} {
		b.Run(fmt.Sprintf("in_flight=%d", inFlight), func(b *testing.B) {
			db := pgtest.NewDB(b)
			l := reqlog.New(db.Store(b), &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: 60})
			defer l.Close()
			var n atomic.Int64
			admit := func() error {
				i := n.Add(1)
				_, err := l.Admit(context.Background(), &ask.Record{ID: fmt.Sprintf("b%09d", i),
					Caller: ask.Caller{Person: fmt.Sprintf("p%d", i), Client: "c"}, Tool: "sales", Arguments: json.RawMessage(`{}`)})
				return err
			}
			if inFlight == 1 {
				for b.Loop() {
					if err := admit(); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				b.SetParallelism(inFlight / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := admit(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			var calls, commits float64
			if err := db.Conn(b).QueryRow(context.Background(), "SELECT count(*), count(DISTINCT started_at) FROM plumbline.request_log").Scan(&calls, &commits); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(calls/commits, "calls/commit")
		})
	}
}

// A call over the limit runs no report. Each read of the sales source made
// for ana or bo leaves a mark (pgtest.MarkReads); the engine has already
// read what it keeps (the directory, the source's coverage) for another
// caller, and ana has used her one call of the minute.
func TestACallOverTheLimitRunsNoReport(t *testing.T) {
	db := pgtest.NewDB(t)
	db.MarkReads(t, "metrics.agent_sales_daily", 2, "ana", "bo")
	e, _ := serverWith(t, db, reqlog.Options{PerMinute: 1})
	// Each call asks for a week of its own, as an answer kept for one
	// would be served again to another.
	day := 1
	call := func(person, tool string) *reports.Answer {
		day++
		week := fmt.Sprintf(`{"who":{"floor":true},"period":{"start":"2026-11-%02d","end":"2026-11-%02d"}}`, day, day+6)
		return e.Call(context.Background(), ask.Caller{Person: person, Client: "c"}, tool, json.RawMessage(week))
	}
	for _, first := range [][2]string{{"warm", "sales"}, {"ana", "hours"}} {
		if a := call(first[0], first[1]); a.Refusal != nil {
			t.Fatalf("%s's %s: %+v", first[0], first[1], a.Refusal)
		}
	}
	if a := call("ana", "sales"); a.Refusal == nil || a.Refusal.Code != ask.CodeRateLimited {
		t.Fatalf("ana's second call: %+v, want %s", a.Refusal, ask.CodeRateLimited)
	}
	if n := db.Marked(t, 2); n != 0 {
		t.Errorf("the report of a call over the limit read its source, on %d sessions", n)
	}
	// The mark works: bo's call, within the limit, reads the source.
	if a := call("bo", "sales"); a.Refusal != nil || db.Marked(t, 2) == 0 {
		t.Errorf("bo's call: %+v, and its report left no mark", a.Refusal)
	}
}
