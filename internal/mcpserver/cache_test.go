package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/ask"
)

var someone = ask.Caller{Person: "someone", Client: "test"}

func callEngine(t *testing.T, e *reports.Engine, tool, args string) (*reports.Answer, map[string]any) {
	t.Helper()
	a := e.Call(context.Background(), someone, tool, json.RawMessage(args))
	b, err := json.Marshal(a.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	return a, body
}

// A settled answer is kept and served again, equal to a fresh one but for
// its request_id, on record as cached; an answer with partial figures is
// not kept; a moved load watermark makes a new answer.
func TestSettledAnswersAreKept(t *testing.T) {
	f := newFloorWith(t, func(o *reports.Options) { o.CoverageTTL = time.Millisecond })
	ctx := context.Background()
	weeks := `{"who":{"team":"hawks"},"weeks":3}`
	first, a := callEngine(t, f.engine, "team_weeks", weeks)
	second, b := callEngine(t, f.engine, "team_weeks", weeks)
	if first.Cached || !second.Cached || a["request_id"] == b["request_id"] {
		t.Fatalf("cached %v then %v, request ids %v and %v; want the second kept, with its own id", first.Cached, second.Cached, a["request_id"], b["request_id"])
	}
	delete(a, "request_id")
	delete(b, "request_id")
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("the kept answer differs from the fresh one:\n%s\n%s", ja, jb)
	}
	f.log.Flush(ctx) // outcomes are written after their calls
	var outcome string
	if err := f.sql.QueryRow(ctx, `SELECT outcome FROM plumbline.calls WHERE request_id = $1`, second.RequestID).Scan(&outcome); err != nil || outcome != "cached" {
		t.Errorf("the kept answer is on record with outcome %q (%v), want cached", outcome, err)
	}
	today := `{"who":{"floor":true},"period":{"named":"today"}}`
	callEngine(t, f.engine, "sales", today)
	if again, _ := callEngine(t, f.engine, "sales", today); again.Cached {
		t.Error("a partial answer was kept")
	}

	// The nightly build loads another day: the kept answer no longer says
	// how far the data runs, and a new one is made.
	if _, err := f.sql.Exec(ctx, `INSERT INTO metrics.load_runs (relation, covers_day, started_at, finished_at, row_count)
		VALUES ('metrics.agent_sales_daily', '2026-11-18', now(), now(), 0)`); err != nil {
		t.Fatal(err)
	}
	var fresh *reports.Answer
	var body map[string]any
	for i := 0; i < 100; i++ {
		if fresh, body = callEngine(t, f.engine, "team_weeks", weeks); !fresh.Cached {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fresh.Cached {
		t.Fatal("after the watermark moved, the kept answer is still served")
	}
	dt := body["data_through"].(map[string]any)["metrics.agent_sales_daily"].(map[string]any)
	if dt["runs_to"] != "2026-11-18" {
		t.Errorf("the new answer says sales run to %v, want 2026-11-18", dt["runs_to"])
	}
}

// Engines sharing a cache keep their answers apart by catalogue version:
// a new catalogue answers with its own definitions.
func TestANewCatalogueMakesNewAnswers(t *testing.T) {
	f := newFloor(t)
	dir := t.TempDir()
	files, _ := filepath.Glob("../../catalog/demo/*.yaml")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.ReplaceAll(string(b), "Applications submitted in the CRM, as counted by the nightly build.",
			"Applications submitted in the CRM, counted once a night."))
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changed, err := catalog.LoadDir(dir)
	if err != nil || changed.Version() == f.engine.Catalog().Version() {
		t.Fatalf("the changed catalogue: %v, version %s", err, changed.Version())
	}
	shared := reports.NewAnswerCache(reports.DefaultCacheBytes)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := func() time.Time { return f.db.Now }
	before := reports.New(f.engine.Catalog(), f.store, &reports.Options{Now: now, Logger: quiet, Cache: shared})
	after := reports.New(changed, f.store, &reports.Options{Now: now, Logger: quiet, Cache: shared})
	args := `{"who":{"team":"hawks"},"weeks":2}`
	callEngine(t, before, "team_weeks", args)
	a, body := callEngine(t, after, "team_weeks", args)
	def := body["metrics"].(map[string]any)["submitted_sales"].(map[string]any)["definition"]
	if a.Cached || def != "Applications submitted in the CRM, counted once a night." {
		t.Errorf("a new catalogue got a kept answer (%v) with the old definition %q", a.Cached, def)
	}
	if s := shared.Stats(); s.Entries != 2 || s.Bytes > s.MaxBytes {
		t.Errorf("the shared cache holds %+v; want both answers within its bound", s)
	}
}

// The cache holds no more than its bound, dropping the least recently used.
func TestTheAnswerCacheIsBounded(t *testing.T) {
	f := newFloor(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	small := reports.NewAnswerCache(64 << 10)
	e := reports.New(f.engine.Catalog(), f.store, &reports.Options{Now: func() time.Time { return f.db.Now }, Logger: quiet, Cache: small})
	for _, team := range []string{"hawks", "falcons", "ospreys", "kestrels", "harriers", "retention"} {
		for weeks := 1; weeks <= 8; weeks++ {
			callEngine(t, e, "team_weeks", fmt.Sprintf(`{"who":{"team":%q},"weeks":%d}`, team, weeks))
		}
	}
	s := small.Stats()
	if s.Bytes > s.MaxBytes || s.Evictions == 0 || s.Entries == 0 {
		t.Errorf("after 48 answers in a 64 KiB cache: %+v; want it full, within bound, having dropped some", s)
	}
	t.Logf("cache after 48 team_weeks answers: %d entries, %d bytes of %d, %d evicted", s.Entries, s.Bytes, s.MaxBytes, s.Evictions)
}
