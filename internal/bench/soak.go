package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the soak: many clients calling a real server over a mix of
// every tool and mode for a long time, against a request log that starts
// large, with a row a minute of latency, throughput and what the server
// holds (memory, goroutines, threads, database connections), and a verdict
// on whether anything but the log grew.

// SoakCall is one call of the soak's mix and what its answer must be.
type SoakCall struct {
	Label string `json:"label"`
	Call
	// Want is WantOK, WantCandidates or the code of the refusal.
	Want string `json:"want"`
}

// What a soak call's answer must be, beside a refusal's code.
const (
	WantOK         = "ok"
	WantCandidates = "candidates"
)

// SoakMix is the soak's mix: every tool, the report tools in full, compact,
// with definitions by reference (the catalogue's version) and asked for a
// name that matches several people (candidates), the canned reports in
// their modes, and refusals of bad input.
func SoakMix(catalogVersion string, now time.Time) []SoakCall {
	known := `"known_definitions":"` + catalogVersion + `"`
	floorWeek := `"who":{"floor":true},"period":{"named":"last_week"}`
	var mix []SoakCall
	add := func(label, tool, args, want string) {
		mix = append(mix, SoakCall{Label: label, Call: Call{Tool: tool, Args: args}, Want: want})
	}
	for _, c := range Calls(now) {
		add(c.Tool, c.Tool, c.Args, WantOK)
	}
	for _, tool := range []string{"sales", "hours", "quality"} {
		add(tool+" compact", tool, `{`+floorWeek+`,"group_by":"team","compact":true}`, WantOK)
		add(tool+" known_definitions", tool, `{"who":{"team":"hawks"},"period":{"named":"last_28_days"},"group_by":"week",`+known+`}`, WantOK)
		add(tool+" by agent", tool, `{"who":{"agent":"a001"},"period":{"named":"last_28_days"},"group_by":"day"}`, WantOK)
		add(tool+" candidates", tool, `{"who":{"agent":"Maria Lop"},"period":{"named":"last_week"}}`, WantCandidates)
		add(tool+" refusal unknown field", tool, `{`+floorWeek+`,"zq9":1}`, "invalid_argument")
		add(tool+" refusal top_n ungrouped", tool, `{`+floorWeek+`,"top_n":3}`, "invalid_argument")
	}
	add("team_day compact", "team_day", `{"who":{"floor":true},"compact":true}`, WantOK)
	add("team_day candidates", "team_day", `{"who":{"team":"h"}}`, WantCandidates)
	add("team_weeks known_definitions", "team_weeks", `{"who":{"team":"falcons"},"weeks":3,`+known+`}`, WantOK)
	add("team_weeks compact", "team_weeks", `{"who":{"team":"ospreys"},"compact":true}`, WantOK)
	add("league compact", "league", `{"period":`+Settled(now)+`,"compact":true}`, WantOK)
	add("league refusal unknown field", "league", `{"period":{"named":"last_week"},"zq9":1}`, "invalid_argument")
	add("roster candidates", "roster", `{"who":{"agent":"Maria Lop"}}`, WantCandidates)
	add("find_people refusal", "find_people", `{}`, "invalid_argument")
	add("metric_definitions some", "metric_definitions", `{"metrics":["close_rate","talk_share"]}`, WantOK)
	add("metric_definitions refusal", "metric_definitions", `{"metrics":["zq9"]}`, "invalid_argument")
	return mix
}

// check makes a soak call and says how its answer fails what it must be,
// or nil.
func (c SoakCall) check(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
	if err != nil {
		return fmt.Errorf("%s: %w", c.Label, err)
	}
	var a struct {
		Candidates []json.RawMessage `json:"candidates"`
		Error      *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	switch {
	case err != nil || res.StructuredContent == nil:
		return fmt.Errorf("%s: no structured answer (%v)", c.Label, err)
	case c.Want == WantOK && (res.IsError || a.Error != nil || a.Candidates != nil):
		return fmt.Errorf("%s: not answered: %.200s", c.Label, b)
	case c.Want == WantCandidates && (res.IsError || len(a.Candidates) == 0):
		return fmt.Errorf("%s: no candidates: %.200s", c.Label, b)
	case c.Want != WantOK && c.Want != WantCandidates && (!res.IsError || a.Error == nil || a.Error.Code != c.Want):
		return fmt.Errorf("%s: not refused %s: %.200s", c.Label, c.Want, b)
	}
	return nil
}

// SoakOptions choose a soak.
type SoakOptions struct {
	// Server is the server soaked; its tokens are gone round, one per
	// request.
	Server NamedServer
	// ServerDSN is the connection the server signs in with.
	ServerDSN string
	// DSN is a superuser's connection to the same database: the request
	// log's size and the connections to PostgreSQL are read on it.
	DSN string
	// Mix is the calls each client goes round, from a place of its own.
	Mix []SoakCall
	// Clients is how many clients call at once, each over a session of
	// its own. If zero, 64.
	Clients int
	// Rate is the calls per second of all the clients together; zero
	// calls as fast as they go.
	Rate int
	// Duration is how long the soak calls; Interval is a row's length (if
	// zero, a minute). The soak makes Duration/Interval rows, at least one.
	Duration, Interval time.Duration
	// Window is how many rows at each end the verdict compares. If zero,
	// ten; if the soak has fewer than twice as many rows, half of them.
	Window int
	// Runtime reads the server's goroutines and heap; nil reads none.
	Runtime func(ctx context.Context) (*Runtime, error)
	// Row is called with each row once it is complete; nil for none.
	Row func(*SoakRow)
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// Runtime is what the Go runtime of a server process says of it.
type Runtime struct {
	Goroutines int   `json:"goroutines"`
	HeapBytes  int64 `json:"heap_bytes"` // live and not yet swept heap objects
}

// SoakRow is one interval of a soak (a minute, unless told otherwise).
type SoakRow struct {
	Minute      int     `json:"minute"` // 1 for the first interval
	Calls       int     `json:"calls"`
	Errors      int     `json:"errors"` // answers not what they must be
	P50         float64 `json:"p50_ms"`
	P99         float64 `json:"p99_ms"`
	PerSecond   float64 `json:"calls_per_second"`
	RSSKiB      int     `json:"rss_kib"`    // VmRSS at the interval's end
	Goroutines  int     `json:"goroutines"` // -1 when not read
	HeapBytes   int64   `json:"heap_bytes"` // -1 when not read
	Threads     int     `json:"threads"`    // the server process's OS threads
	Connections int     `json:"pg_connections"`
	LogRows     int64   `json:"log_rows"`  // the request log's live rows, PostgreSQL's running estimate
	LogBytes    int64   `json:"log_bytes"` // the log's and its outcomes' tables, indexes and TOAST
}

// SoakResult is a whole soak.
type SoakResult struct {
	When    time.Time  `json:"when"`
	Clients int        `json:"clients"`
	Rate    int        `json:"rate"`
	Mix     []SoakCall `json:"mix"`
	Rows    []*SoakRow `json:"rows"`
	Verdict *Verdict   `json:"verdict"`
	// FirstErrors are the first answers that were not what they must be.
	FirstErrors []string `json:"first_errors,omitempty"`
}

// Soak starts the server, warms it up, and calls it with the mix from
// every client until the last row is complete.
func Soak(ctx context.Context, opts SoakOptions) (*SoakResult, error) {
	if opts.Clients == 0 {
		opts.Clients = 64
	}
	if opts.Interval == 0 {
		opts.Interval = time.Minute
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	rows := max(int(opts.Duration/opts.Interval), 1)
	pool, err := pgxpool.New(ctx, opts.DSN)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	r, err := start(ctx, opts.Server, opts.ServerDSN)
	if err != nil {
		return nil, err
	}
	defer r.stop()
	var answered []Call
	for _, c := range opts.Mix {
		if c.Want == WantOK {
			answered = append(answered, c.Call)
		}
	}
	fmt.Fprintf(opts.Progress, "%s: warming up (each of its %d tokens once, every call answered) ...\n", opts.Server.Name, len(r.tokens.tokens))
	if err := r.warm(ctx, answered); err != nil {
		return nil, fmt.Errorf("warm up: %w", err)
	}
	sessions := make([]*mcp.ClientSession, opts.Clients)
	for i := range sessions {
		if sessions[i], err = r.connect(ctx, nil); err != nil {
			return nil, err
		}
		defer sessions[i].Close()
	}
	res := &SoakResult{When: time.Now().UTC(), Clients: opts.Clients, Rate: opts.Rate, Mix: opts.Mix}
	var (
		mu      sync.Mutex
		lat     []time.Duration
		errs    int
		stop    atomic.Bool
		slot    atomic.Int64
		wg      sync.WaitGroup
		started = time.Now()
	)
	fmt.Fprintf(opts.Progress, "%s: %d clients for %d rows of %v ...\n", opts.Server.Name, opts.Clients, rows, opts.Interval)
	for w, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; !stop.Load(); i++ {
				if opts.Rate > 0 {
					due := started.Add(time.Duration(slot.Add(1)-1) * time.Second / time.Duration(opts.Rate))
					time.Sleep(time.Until(due))
					if stop.Load() {
						return
					}
				}
				c := opts.Mix[i%len(opts.Mix)]
				t := time.Now()
				err := c.check(ctx, cs)
				d := time.Since(t)
				mu.Lock()
				lat = append(lat, d)
				if err != nil {
					errs++
					if len(res.FirstErrors) < 10 {
						res.FirstErrors = append(res.FirstErrors, err.Error())
					}
				}
				mu.Unlock()
			}
		}()
	}
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	last := started
	for minute := 1; minute <= rows; minute++ {
		select {
		case <-ctx.Done():
			stop.Store(true)
			wg.Wait()
			return nil, ctx.Err()
		case now := <-tick.C:
			mu.Lock()
			got, failed := lat, errs
			lat, errs = make([]time.Duration, 0, len(got)), 0
			mu.Unlock()
			row := latencies(got, now.Sub(last))
			row.Minute, row.Errors, last = minute, failed, now
			if err := r.sample(ctx, pool, opts.Runtime, row); err != nil {
				stop.Store(true)
				wg.Wait()
				return nil, err
			}
			res.Rows = append(res.Rows, row)
			if opts.Row != nil {
				opts.Row(row)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	res.Verdict = Judge(res.Rows, opts.Window)
	return res, nil
}

// latencies is a row's calls, percentiles and rate over elapsed.
func latencies(d []time.Duration, elapsed time.Duration) *SoakRow {
	row := &SoakRow{Calls: len(d), PerSecond: float64(len(d)) / elapsed.Seconds()}
	if len(d) > 0 {
		slices.Sort(d)
		pct := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000 }
		row.P50, row.P99 = pct(0.50), pct(0.99)
	}
	return row
}

// sample reads what the server holds into row: its memory and threads
// from /proc, its goroutines and heap from its runtime, the connections to
// PostgreSQL (every client backend but this one) and the request log's
// size.
func (r *running) sample(ctx context.Context, pool *pgxpool.Pool, rt func(context.Context) (*Runtime, error), row *SoakRow) error {
	m, err := memoryOf(r.pid)
	if err != nil {
		return err
	}
	row.RSSKiB = m.EndKiB
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", r.pid))
	if err != nil {
		return fmt.Errorf("read the server's threads: %w", err)
	}
	row.Threads = len(tasks)
	row.Goroutines, row.HeapBytes = -1, -1
	if rt != nil {
		got, err := rt(ctx)
		if err != nil {
			return fmt.Errorf("read the server's runtime: %w", err)
		}
		row.Goroutines, row.HeapBytes = got.Goroutines, got.HeapBytes
	}
	return pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()),
		(SELECT n_live_tup FROM pg_stat_user_tables WHERE relid = 'plumbline.request_log'::regclass),
		pg_total_relation_size('plumbline.request_log') + pg_total_relation_size('plumbline.request_outcome')`).Scan(&row.Connections, &row.LogRows, &row.LogBytes)
}

// Verdict compares the first rows of a soak with its last: each figure
// judged is the median of its rows at each end (so one minute disturbed by
// other work on the machine does not decide it), and must stay within
// Tolerance of the first; no answer may fail its check.
type Verdict struct {
	Window  int      `json:"window"` // rows at each end
	First   [2]int   `json:"first"`  // minutes, inclusive
	Last    [2]int   `json:"last"`
	Figures []Judged `json:"figures"`
	Others  []Judged `json:"others"` // shown, not judged: the log is meant to grow
	Errors  int      `json:"errors"`
	Pass    bool     `json:"pass"`
	Failed  []string `json:"failed,omitempty"` // what changed beyond the tolerance, or failed answers
}

// Tolerance is how far a judged figure may move between the ends of a soak.
const Tolerance = 0.10

// Judged is one figure at each end of a soak.
type Judged struct {
	Name   string  `json:"name"`
	First  float64 `json:"first"`
	Last   float64 `json:"last"`
	Change float64 `json:"change"` // (last − first) ÷ first
	Within bool    `json:"within"`
}

// Judge gives the verdict on rows, comparing window rows at each end (ten
// if zero; half the rows each if there are fewer than twice as many).
func Judge(rows []*SoakRow, window int) *Verdict {
	if window <= 0 {
		window = 10
	}
	if len(rows) < 2*window {
		window = len(rows) / 2
	}
	v := &Verdict{Window: window, Pass: window > 0}
	if window == 0 {
		v.Failed = append(v.Failed, "too few rows to compare")
		return v
	}
	first, last := rows[:window], rows[len(rows)-window:]
	v.First = [2]int{first[0].Minute, first[window-1].Minute}
	v.Last = [2]int{last[0].Minute, last[window-1].Minute}
	figure := func(name string, f func(*SoakRow) float64) Judged {
		med := func(rs []*SoakRow) float64 {
			var vals []float64
			for _, r := range rs {
				vals = append(vals, f(r))
			}
			slices.Sort(vals)
			if len(vals)%2 == 0 {
				return (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
			}
			return vals[len(vals)/2]
		}
		j := Judged{Name: name, First: med(first), Last: med(last)}
		if j.First != 0 {
			j.Change = (j.Last - j.First) / j.First
		} else if j.Last != 0 {
			j.Change = math.Inf(1)
		}
		j.Within = math.Abs(j.Change) <= Tolerance
		return j
	}
	v.Figures = []Judged{
		figure("p50 ms", func(r *SoakRow) float64 { return r.P50 }),
		figure("p99 ms", func(r *SoakRow) float64 { return r.P99 }),
		figure("calls/s", func(r *SoakRow) float64 { return r.PerSecond }),
		figure("RSS MiB", func(r *SoakRow) float64 { return float64(r.RSSKiB) / 1024 }),
	}
	for _, j := range v.Figures {
		if !j.Within {
			v.Pass = false
			verb := "grew"
			if j.Change < 0 {
				verb = "fell"
			}
			v.Failed = append(v.Failed, fmt.Sprintf("%s %s %+.1f%% (%.2f → %.2f)", j.Name, verb, 100*j.Change, j.First, j.Last))
		}
	}
	v.Others = []Judged{
		figure("goroutines", func(r *SoakRow) float64 { return float64(r.Goroutines) }),
		figure("heap MiB", func(r *SoakRow) float64 { return float64(r.HeapBytes) / (1 << 20) }),
		figure("threads", func(r *SoakRow) float64 { return float64(r.Threads) }),
		figure("pg connections", func(r *SoakRow) float64 { return float64(r.Connections) }),
		figure("log rows", func(r *SoakRow) float64 { return float64(r.LogRows) }),
		figure("log MiB", func(r *SoakRow) float64 { return float64(r.LogBytes) / (1 << 20) }),
	}
	for _, r := range rows {
		v.Errors += r.Errors
	}
	if v.Errors > 0 {
		v.Pass = false
		v.Failed = append(v.Failed, fmt.Sprintf("%d answers were not what they must be", v.Errors))
	}
	return v
}

// SeedLog fills the request log with rows calls, and their outcomes, spread
// evenly over the days before the last two minutes (so that no limit counts
// them), oldest first as a log is written: the persons given in turn, seven
// clients, the tools and arguments of the mix with the outcome each gets, one
// in fifty refused for the limit, one answered call in seven from the cache,
// and durations and row counts of a few milliseconds and rows, each id in
// time order as the server makes them. It then settles the log as a server
// that has run for months finds it: vacuumed and analyzed, as autovacuum
// leaves it, and checkpointed, so that the soak's first minutes do not pay
// for writing out the fill and the comparison of first and last minutes
// measures the server, not the seeding.
func SeedLog(ctx context.Context, pool *pgxpool.Pool, rows, days int, persons []string, mix []SoakCall) error {
	var tools, args, outcomes []string
	for _, c := range mix {
		tools, args, outcomes = append(tools, c.Tool), append(args, c.Args), append(outcomes, c.Want)
	}
	// The fill commits durably whatever the cluster's default, because
	// vacuum marks a page all-visible only once the commit is on disk.
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = on"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `WITH calls AS (
		SELECT lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || left(md5('seed' || i), 12) AS request_id,
			($3::text[])[1 + i % cardinality($3::text[])] AS person, 'client-' || i % 7 AS client,
			($4::text[])[1 + k] AS tool, ($5::text[])[1 + k]::jsonb AS arguments, t AS started_at,
			CASE WHEN i % 50 = 0 THEN 'rate_limited'
			     WHEN ($6::text[])[1 + k] = 'ok' AND i % 7 = 0 THEN 'cached'
			     ELSE ($6::text[])[1 + k] END AS outcome, i % 50 <> 0 AS counted,
			1 + (i::bigint * 7919 % 4000) / 100.0 AS duration_ms, CASE WHEN ($6::text[])[1 + k] = 'ok' THEN i % 51 ELSE 0 END AS row_count
		FROM generate_series(1, $1::int) i,
			LATERAL (SELECT (i / 3) % cardinality($4::text[]) AS k,
			                now() - interval '2 minutes' - ($1::int - i) * ($2::int * interval '1 day' / $1::int) AS t) m
	), logged AS (
		INSERT INTO plumbline.request_log (request_id, person, client, tool, arguments, started_at, counted)
		SELECT request_id, person, client, tool, arguments, started_at, counted FROM calls
	)
	INSERT INTO plumbline.request_outcome (request_id, outcome, duration_ms, row_count)
	SELECT request_id, outcome, duration_ms, row_count FROM calls`,
			rows, days, persons, tools, args, outcomes)
		return err
	})
	for _, settle := range []string{"VACUUM (ANALYZE) plumbline.request_log, plumbline.request_outcome", "CHECKPOINT"} {
		if err != nil {
			break
		}
		_, err = pool.Exec(ctx, settle)
	}
	return err
}
