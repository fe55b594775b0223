package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/grants"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
	"plumbline/internal/servetest"
	"plumbline/reports/ask"
	sqlfiles "plumbline/sql"
)

// doorClient serves a test's floor with the analyst's door open, as serve
// --analyst-db does (the door signed in as the agent login, statements run
// as the analyst), and connects a client that calls as a contained agent's
// service.
func doorClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	gs, err := grants.LoadFor(sqlfiles.AnalystGrants(), grants.ToAnalyst)
	if err != nil {
		t.Fatal(err)
	}
	served := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, f *servetest.Floor) {
		door, err := analyst.Open(ctx, db.AgentDSN, f.Store, gs, &analyst.Options{Role: pgtest.Roles.Analyst, Logger: pgtest.Roles.Logger,
			PerMinute: -1, TimeZone: f.Store.Catalog().Zone().String(), Reports: f.Engine.Tools(), Log: servetest.Quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(door.Close)
		o.Analyst = door
		caller := ask.Caller{Person: "service:floor-analyst", Client: "test", Tools: append(f.Engine.ToolNames(), analyst.ToolName)}
		o.Caller = func(*mcp.CallToolRequest) ask.Caller { return caller }
	}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := served.Server.Connect(ctx, st, nil)
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

// page is a page of the door's answer.
type page struct {
	Columns []string
	Types   []string `json:"column_types"`
	Rows    [][]any
	Notes   []string
	Error   *analyst.Refusal
}

func sqlCall(t *testing.T, cs *mcp.ClientSession, statement string) page {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"sql": statement})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: analyst.ToolName, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	var p page
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("the answer %s: %v", b, err)
	}
	var text page
	if json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &text) != nil || mustJSON(text) != mustJSON(p) {
		t.Errorf("the text block is not the structured answer: %.300s", res.Content[0].(*mcp.TextContent).Text)
	}
	return p
}

// The backstop reaches the analyst's door too, and says so: a run of seven
// digits or more in a text value (a text column, a string inside JSON, an
// element of a text array, a column's name) is cut to its last four, and a
// note names the columns cut and says those values are not as the database
// holds them. A value that is not text (a number, an interval, a
// timestamp) is never cut, whatever digits it holds. A page with
// nothing to cut carries no such note.
func TestTheDoorSaysWhenItScrubbed(t *testing.T) {
	cs := doorClient(t)
	p := sqlCall(t, cs, `SELECT '12345678'::text AS t, interval '-10000000 months' AS i, interval '9999999 hours' AS h,
		5551234567::int8 AS n, 1234567.5::numeric AS d, '{"phone": "5551234567", "n": 12345678}'::jsonb AS j,
		ARRAY['1234567', 'x']::text[] AS a, '2026-11-18 12:34:56.1234567'::timestamp AS ts, 'x'::text AS "code 9876543"`)
	if p.Error != nil {
		t.Fatalf("refused: %+v", p.Error)
	}
	row := map[string]any{}
	for i, c := range p.Columns {
		row[c] = p.Rows[0][i]
	}
	want := map[string]any{"t": "5678", "n": 5551234567.0, "d": 1234567.5, "j": map[string]any{"phone": "4567", "n": 12345678.0},
		"a": []any{"4567", "x"}, "code 6543": "x"}
	for c, v := range want {
		if b, _ := json.Marshal(row[c]); string(b) != mustJSON(v) {
			t.Errorf("column %s came through as %s, want %s", c, b, mustJSON(v))
		}
	}
	for c, digits := range map[string]string{"i": "10000000", "h": "9999999"} {
		if v, _ := row[c].(string); !strings.Contains(v, digits) {
			t.Errorf("the interval %s came through as %q", c, v)
		}
	}
	if ts, _ := row["ts"].(string); !strings.HasPrefix(ts, "2026-11-18T12:34:56.123457") {
		t.Errorf("the timestamp came through as %q", ts)
	}
	note := slices.IndexFunc(p.Notes, func(n string) bool { return strings.Contains(n, "last 4") })
	if note < 0 || !strings.Contains(p.Notes[note], "3 values") || !strings.Contains(p.Notes[note], "t, j, a") ||
		!strings.Contains(p.Notes[note], "column names") {
		t.Errorf("the notes do not say what was cut: %q", p.Notes)
	}
	clean := sqlCall(t, cs, `SELECT '123456'::text AS t, 12345678 AS n`)
	if slices.ContainsFunc(clean.Notes, func(n string) bool { return strings.Contains(n, "last 4") }) {
		t.Errorf("a page with nothing to cut says something was: %q", clean.Notes)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
