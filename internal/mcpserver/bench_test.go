package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/bench"
	"plumbline/internal/mcpserver"
	"plumbline/internal/query"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// BenchmarkSalesByTeam4Weeks runs one representative call, submitted sales
// and close rate per team over the last four whole weeks on the floor, eight
// ways side by side: the whole MCP call over Streamable HTTP and in memory,
// in memory without the request log, over HTTP from a bare HTTP client (the
// server's side alone, for its allocations) answered directly and through
// the go-sdk, the same from the least server that logs a call before it
// answers it, the same SQL run directly with pgx, and the store's round
// trip for it (its transaction, settings and coverage read). Those posted
// as bytes, and pgx's, report the processor time a call took, here and in
// the database.
func BenchmarkSalesByTeam4Weeks(b *testing.B) {
	// No answer is kept, so that every call computes its answer, as
	// plumbline-bench measures them.
	f := newFloorWith(b, func(o *reports.Options) { o.Cache = reports.NewAnswerCache(0) })
	ctx := context.Background()
	thisWeek := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	start, end := thisWeek.AddDate(0, 0, -28), thisWeek.AddDate(0, 0, -1)
	args := fmt.Sprintf(`{"who":{"floor":true},"period":{"start":%q,"end":%q},"group_by":"team","metrics":["submitted_sales","close_rate"]}`,
		dateOf(start), dateOf(end))

	ts := httptest.NewServer(mcpserver.HTTPHandler(f.server))
	defer ts.Close()
	overHTTP, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer overHTTP.Close()
	unrecorded := &floor{server: mcpserver.New(reports.New(f.engine.Catalog(), f.store,
		&reports.Options{Now: func() time.Time { return f.db.Now }, Logger: slog.New(slog.DiscardHandler),
			Cache: reports.NewAnswerCache(0)}), nil)}
	for name, cs := range map[string]*mcp.ClientSession{"mcp_http": overHTTP, "mcp_inmemory": f.client(b),
		"mcp_inmemory_unrecorded": unrecorded.client(b)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(args)})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}

	cat := f.engine.Catalog()
	submitted, _ := cat.Metric("submitted_sales")
	closeRate, _ := cat.Metric("close_rate")
	plan := &ask.Plan{Catalog: cat, Metrics: []*catalog.Metric{submitted, closeRate},
		Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: ask.Period{Start: start, End: end}, GroupBy: "team", Limit: 51}
	stmt, sqlArgs, err := query.Build(plan)
	if err != nil {
		b.Fatal(err)
	}
	// As someone who sees the whole floor, as the store's transactions say.
	cfg, err := pgxpool.ParseConfig(f.db.DSN)
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams[query.DefaultReachSetting] = ask.SeesFloor
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	clock := bench.NewClock(ctx, pool)
	if clock == nil {
		b.Fatal("the database's processes cannot be read on this machine")
	}

	// The server's side alone: the same call posted as bytes by a bare
	// HTTP client, so that allocations per call are the server's (and
	// net/http's few for the client).
	// The same through the go-sdk's own handling of every request, for what
	// answering a tool call directly saves.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sales","arguments":` + args + `}}`
	for _, side := range []struct {
		name   string
		direct bool
	}{{"mcp_http_server_side", true}, {"mcp_http_server_side_sdk", false}} {
		b.Run(side.name, func(b *testing.B) {
			mcpserver.SetDirect(side.direct)
			defer mcpserver.SetDirect(true)
			processor(b, clock, func() { serverSide(b, ts.URL, body, `"close_rate"`) })
		})
	}
	// The least any server pays for this call: the same bytes, a log row
	// committed before the same SQL runs, and its rows as JSON.
	least := leastServer(b, pool, stmt, sqlArgs)
	defer least.Close()
	b.Run("least_http_server_side", func(b *testing.B) {
		processor(b, clock, func() { serverSide(b, least.URL, body, `"rows":[[`) })
	})

	b.Run("pgx_sql", func(b *testing.B) {
		processor(b, clock, func() {
			for b.Loop() {
				rows, err := pool.Query(ctx, stmt, sqlArgs...)
				if err != nil {
					b.Fatal(err)
				}
				got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
				if err != nil || len(got) < 3 {
					b.Fatal(err, got)
				}
			}
		})
	})
	b.Run("store_run", func(b *testing.B) {
		for b.Loop() {
			got, err := f.store.Run(ctx, plan)
			if err != nil || len(got[0].Rows) < 3 {
				b.Fatal(err, got)
			}
		}
	})
}

// processor runs loop, which makes b.N calls, and reports the processor
// time a call took in this process (the server's side and its client) and
// in the database's processes.
func processor(b *testing.B, clock *bench.Clock, loop func()) {
	self, database := clock.Read()
	loop()
	self2, database2 := clock.Read()
	b.ReportMetric(float64((self2-self).Microseconds())/float64(b.N), "self-µs/op")
	b.ReportMetric(float64((database2-database).Microseconds())/float64(b.N), "db-µs/op")
}

// leastServer answers a tools/call as little as a server can that logs
// every call before it runs it: it decodes the body, commits a row of the
// tool and its arguments, runs stmt and writes its rows as JSON. It has no
// sign-in, no governance and no text for the model.
func leastServer(b *testing.B, pool *pgxpool.Pool, stmt string, args []any) *httptest.Server {
	if _, err := pool.Exec(context.Background(), `CREATE TABLE least_log (
		at timestamptz NOT NULL DEFAULT now(), tool text NOT NULL, arguments jsonb NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Params struct {
				Name      string
				Arguments json.RawMessage
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := pool.Exec(r.Context(), `INSERT INTO least_log (tool, arguments) VALUES ($1, $2)`,
			req.Params.Name, req.Params.Arguments); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rows, err := pool.Query(r.Context(), stmt, args...)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		values, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"rows": values}})
	}))
}

// serverSide posts body to the server at url as a bare HTTP client would,
// once a loop, and fails on anything but an answer holding want.
func serverSide(b *testing.B, url, body, want string) {
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(got, []byte(want)) {
			b.Fatalf("%s: %.300s", resp.Status, got)
		}
	}
}

// BenchmarkResponseBytes measures, per tool, how many bytes an answer's
// text block and structured content take and how many of them are figures,
// in full, with compact, and on a second call that passes
// known_definitions. plumbline-bench --bytes measures the same over HTTP,
// with the wire.
func BenchmarkResponseBytes(b *testing.B) {
	f := newFloor(b)
	cs := f.client(b)
	calls := []struct{ tool, args string }{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team"`},
		{"hours", `{"who":{"agent":"a005"},"period":{"named":"last_week"},"group_by":"day"`},
		{"quality", `{"who":{"team":"hawks"},"period":{"named":"last_28_days"},"group_by":"week"`},
		{"team_day", `{"who":{"team":"hawks"}`},
		{"team_weeks", `{"who":{"team":"hawks"}`},
		{"league", `{"period":{"named":"last_week"}`},
		{"roster", `{"who":{"team":"hawks"}`},
		{"find_people", `{"query":"maria"`},
		{"freshness", `{`},
		{"metric_definitions", `{`},
		{"health", `{`},
	}
	for _, c := range calls {
		takesCompact := c.tool != "roster" && c.tool != "find_people" && c.tool != "freshness" && c.tool != "metric_definitions" && c.tool != "health"
		first, _ := call(b, cs, c.tool, c.args+"}")
		modes := [][2]string{{"full", c.args + "}"}}
		if takesCompact {
			version := first["catalog_version"].(string)
			modes = append(modes, [2]string{"compact", c.args + `,"compact":true}`},
				[2]string{"known_definitions", c.args + `,"known_definitions":"` + version + `"}`})
		}
		for _, mode := range modes {
			b.Run(c.tool+"/"+mode[0], func(b *testing.B) {
				var text string
				var structured []byte
				for b.Loop() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(mode[1])})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
					text = res.Content[0].(*mcp.TextContent).Text
					structured, _ = json.Marshal(res.StructuredContent)
				}
				figures := bench.TextFigureBytes(text, structured)
				b.ReportMetric(float64(len(text)), "text_B")
				b.ReportMetric(100*float64(figures)/float64(len(text)), "text_figures_%")
				b.ReportMetric(float64(len(structured)), "structured_B")
				b.ReportMetric(100*float64(bench.FigureBytes(string(structured)))/float64(len(structured)), "structured_figures_%")
			})
		}
	}
}
