package bench_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"plumbline/catalog"
	"plumbline/internal/bench"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
	"plumbline/internal/store"
	"plumbline/reports"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A short bench over a real server measures every asked tool at every level,
// with the report SQL captured and replayed, and draws its charts.
func TestRun(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	cat, _ := catalog.Demo()
	st, err := store.Open(ctx, db.DSN, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	server := func(context.Context) (string, int, func() error, error) {
		ts := httptest.NewServer(mcpserver.HTTPHandler(mcpserver.New(reports.New(cat, st, nil), nil)))
		return ts.URL + "/mcp", os.Getpid(), func() error { ts.Close(); return nil }, nil
	}
	res, err := bench.Run(ctx, bench.Options{DSN: db.DSN, Server: server, Calls: 6, Levels: []int{1, 3},
		Tools: []string{"sales", "team_day", "health"}})
	if err != nil {
		t.Fatal(err)
	}
	statements := map[string]int{"sales": 1, "team_day": 3, "health": 0}
	if len(res.Tools) != 3 {
		t.Fatalf("%d tools measured", len(res.Tools))
	}
	for _, tr := range res.Tools {
		if tr.Statements != statements[tr.Tool] {
			t.Errorf("%s runs %d report statements, want %d", tr.Tool, tr.Statements, statements[tr.Tool])
		}
		if len(tr.MCP) != 2 || tr.MCP[1].Concurrency != 3 || (tr.Statements > 0) != (len(tr.SQL) == 2) {
			t.Errorf("%s: %d MCP and %d SQL measurements", tr.Tool, len(tr.MCP), len(tr.SQL))
		}
		for _, m := range append(tr.MCP, tr.SQL...) {
			if m.Errors > 0 || m.Calls != 6 || m.P50 <= 0 || m.P99 < m.P50 || m.PerSecond <= 0 {
				t.Errorf("%s: implausible measurement %+v", tr.Tool, m)
			}
		}
		if tr.Bytes == 0 || (tr.Tool != "health") != (tr.FigureBytes > 0) || tr.FigureBytes >= tr.Bytes {
			t.Errorf("%s: %d bytes of which %d figures", tr.Tool, tr.Bytes, tr.FigureBytes)
		}
	}
	if res.ServerRSS.PeakKiB == 0 {
		t.Error("no server memory was read")
	}
	dir := t.TempDir()
	files, err := bench.Charts(res, dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("charts: %v %v", files, err)
	}
	for _, f := range files {
		if info, err := os.Stat(f); err != nil || info.Size() < 1000 || filepath.Ext(f) != ".png" {
			t.Errorf("chart %s: %v", f, err)
		}
	}
}
