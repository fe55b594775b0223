package mcpserver_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/internal/servetest"
	"plumbline/reports"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// floor is a test's demo floor database with plumbline in front of it.
type floor struct {
	db     *pgtest.DB
	sql    *pgx.Conn // for expected figures, computed independently
	store  *pgstore.Store
	engine *reports.Engine
	server *mcp.Server
	log    *reqlog.Log // the request log; Flush it before reading outcomes
}

func newFloor(t testing.TB) *floor { return newFloorWith(t, nil) }

// newFloorAt is the demo floor generated up to another moment, answered as
// of that moment.
func newFloorAt(t testing.TB, now time.Time) *floor {
	return newFloorOf(t, pgtest.NewDBAt(t, now), nil)
}

// newFloorWith lets a test adjust the engine's options.
func newFloorWith(t testing.TB, adjust func(*reports.Options)) *floor {
	return newFloorOf(t, pgtest.NewDB(t), adjust)
}

func newFloorOf(t testing.TB, db *pgtest.DB, adjust func(*reports.Options)) *floor {
	t.Helper()
	// Signed in as plumbline's login with the real grants, reports running
	// as the reader and every call on record, as in production.
	s := servetest.New(t, db, &servetest.Options{Engine: func(o *reports.Options) {
		o.Redact = reqlog.Redactor([]byte("a test secret of some length"))
		if adjust != nil {
			adjust(o)
		}
	}})
	return &floor{db: db, sql: db.Conn(t), store: s.Store, engine: s.Engine, server: s.Server, log: s.Log}
}

// client connects a go-sdk client over in-memory transports.
func (f *floor) client(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// answer is a tool result's structured content.
type answer map[string]any

func call(t testing.TB, cs *mcp.ClientSession, tool, args string) (answer, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	checkText(t, catalogOf(t), res.Content[0].(*mcp.TextContent).Text, a)
	return a, res.IsError
}

// catalogOf is the catalogue the test floors answer from.
func catalogOf(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// report calls a tool that must answer with figures.
func report(t testing.TB, cs *mcp.ClientSession, tool, args string) answer {
	t.Helper()
	a, isError := call(t, cs, tool, args)
	if isError || a["rows"] == nil {
		t.Fatalf("%s %s: no figures: %v", tool, args, a)
	}
	return a
}

// column returns a column's values by the row's first cell.
func (a answer) column(t testing.TB, name string) map[string]any {
	t.Helper()
	idx := -1
	for i, c := range a["columns"].([]any) {
		if c == name {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no column %s in %v", name, a["columns"])
	}
	_, grouped := a["request"].(map[string]any)["group_by"]
	out := map[string]any{}
	for _, r := range a["rows"].([]any) {
		row := r.([]any)
		key := "total"
		if grouped {
			key, _ = row[0].(string)
		}
		out[key] = row[idx]
	}
	return out
}

// total returns the single total row's value of a column.
func (a answer) total(t testing.TB, name string) any {
	t.Helper()
	rows := a["rows"].([]any)
	if len(rows) != 1 {
		t.Fatalf("want one total row, got %d", len(rows))
	}
	return a.column(t, name)["total"]
}

// sqlFloats runs an expected-figure query that returns one number per key.
func (f *floor) sqlFloats(t testing.TB, query string, args ...any) map[string]float64 {
	t.Helper()
	rows, err := f.sql.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	var key string
	var v float64
	_, err = pgx.ForEachRow(rows, []any{&key, &v}, func() error { out[key] = v; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9+1e-5*math.Abs(b) }
