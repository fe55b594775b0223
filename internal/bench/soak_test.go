package bench_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/catalog"
	"plumbline/internal/bench"
	"plumbline/internal/pgtest"
	"plumbline/reports"
)

// flat is n rows a soak that holds steady would print.
func flat(n int) []*bench.SoakRow {
	var rows []*bench.SoakRow
	for i := range n {
		rows = append(rows, &bench.SoakRow{Minute: i + 1, Calls: 6000, P50: 4, P99: 20, PerSecond: 100, RSSKiB: 40 * 1024,
			Goroutines: 200, HeapBytes: 8 << 20, Threads: 10, Connections: 9, LogRows: 1_000_000 + int64(i)*6000, LogBytes: 300 << 20})
	}
	return rows
}

// The verdict compares the median of each figure over the first ten rows
// with that over the last ten: within 10% passes, beyond it fails naming
// the figure and which way it moved; one disturbed minute at an end does
// not decide it; the log growing does not fail it; a failed answer does.
func TestJudge(t *testing.T) {
	v := bench.Judge(flat(62), 0)
	if !v.Pass || v.Window != 10 || v.First != [2]int{1, 10} || v.Last != [2]int{53, 62} || len(v.Failed) != 0 {
		t.Errorf("a flat hour: %+v", v)
	}
	if log := v.Others[4]; log.Name != "log rows" || log.First != 1_000_000+4.5*6000 || log.Last != 1_000_000+56.5*6000 {
		t.Errorf("the log's rows at each end: %+v, want the median of minutes 1-10 and 53-62", log)
	}
	for _, c := range []struct {
		name   string
		change func(r *bench.SoakRow)
		failed string // "" passes
	}{
		{"RSS up by 15%", func(r *bench.SoakRow) { r.RSSKiB = 46 * 1024 }, "RSS MiB grew +15.0% (40.00 → 46.00)"},
		{"RSS up by exactly 10%", func(r *bench.SoakRow) { r.RSSKiB = 44 * 1024 }, ""},
		{"p99 up by a half", func(r *bench.SoakRow) { r.P99 = 30 }, "p99 ms grew +50.0% (20.00 → 30.00)"},
		{"p50 down by a quarter", func(r *bench.SoakRow) { r.P50 = 3 }, "p50 ms fell -25.0% (4.00 → 3.00)"},
		{"calls/s down by 12%", func(r *bench.SoakRow) { r.PerSecond = 88 }, "calls/s fell -12.0% (100.00 → 88.00)"},
		{"goroutines doubled, not judged", func(r *bench.SoakRow) { r.Goroutines = 400 }, ""},
		{"a failed answer", func(r *bench.SoakRow) { r.Errors = 1 }, "10 answers were not what they must be"},
	} {
		rows := flat(62)
		for _, r := range rows[52:] {
			c.change(r)
		}
		v := bench.Judge(rows, 0)
		if c.failed == "" && (!v.Pass || len(v.Failed) != 0) {
			t.Errorf("%s: failed %q", c.name, v.Failed)
		}
		if c.failed != "" && (v.Pass || !slices.Equal(v.Failed, []string{c.failed})) {
			t.Errorf("%s: pass %v, failed %q; want %q", c.name, v.Pass, v.Failed, c.failed)
		}
	}
	// Four disturbed minutes of ten at the end move no median, six do.
	rows := flat(62)
	for _, r := range rows[52:56] {
		r.P99 = 200
	}
	if v := bench.Judge(rows, 0); !v.Pass {
		t.Errorf("four disturbed minutes failed the verdict: %q", v.Failed)
	}
	for _, r := range rows[56:58] {
		r.P99 = 200
	}
	if v := bench.Judge(rows, 0); v.Pass || !strings.HasPrefix(v.Failed[0], "p99 ms grew") {
		t.Errorf("six disturbed minutes of ten: %+v", v)
	}
	// A short soak compares its halves; one row cannot be judged.
	if v := bench.Judge(flat(7), 0); !v.Pass || v.Window != 3 || v.First != [2]int{1, 3} || v.Last != [2]int{5, 7} {
		t.Errorf("seven rows: %+v", v)
	}
	if v := bench.Judge(flat(1), 0); v.Pass || v.Window != 0 {
		t.Errorf("one row: %+v", v)
	}
}

// The soak's mix calls every tool, and each report tool in full, compact,
// with known definitions (the catalogue's version), for candidates and
// refused.
func TestSoakMix(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	mix := bench.SoakMix(cat.Version(), pgtest.Now)
	tools := map[string]bool{}
	for _, c := range mix {
		tools[c.Tool] = true
	}
	for _, name := range reports.New(cat, nil, nil).ToolNames() {
		if !tools[name] {
			t.Errorf("the mix never calls %s", name)
		}
	}
	for _, r := range []string{"sales", "hours", "quality"} {
		modes := map[string]bool{}
		for _, c := range mix {
			if c.Tool != r {
				continue
			}
			modes["compact"] = modes["compact"] || strings.Contains(c.Args, `"compact":true`)
			modes["known"] = modes["known"] || strings.Contains(c.Args, `"known_definitions":"`+cat.Version()+`"`)
			modes[c.Want] = true
		}
		for _, m := range []string{"compact", "known", bench.WantOK, bench.WantCandidates, "invalid_argument"} {
			if !modes[m] {
				t.Errorf("the mix never calls %s for %s", r, m)
			}
		}
	}
}

// The request log is filled with the rows asked for, over the days asked
// for and all older than the last minute the limit counts, by every
// person given in turn, with the mix's tools, arguments and outcomes.
func TestSeedLog(t *testing.T) {
	db := pgtest.NewDB(t)
	cat, _ := catalog.Demo()
	mix := bench.SoakMix(cat.Version(), pgtest.Now)
	persons := []string{"service:bench-0", "service:bench-1", "ann@floor.example"}
	pool, err := pgxpool.New(context.Background(), db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// A checkpoint is told from the one before by its place in the WAL.
	var before string
	if err := pool.QueryRow(context.Background(), "SELECT checkpoint_lsn::text FROM pg_control_checkpoint()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := bench.SeedLog(context.Background(), pool, 3000, 30, persons, mix); err != nil {
		t.Fatal(err)
	}
	// Settled as a long-running server's log is: every page vacuumed and
	// marked all-visible, statistics taken, and the fill checkpointed.
	var pages, visible int
	var analyzed, newer bool
	var after string
	if err := pool.QueryRow(context.Background(), `SELECT c.relpages, c.relallvisible, s.last_analyze IS NOT NULL,
		k.checkpoint_lsn::text, k.checkpoint_lsn > $1::pg_lsn
		FROM pg_class c, pg_stat_user_tables s, pg_control_checkpoint() k
		WHERE c.oid = 'plumbline.request_log'::regclass AND s.relid = c.oid`, before).Scan(&pages, &visible, &analyzed, &after, &newer); err != nil {
		t.Fatal(err)
	}
	if pages == 0 || visible != pages || !analyzed || !newer {
		t.Errorf("after the fill: %d of %d pages all-visible, analyzed %v, checkpoint at %v (before the fill %v); want every page, analyzed, a newer checkpoint",
			visible, pages, analyzed, after, before)
	}
	var rows, people, tools, badArgs int
	var oldest, newest time.Time
	var outcomes []string
	err = pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT person), count(DISTINCT tool), min(started_at), max(started_at),
		array_agg(DISTINCT outcome ORDER BY outcome), count(*) FILTER (WHERE jsonb_typeof(arguments) <> 'object')
		FROM plumbline.calls`).Scan(&rows, &people, &tools, &oldest, &newest, &outcomes, &badArgs)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, c := range mix {
		distinct[c.Tool] = true
	}
	if rows != 3000 || people != 3 || tools != len(distinct) || badArgs != 0 {
		t.Errorf("%d rows by %d persons of %d tools (%d without an object of arguments), want 3000 by 3 of %d", rows, people, tools, badArgs, len(distinct))
	}
	if span := newest.Sub(oldest); span < 29*24*time.Hour || span > 30*24*time.Hour || time.Since(newest) < 2*time.Minute {
		t.Errorf("the calls span %v up to %v ago, want 30 days up to 2 minutes ago", span, time.Since(newest))
	}
	if !slices.Equal(outcomes, []string{"cached", "candidates", "invalid_argument", "ok", "rate_limited"}) {
		t.Errorf("outcomes %q", outcomes)
	}
	// Ids in time order, as the server makes them: ordered by id, the
	// calls are ordered by when they started.
	var unordered int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT started_at,
		lag(started_at) OVER (ORDER BY request_id) AS before FROM plumbline.request_log) x WHERE started_at < before`).Scan(&unordered); err != nil {
		t.Fatal(err)
	}
	if unordered != 0 {
		t.Errorf("%d calls sort by id before a call that started later", unordered)
	}
}
