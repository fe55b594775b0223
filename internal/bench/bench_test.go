package bench_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/internal/bench"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/reports"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// server is plumbline in process, on the database dsn names, with the
// request log and the limit on and no answer cache (every call computed),
// behind the Server-Timing header.
func server(t *testing.T) bench.Server {
	return func(ctx context.Context, dsn string) (string, int, func() error, error) {
		cat, _ := catalog.Demo()
		st, err := pgstore.Open(ctx, dsn, cat, nil)
		if err != nil {
			return "", 0, nil, err
		}
		rl := reqlog.New(st, &reqlog.Options{PerMinute: 1000, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		engine := reports.New(cat, st, &reports.Options{Now: func() time.Time { return pgtest.Now }, Recorder: rl,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Cache: reports.NewAnswerCache(0)})
		ts := httptest.NewServer(mcpserver.Timed(mcpserver.HTTPHandler(mcpserver.New(engine, nil))))
		return ts.URL + "/mcp", os.Getpid(), func() error { ts.Close(); rl.Close(); st.Close(); return nil }, nil
	}
}

// A short bench over a real server measures every asked tool in paired
// rounds and at every level, with the report SQL captured and replayed, the
// server's own time read from its answers and its round trips to the
// database counted, and draws its charts. A report call makes two round
// trips (its admission, then its report), a tool that reads no report one.
func TestRun(t *testing.T) {
	db := pgtest.NewDB(t)
	res, err := bench.Run(context.Background(), bench.Options{DSN: db.DSN, ServerDSN: db.DSN,
		Servers: []bench.NamedServer{{Name: "plumbline", Start: server(t)}, {Name: "again", Start: server(t)}},
		Rounds:  5, Calls: 6, TripCalls: 3, Levels: []int{1, 3}, Tools: []string{"sales", "team_day", "metric_definitions"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ statements, trips int }{"sales": {1, 2}, "team_day": {3, 2}, "metric_definitions": {0, 1}}
	if len(res.Tools) != 3 {
		t.Fatalf("%d tools measured", len(res.Tools))
	}
	for _, tr := range res.Tools {
		w := want[tr.Tool]
		if tr.Statements != w.statements {
			t.Errorf("%s runs %d report statements, want %d", tr.Tool, tr.Statements, w.statements)
		}
		if (tr.Statements > 0) != (tr.RawP50 > 0 && len(tr.RawRate) == 2) {
			t.Errorf("%s: raw p50 %v and %d raw levels", tr.Tool, tr.RawP50, len(tr.RawRate))
		}
		if len(tr.Servers) != 2 {
			t.Fatalf("%s: %d servers measured", tr.Tool, len(tr.Servers))
		}
		for _, sr := range tr.Servers {
			if sr.RoundTrips != float64(w.trips) {
				t.Errorf("%s on %s: %v round trips per call, want %d", tr.Tool, sr.Server, sr.RoundTrips, w.trips)
			}
			if sr.P50 <= 0 || sr.ServerP50 == nil || *sr.ServerP50 <= 0 || *sr.ServerP50 > sr.P50 || len(sr.Rate) != 2 || sr.Rate[1].Concurrency != 3 {
				t.Errorf("%s on %s: implausible measurement %+v", tr.Tool, sr.Server, sr)
			}
			for _, m := range append(sr.Rate, tr.RawRate...) {
				if m.Errors > 0 || m.Calls != 6 || m.P50 <= 0 || m.P99 < m.P50 || m.PerSecond <= 0 {
					t.Errorf("%s: implausible measurement %+v", tr.Tool, m)
				}
				// Six calls may take less than a clock tick of a
				// process: the processor time is there, not negative.
				if c := m.CPU; c == nil || c.Client < 0 || c.Server < 0 || c.Database < 0 {
					t.Errorf("%s: processor time per call %+v", tr.Tool, c)
				}
			}
		}
		for _, m := range tr.RawRate {
			if m.CPU != nil && m.CPU.Server != 0 {
				t.Errorf("%s: the raw SQL used a server's processor time %+v", tr.Tool, m.CPU)
			}
		}
		if tr.Bytes == 0 || tr.FigureBytes >= tr.Bytes {
			t.Errorf("%s: %d bytes of which %d figures", tr.Tool, tr.Bytes, tr.FigureBytes)
		}
	}
	if d := res.Durability; d == nil || d.Rounds != 5 || d.Sync <= 0 || d.Lazy <= 0 {
		t.Errorf("the log's commit: %+v", d)
	}
	if len(res.Memory) != 2 {
		t.Errorf("server memory: %+v", res.Memory)
	}
	// What was the process's own and what pages of files were each, at
	// some moment, part of the resident memory, whose peak is at least
	// either.
	for _, m := range res.Memory {
		if m.PeakKiB == 0 || m.AnonPeakKiB <= 0 || m.FilePeakKiB <= 0 || m.AnonPeakKiB > m.PeakKiB || m.FilePeakKiB > m.PeakKiB {
			t.Errorf("server memory: %+v", m)
		}
	}
	dir := t.TempDir()
	files, err := bench.Charts(res, dir)
	if err != nil || len(files) != 2 {
		t.Fatalf("charts: %v %v", files, err)
	}
	// Every measured figure of a tool that runs a report is a bar: the raw
	// SQL's latency first, then each server's.
	latency, added := make([][]float64, len(res.Servers)+1), make([][]float64, len(res.Servers))
	for _, tr := range res.Tools {
		if tr.Statements == 0 {
			continue
		}
		latency[0] = append(latency[0], tr.RawP50)
		for i, s := range tr.Servers {
			latency[i+1] = append(latency[i+1], s.P50)
			added[i] = append(added[i], s.Added)
		}
	}
	checkChart(t, files[0], latency)
	checkChart(t, files[1], added)
}

// The server's own time is read from plumbline's entry of a Server-Timing
// header, among others or alone.
func TestServerTime(t *testing.T) {
	for header, want := range map[string]float64{"plumbline;dur=1.234": 1.234, `db;dur=5, plumbline;desc="x";dur=0.5`: 0.5} {
		if got, ok := bench.ServerTime(header); !ok || got != want {
			t.Errorf("ServerTime(%q) = %v, %v; want %v", header, got, ok, want)
		}
	}
	if _, ok := bench.ServerTime("other;dur=3"); ok {
		t.Error("a header without plumbline's entry gave a time")
	}
}

// Every stage a server names is read, in the header's order; an entry
// without a duration is passed over.
func TestServerTimes(t *testing.T) {
	got := bench.ServerTimes(`plumbline;dur=2.5, auth;dur=0.010, cache;desc="hit", report_sql;desc="sql";dur=1.25`)
	want := []bench.Stage{{Name: "plumbline", P50: 2.5}, {Name: "auth", P50: 0.01}, {Name: "report_sql", P50: 1.25}}
	if !slices.Equal(got, want) {
		t.Errorf("ServerTimes = %v; want %v", got, want)
	}
}
