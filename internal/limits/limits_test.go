package limits_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/migrate"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/internal/servetest"
	"plumbline/reports/ask"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// replica is one plumbline server over the shared database, as serve wires
// it, answering over Streamable HTTP with every call coming from person.
func replica(t *testing.T, db *pgtest.DB, perMinute int, person *atomic.Value) (*mcp.ClientSession, *reqlog.Log) {
	t.Helper()
	ctx := context.Background()
	served := servetest.New(t, db, &servetest.Options{
		Log: func(o *reqlog.Options) { o.PerMinute = perMinute },
		Server: func(o *mcpserver.Options, _ *servetest.Floor) {
			o.Caller = func(*mcp.CallToolRequest) ask.Caller {
				return ask.Caller{Person: person.Load().(string), Client: "test"}
			}
		}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: served.URL(t), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, served.Log
}

type outcome struct {
	Error *struct{ Code, Rule string }
}

func callAs(t *testing.T, cs *mcp.ClientSession, tool, args string) outcome {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(structured, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// Two servers on one database together hold a person to the per-minute
// limit: calls through either count, and the next call through either is
// refused with how long to wait. Another person is not held back, and
// refused calls do not count against the limit.
func TestTwoServersHoldAPersonToTheLimit(t *testing.T) {
	db := pgtest.NewDB(t)
	var person atomic.Value
	person.Store("ana@floor.example")
	a, la := replica(t, db, 3, &person)
	b, lb := replica(t, db, 3, &person)
	sales := `{"who":{"floor":true},"period":{"named":"last_week"}}`
	for i, cs := range []*mcp.ClientSession{a, b, a} {
		if o := callAs(t, cs, "sales", sales); o.Error != nil {
			t.Fatalf("call %d within the limit was refused: %+v", i+1, o.Error)
		}
	}
	for i, cs := range []*mcp.ClientSession{b, a, b} {
		o := callAs(t, cs, "metric_definitions", `{}`)
		if o.Error == nil || o.Error.Code != ask.CodeRateLimited || !strings.Contains(o.Error.Rule, "try again in") {
			t.Fatalf("call %d over the limit: %+v, want rate_limited", i+4, o.Error)
		}
	}
	person.Store("bo@floor.example")
	if o := callAs(t, b, "sales", sales); o.Error != nil {
		t.Errorf("another person was held back: %+v", o.Error)
	}
	la.Flush(context.Background())
	lb.Flush(context.Background())
	var counted, refused int
	err := db.Conn(t).QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE outcome IN ('ok', 'cached')),
		count(*) FILTER (WHERE outcome = 'rate_limited' AND NOT counted) FROM plumbline.calls WHERE person = 'ana@floor.example'`).Scan(&counted, &refused)
	if err != nil || counted != 3 || refused != 3 {
		t.Errorf("the log holds %d answered and %d refused calls of ana, want 3 and 3 (%v)", counted, refused, err)
	}
}

// admit puts a call of person on record through a log with a limit of
// perMinute, as the engine does, and returns the wait.
func admit(t *testing.T, db *pgtest.DB, perMinute int, id, person string) time.Duration {
	t.Helper()
	l := reqlog.New(db.Store(t), &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: perMinute})
	defer l.Close()
	wait, err := l.Admit(context.Background(), &ask.Record{ID: id, Caller: ask.Caller{Person: person, Client: "c"}, Tool: "sales", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	return wait
}

// The wait is until enough of the person's calls leave the minute.
func TestRetryAfter(t *testing.T) {
	db := pgtest.NewDB(t)
	_, err := db.Conn(t).Exec(context.Background(), `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at, counted)
		VALUES ('old', 'ana', 'c', 'sales', '{}', now() - interval '50 seconds', true),
		       ('new', 'ana', 'c', 'sales', '{}', now() - interval '10 seconds', true),
		       ('refused', 'ana', 'c', 'sales', '{}', now() - interval '5 seconds', false),
		       ('gone', 'ana', 'c', 'sales', '{}', now() - interval '61 seconds', true)`)
	if err != nil {
		t.Fatal(err)
	}
	if wait := admit(t, db, 2, "this", "ana"); wait < 8*time.Second || wait > 11*time.Second {
		t.Errorf("two calls in the minute, two allowed: wait %v, want about 10s, until the older leaves", wait)
	}
	if wait := admit(t, db, 1, "next", "ana"); wait < 48*time.Second || wait > 51*time.Second {
		t.Errorf("two calls in the minute, one allowed: wait %v, want about 50s, until the newer leaves", wait)
	}
	if wait := admit(t, db, 3, "third", "ana"); wait != 0 {
		t.Errorf("two calls in the minute (the refused ones do not count), three allowed: wait %v, want none", wait)
	}
	if wait := admit(t, db, 1, "first", "nobody"); wait != 0 {
		t.Errorf("a person with no calls: wait %v", wait)
	}
	rows, _ := db.Conn(t).Query(context.Background(), `SELECT CASE WHEN counted THEN 'counted' ELSE 'not counted' END
		FROM plumbline.request_log WHERE request_id IN ('this', 'next', 'third', 'first') ORDER BY started_at`)
	counts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(counts, []string{"not counted", "not counted", "counted", "counted"}) {
		t.Errorf("the four calls are on record as %q (%v), want the first two, refused, not counted", counts, err)
	}
}

// A log upgraded from before the limit had a column of its own, and before
// outcomes had a table of their own: the calls refused for the limit are
// still not counted, every other call is, and every call's outcome is as it
// was.
func TestTheUpgradeKeepsRefusedCallsUncounted(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	conn := db.Conn(t)
	before := fstest.MapFS{}
	err := fs.WalkDir(sqlfiles.Migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path >= "0004" {
			return err
		}
		data, err := fs.ReadFile(sqlfiles.Migrations(), path)
		before[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err == nil {
		_, err = conn.Exec(ctx, "DROP SCHEMA plumbline CASCADE")
	}
	if err == nil {
		_, err = migrate.Apply(ctx, conn, migrate.Set{Name: "plumbline", Files: before})
	}
	if err == nil {
		_, err = conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at, outcome)
			VALUES ('answered', 'ana', 'c', 'sales', '{}', now() - interval '20 seconds', 'ok'),
			       ('refused', 'ana', 'c', 'sales', '{}', now() - interval '15 seconds', 'rate_limited'),
			       ('invalid', 'ana', 'c', 'sales', '{}', now() - interval '10 seconds', 'invalid_argument'),
			       ('running', 'ana', 'c', 'sales', '{}', now() - interval '5 seconds', NULL),
			       ('refused too', 'bo', 'c', 'hours', '{}', now() - interval '2 days', 'rate_limited')`)
	}
	if err != nil {
		t.Fatal(err)
	}
	applied, err := migrate.Apply(ctx, conn, migrate.Set{Name: "plumbline", Files: sqlfiles.Migrations()})
	if err != nil || !slices.Contains(applied, "plumbline/0004_request_log_counted.sql") {
		t.Fatalf("the upgrade applied %v (%v)", applied, err)
	}
	rows, _ := conn.Query(ctx, "SELECT request_id FROM plumbline.request_log WHERE NOT counted ORDER BY 1")
	uncounted, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(uncounted, []string{"refused", "refused too"}) {
		t.Errorf("after the upgrade %q are not counted (%v), want the two refused for the limit", uncounted, err)
	}
	rows, _ = conn.Query(ctx, "SELECT request_id || ': ' || coalesce(outcome, 'running') FROM plumbline.calls ORDER BY 1")
	outcomes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	want := []string{"answered: ok", "invalid: invalid_argument", "refused too: rate_limited", "refused: rate_limited", "running: running"}
	if err != nil || !slices.Equal(outcomes, want) {
		t.Errorf("after the upgrade the calls read %q (%v), want %q", outcomes, err, want)
	}
}

// logOf fills the request log with rows calls, most of them old, one
// person's among them: their last minute holds perMinute calls and five
// hundred refused ones, and before that a long history.
func logOf(t testing.TB, db *pgtest.DB, rows, perMinute int) {
	t.Helper()
	ctx := context.Background()
	conn := db.Conn(t)
	// The history first; then, each stamped as of its own statement so
	// that however long a million rows take to write they are still in the
	// minute when the check runs, the person's last minute, full, and, as
	// a client far past its limit leaves, many calls refused in it.
	_, err := conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at)
		SELECT 'r' || i, CASE WHEN i % 10 = 0 THEN 'ana' ELSE 'p' || i % 997 END, 'c', 'sales', '{}',
			now() - interval '2 minutes' - i * interval '1 second'
		FROM generate_series(1, $1::int - $2::int) i`, rows, perMinute)
	if err == nil {
		_, err = conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at)
			SELECT 'r' || i, 'ana', 'c', 'sales', '{}', now() - interval '30 seconds' FROM generate_series($1::int - $2::int + 1, $1::int) i`, rows, perMinute)
	}
	if err == nil {
		_, err = conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at, counted)
			SELECT 'x' || i, 'ana', 'c', 'sales', '{}', now() - interval '10 seconds', false FROM generate_series(1, 500) i`)
	}
	if err == nil {
		_, err = conn.Exec(ctx, "ANALYZE plumbline.request_log")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The limit reads a fixed number of the log's index entries and rows, not
// the person's history or the log: with a person at the limit, their last
// minute full and a hundred thousand calls of theirs before it, among a
// million rows, the check reads the same as among a thousand, and none of
// the calls refused in that minute.
func TestLimitCostDoesNotGrowWithTheLog(t *testing.T) {
	const perMinute = 60
	read := map[int]int{}
	for _, rows := range []int{1_000, 1_000_000} {
		db := pgtest.NewDB(t)
		logOf(t, db, rows, perMinute)
		conn := db.Conn(t)
		ctx := context.Background()
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments) VALUES ('this', 'ana', 'c', 'sales', '{}')`); err != nil {
			t.Fatal(err)
		}
		var plan []map[string]any
		if err := tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+limits.Check, "this", "ana", perMinute, []string{}).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx)
		var scans []map[string]any
		var walk func(n map[string]any)
		walk = func(n map[string]any) {
			if n["Relation Name"] == "request_log" && n["Node Type"] != "ModifyTable" {
				scans = append(scans, n)
			}
			kids, _ := n["Plans"].([]any)
			for _, k := range kids {
				walk(k.(map[string]any))
			}
		}
		walk(plan[0]["Plan"].(map[string]any))
		for _, n := range scans {
			if kind := n["Node Type"].(string); kind != "Index Scan" && kind != "Index Only Scan" && kind != "Bitmap Heap Scan" {
				t.Errorf("%d rows: the limit reads the log by %s, not through an index", rows, kind)
			}
			removed, _ := n["Rows Removed by Filter"].(float64)
			read[rows] += int(n["Actual Rows"].(float64) + removed)
		}
	}
	t.Logf("log rows read by the limit: %d among a thousand, %d among a million", read[1_000], read[1_000_000])
	if read[1_000] != read[1_000_000] || read[1_000] > 2*perMinute+2 {
		t.Errorf("the limit read %d log rows among a thousand and %d among a million; want the same, at most about %d", read[1_000], read[1_000_000], perMinute)
	}
}

// BenchmarkAdmit is a call's admission, the request-log insert and the
// limit in one round trip, for a person at the edge of the limit, with a
// thousand and with a million rows in the log: the two take the same time.
func BenchmarkAdmit(b *testing.B) {
	const perMinute = 60
	for _, rows := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("log_rows=%d", rows), func(b *testing.B) {
			db := pgtest.NewDB(b)
			logOf(b, db, rows, perMinute-1)
			// Each call admitted is refused from then on and counts no
			// more, so the person stays at the edge.
			l := reqlog.New(db.Store(b), &reqlog.Options{Role: pgtest.Roles.Logger, PerMinute: perMinute})
			defer l.Close()
			i := 0
			for b.Loop() {
				i++
				rec := &ask.Record{ID: fmt.Sprintf("b%d", i), Caller: ask.Caller{Person: "ana", Client: "c"}, Tool: "sales", Arguments: json.RawMessage(`{}`)}
				if _, err := l.Admit(context.Background(), rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A batch of calls admitted together is decided as if its calls came one
// after another, in the order of their ids: with two calls of ana's in the
// minute and four allowed, the first two of six new ones pass and the other
// four are refused, each told to wait until the oldest of the four calls
// before it leaves the minute; refused calls do not count against the
// calls after them, and another person's call in the batch is not held
// back.
func TestABatchIsDecidedCallByCall(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at)
		VALUES ('a0', 'ana', 'c', 'sales', '{}', now() - interval '40 seconds'),
		       ('a1', 'ana', 'c', 'sales', '{}', now() - interval '30 seconds')`); err != nil {
		t.Fatal(err)
	}
	var batch []*ask.Record
	for _, id := range []string{"b1", "b2", "b3", "b4", "b5", "b6"} {
		batch = append(batch, &ask.Record{ID: id, Caller: ask.Caller{Person: "ana", Client: "c"}, Tool: "sales", Arguments: json.RawMessage(`{}`)})
	}
	batch = slices.Insert(batch, 3, &ask.Record{ID: "b3x", Caller: ask.Caller{Person: "bo", Client: "c"}, Tool: "sales", Arguments: json.RawMessage(`{}`)})
	ids, persons := []string{}, []string{}
	for _, r := range batch {
		ids, persons = append(ids, r.ID), append(persons, r.Caller.Person)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments)
		SELECT i, p, 'c', 'sales', '{}' FROM unnest($1::text[], $2::text[]) AS c (i, p)`, ids, persons); err != nil {
		t.Fatal(err)
	}
	wait := make([]time.Duration, len(batch))
	b := &pgx.Batch{}
	limits.Queue(b, batch, 4, wait)
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	for i, r := range batch {
		refused := r.Caller.Person == "ana" && r.ID > "b2"
		switch {
		case !refused && wait[i] != 0:
			t.Errorf("%s of %s: wait %v, want none", r.ID, r.Caller.Person, wait[i])
		case refused && (wait[i] < 18*time.Second || wait[i] > 21*time.Second):
			t.Errorf("%s of %s: wait %v, want about 20s, until a0 leaves the minute", r.ID, r.Caller.Person, wait[i])
		}
	}
	rows, _ := conn.Query(ctx, `SELECT request_id FROM plumbline.request_log WHERE NOT counted ORDER BY 1`)
	refused, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(refused, []string{"b3", "b4", "b5", "b6"}) {
		t.Errorf("the log takes %q out of the count (%v), want b3 to b6", refused, err)
	}
}
