package limits_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/reports"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// replica is one plumbline server over the shared database, as serve wires
// it, answering over Streamable HTTP with every call coming from person.
func replica(t *testing.T, db *pgtest.DB, perMinute int, person *atomic.Value) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st := db.Store(t)
	cat := st.Catalog()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := reports.New(cat, st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet,
		Recorder: reqlog.New(st, &reqlog.Options{Role: pgtest.Roles.Logger, Logger: quiet}),
		Limiter:  limits.New(st, &limits.Options{PerMinute: perMinute, Role: pgtest.Roles.Logger})})
	srv := mcpserver.New(engine, &mcpserver.Options{Logger: quiet,
		Caller: func(*mcp.CallToolRequest) reports.Caller {
			return reports.Caller{Person: person.Load().(string), Client: "test"}
		}})
	ts := httptest.NewServer(mcpserver.HTTPHandler(srv))
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
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
	a, b := replica(t, db, 3, &person), replica(t, db, 3, &person)
	sales := `{"who":{"floor":true},"period":{"named":"last_week"}}`
	for i, cs := range []*mcp.ClientSession{a, b, a} {
		if o := callAs(t, cs, "sales", sales); o.Error != nil {
			t.Fatalf("call %d within the limit was refused: %+v", i+1, o.Error)
		}
	}
	for i, cs := range []*mcp.ClientSession{b, a, b} {
		o := callAs(t, cs, "metric_definitions", `{}`)
		if o.Error == nil || o.Error.Code != reports.CodeRateLimited || !strings.Contains(o.Error.Rule, "try again in") {
			t.Fatalf("call %d over the limit: %+v, want rate_limited", i+4, o.Error)
		}
	}
	person.Store("bo@floor.example")
	if o := callAs(t, b, "sales", sales); o.Error != nil {
		t.Errorf("another person was held back: %+v", o.Error)
	}
	var counted, refused int
	err := db.Conn(t).QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE outcome IS DISTINCT FROM 'rate_limited'),
		count(*) FILTER (WHERE outcome = 'rate_limited') FROM plumbline.request_log WHERE person = 'ana@floor.example'`).Scan(&counted, &refused)
	if err != nil || counted != 3 || refused != 3 {
		t.Errorf("the log holds %d counted and %d refused calls of ana, want 3 and 3 (%v)", counted, refused, err)
	}
}

// The wait is until enough of the person's calls leave the minute.
func TestRetryAfter(t *testing.T) {
	db := pgtest.NewDB(t)
	st := db.Store(t)
	_, err := db.Conn(t).Exec(context.Background(), `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at)
		VALUES ('old', 'ana', 'c', 'sales', '{}', now() - interval '50 seconds'),
		       ('new', 'ana', 'c', 'sales', '{}', now() - interval '10 seconds'),
		       ('this', 'ana', 'c', 'sales', '{}', now()),
		       ('gone', 'ana', 'c', 'sales', '{}', now() - interval '61 seconds')`)
	if err != nil {
		t.Fatal(err)
	}
	l := limits.New(st, &limits.Options{PerMinute: 2, Role: pgtest.Roles.Logger})
	wait, err := l.Allow(context.Background(), reports.Caller{Person: "ana"})
	if err != nil || wait < 8*time.Second || wait > 11*time.Second {
		t.Errorf("three calls in the minute, two allowed: wait %v (%v), want about 10s, until the oldest leaves", wait, err)
	}
	l = limits.New(st, &limits.Options{PerMinute: 1, Role: pgtest.Roles.Logger})
	if wait, _ := l.Allow(context.Background(), reports.Caller{Person: "ana"}); wait < 48*time.Second || wait > 51*time.Second {
		t.Errorf("three calls in the minute, one allowed: wait %v, want about 50s, until the second oldest leaves", wait)
	}
	if wait, err := l.Allow(context.Background(), reports.Caller{Person: "nobody"}); wait != 0 || err != nil {
		t.Errorf("a person with no calls: wait %v, %v", wait, err)
	}
}

// BenchmarkAllow is the limit's cost per call for a person at the limit:
// one indexed count over their last minute in the request log.
func BenchmarkAllow(b *testing.B) {
	db := pgtest.NewDB(b)
	st := db.Store(b)
	_, err := db.Conn(b).Exec(context.Background(), `INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments)
		SELECT 'r' || i, CASE WHEN i <= 60 THEN 'ana' ELSE 'p' || i END, 'c', 'sales', '{}' FROM generate_series(1, 10000) i`)
	if err != nil {
		b.Fatal(err)
	}
	l := limits.New(st, &limits.Options{PerMinute: 60, Role: pgtest.Roles.Logger})
	ana := reports.Caller{Person: "ana"}
	for b.Loop() {
		if wait, err := l.Allow(context.Background(), ana); wait != 0 || err != nil {
			b.Fatal(wait, err)
		}
	}
}
