package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"plumbline/catalog"
	"plumbline/internal/demofloor"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/query"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// Call is one representative tool call.
type Call struct {
	Tool string `json:"tool"`
	Args string `json:"arguments"`
}

// Calls are the calls a bench makes as of now: every tool, with a typical
// question.
func Calls(now time.Time) []Call {
	return []Call{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"team","metrics":["submitted_sales","close_rate"]}`},
		{"hours", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"group_by":"day"}`},
		{"quality", `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"week"}`},
		{"team_day", `{"who":{"team":"hawks"}}`},
		{"team_weeks", `{"who":{"team":"hawks"}}`},
		{"league", `{"period":` + Settled(now) + `}`},
		{"roster", `{"who":{"team":"hawks"}}`},
		{"find_people", `{"query":"maria"}`},
		{"freshness", `{}`},
		{"metric_definitions", `{}`},
		{"health", `{}`},
	}
}

// Settled is the period argument of the 28 days that end two days before
// now's day on the demo floor: every one of them is final at any hour,
// where yesterday is final only once the nightly build has loaded it in
// the early morning. A league, which refuses days that are not final,
// asks for it so that a bench answers at every hour.
func Settled(now time.Time) string {
	zone, err := time.LoadLocation(demofloor.Zone)
	if err != nil {
		panic(err) // the demo floor's zone is in every Go's time zone database
	}
	d := now.In(zone)
	end := time.Date(d.Year(), d.Month(), d.Day()-2, 0, 0, 0, 0, time.UTC)
	return fmt.Sprintf(`{"start":%q,"end":%q}`, end.AddDate(0, 0, -27).Format(time.DateOnly), end.Format(time.DateOnly))
}

// Server starts one plumbline server on a database and returns its MCP
// URL, its process id and a func that stops it.
type Server func(ctx context.Context, dsn string) (url string, pid int, stop func() error, err error)

// Options choose what to measure.
type Options struct {
	// DSN is a superuser's connection to the database holding the floor:
	// the raw side runs on it.
	DSN string
	// ServerDSN is the connection the servers sign in with.
	ServerDSN string
	// Servers are the servers to measure, by name; the first is the one
	// the bench is about, any other is measured beside it.
	Servers []NamedServer
	// Rounds is how many paired rounds each tool gets. If zero, 200.
	Rounds int
	// Calls per tool at each level of concurrency. If zero, 200.
	Calls int
	// TripCalls is how many sequential calls per tool count the round
	// trips. If zero, 20.
	TripCalls int
	// Levels of concurrency. If nil, 1, 8 and 64.
	Levels []int
	// Tools limits the calls to these tools. If nil, every call.
	Tools []string
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// NamedServer is a server, what the bench calls it and the bearer tokens
// it accepts: the calls go round them, one per call, as a floor's many
// callers would.
type NamedServer struct {
	Name   string
	Start  Server
	Tokens []string
}

// Result is a whole bench run.
type Result struct {
	When    time.Time     `json:"when"`
	Levels  []int         `json:"levels"`
	Servers []string      `json:"servers"`
	Tools   []*ToolResult `json:"tools"`
	Memory  []Memory      `json:"server_memory"` // by server
	// Durability is what waiting for the disk costs a call's row.
	Durability *Durability `json:"durability"`
}

// Memory is a server process's resident memory over the measured calls.
type Memory struct {
	Server  string `json:"server"`
	PeakKiB int    `json:"peak_kib"` // VmHWM, reset once the server had warmed up
	EndKiB  int    `json:"end_kib"`  // VmRSS at the end
	// Of the resident memory, the most seen (sampled every memoryEvery)
	// that was the process's own (RssAnon: heap, stacks, runtime) and that
	// was pages of its binary and libraries (RssFile: shared with the page
	// cache, which keeps them anyway).
	AnonPeakKiB int `json:"anon_peak_kib"`
	FilePeakKiB int `json:"file_peak_kib"`
}

// memoryEvery is how often the server's memory is sampled while measured.
const memoryEvery = 20 * time.Millisecond

// watchMemory samples a process's memory every memoryEvery until the
// returned function is called, which returns the most of each kind seen
// and what the process holds then.
func watchMemory(pid int) func() (Memory, error) {
	var most Memory
	done, stopped := make(chan struct{}), make(chan struct{})
	note := func(m Memory) {
		most.AnonPeakKiB, most.FilePeakKiB = max(most.AnonPeakKiB, m.AnonPeakKiB), max(most.FilePeakKiB, m.FilePeakKiB)
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(memoryEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if m, err := memoryOf(pid); err == nil {
					note(m)
				}
			}
		}
	}()
	return func() (Memory, error) {
		close(done)
		<-stopped
		m, err := memoryOf(pid)
		note(m)
		m.AnonPeakKiB, m.FilePeakKiB = most.AnonPeakKiB, most.FilePeakKiB
		return m, err
	}
}

// ToolResult is one tool's measurements.
type ToolResult struct {
	Call
	Statements  int             `json:"statements"` // report SQL statements per call; 0 when the tool runs none
	Rounds      int             `json:"rounds"`
	RawP50      float64         `json:"raw_p50_ms,omitempty"`
	Servers     []*ServerResult `json:"servers"`
	RawRate     []*Stats        `json:"raw,omitempty"` // calls/s of the raw SQL, by level
	Bytes       int             `json:"bytes"`
	FigureBytes int             `json:"figure_bytes"`
}

// ServerResult is one server's measurements of a tool.
type ServerResult struct {
	Server     string   `json:"server"`
	P50        float64  `json:"p50_ms"`                  // client side, in the paired rounds
	Added      float64  `json:"added_p50_ms"`            // median over rounds of (call − raw SQL), client side
	ServerP50  *float64 `json:"server_p50_ms,omitempty"` // the server's own time (Server-Timing), when it reports it
	ServerAdd  *float64 `json:"server_added_p50_ms,omitempty"`
	Stages     []Stage  `json:"server_stages,omitempty"` // the server's time by stage (Server-Timing), when it reports them
	RoundTrips float64  `json:"round_trips"`             // database round trips per call on the request path
	Background float64  `json:"background_round_trips"`
	Rate       []*Stats `json:"levels"`
}

// Stage is the median over the paired rounds of the time a server says one
// stage of its calls took (token check, request log, report SQL, assembly).
type Stage struct {
	Name string  `json:"name"`
	P50  float64 `json:"p50_ms"`
}

// Stats are latencies and throughput at one level of concurrency.
type Stats struct {
	Concurrency int     `json:"concurrency"`
	Calls       int     `json:"calls"`
	Errors      int     `json:"errors"`
	P50         float64 `json:"p50_ms"`
	P95         float64 `json:"p95_ms"`
	P99         float64 `json:"p99_ms"`
	PerSecond   float64 `json:"calls_per_second"`
	// CPU is the processor time a call took, by whom, when the database's
	// processes are on this machine.
	CPU *CPU `json:"cpu_per_call,omitempty"`
}

// Ratio is a server's calls per second at a level divided by the raw
// SQL's, or false when the tool runs no report SQL.
func (t *ToolResult) Ratio(s *ServerResult, level int) (float64, bool) {
	for i, r := range t.RawRate {
		if r.Concurrency == level && i < len(s.Rate) && r.PerSecond > 0 {
			return s.Rate[i].PerSecond / r.PerSecond, true
		}
	}
	return 0, false
}

// CPURatio is, at the i-th level, the database processor time a call of
// the raw SQL took divided by the processor time a server's call took in
// the server and the database together: what of the processor a call costs
// is the report's own, whatever the shared cores do to the calls per
// second. It is false when either was not measured.
func (t *ToolResult) CPURatio(s *ServerResult, i int) (float64, bool) {
	if i >= len(t.RawRate) || i >= len(s.Rate) {
		return 0, false
	}
	raw, srv := t.RawRate[i].CPU, s.Rate[i].CPU
	if raw == nil || srv == nil || srv.Server+srv.Database <= 0 {
		return 0, false
	}
	return raw.Database / (srv.Server + srv.Database), true
}

// Run measures every call.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Rounds == 0 {
		opts.Rounds = 200
	}
	if opts.Calls == 0 {
		opts.Calls = 200
	}
	if opts.TripCalls == 0 {
		opts.TripCalls = 20
	}
	if opts.Levels == nil {
		opts.Levels = []int{1, 8, 64}
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	calls := Calls(time.Now())
	if opts.Tools != nil {
		calls = nil
		for _, c := range Calls(time.Now()) {
			if slices.Contains(opts.Tools, c.Tool) {
				calls = append(calls, c)
			}
		}
	}
	statements, err := capture(ctx, opts.DSN, calls)
	if err != nil {
		return nil, fmt.Errorf("capture the report SQL: %w", err)
	}
	res := &Result{When: time.Now().UTC(), Levels: opts.Levels}
	trips := map[string]map[string][2]float64{} // server, tool: request path, background
	for _, s := range opts.Servers {
		res.Servers = append(res.Servers, s.Name)
		fmt.Fprintf(opts.Progress, "%s: counting round trips to the database, %d sequential calls per tool ...\n", s.Name, opts.TripCalls)
		if trips[s.Name], err = countRoundTrips(ctx, opts, s, calls); err != nil {
			return nil, fmt.Errorf("%s: count round trips: %w", s.Name, err)
		}
	}
	servers := make([]*running, len(opts.Servers))
	for i, s := range opts.Servers {
		r, err := start(ctx, s, opts.ServerDSN)
		if err != nil {
			return nil, err
		}
		defer r.stop()
		fmt.Fprintf(opts.Progress, "%s: warming up (each of its %d tokens once, every tool) ...\n", s.Name, len(s.Tokens))
		if err := r.warm(ctx, calls); err != nil {
			return nil, fmt.Errorf("%s: warm up: %w", s.Name, err)
		}
		resetPeak(r.pid)
		r.memory = watchMemory(r.pid)
		servers[i] = r
	}
	// The raw side reads the sources through the same views as the
	// servers, as someone who sees the whole floor.
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams[query.DefaultReachSetting] = ask.SeesFloor
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	clock := newCPUClock(ctx, pool)
	fmt.Fprintf(opts.Progress, "the request log's commit, synchronous and lazy, %d paired rounds ...\n", opts.Rounds)
	if res.Durability, err = measureDurability(ctx, pool, opts.Rounds); err != nil {
		return nil, fmt.Errorf("measure the log's commit: %w", err)
	}
	figures := 0
	for _, stmts := range statements {
		n, err := replayed(ctx, pool, stmts)
		if err != nil {
			return nil, err
		}
		figures += n
	}
	if figures == 0 {
		return nil, errors.New("the report SQL read no figure: the raw side would measure nothing")
	}
	raw := func(ctx context.Context, _ int) error { return nil }
	for _, c := range calls {
		tr := &ToolResult{Call: c, Statements: len(statements[c.Tool]), Rounds: opts.Rounds}
		if tr.Statements > 0 {
			stmts := statements[c.Tool]
			raw = func(ctx context.Context, _ int) error { _, err := replayed(ctx, pool, stmts); return err }
		}
		if err := servers[0].bytes(ctx, c, tr); err != nil {
			return nil, err
		}
		if err := paired(ctx, opts, c, tr, servers, raw); err != nil {
			return nil, err
		}
		for _, sr := range tr.Servers {
			t := trips[sr.Server][c.Tool]
			sr.RoundTrips, sr.Background = t[0], t[1]
		}
		for _, level := range opts.Levels {
			fmt.Fprintf(opts.Progress, "%-18s %2d in flight:", c.Tool, level)
			if tr.Statements > 0 {
				s := clock.around(0, func() *Stats { return measure(ctx, opts.Calls, level, raw) })
				tr.RawRate = append(tr.RawRate, s)
				fmt.Fprintf(opts.Progress, " raw SQL %.0f/s", s.PerSecond)
			}
			for i, r := range servers {
				s, err := r.rate(ctx, clock, c, opts.Calls, level)
				if err != nil {
					return nil, err
				}
				tr.Servers[i].Rate = append(tr.Servers[i].Rate, s)
				fmt.Fprintf(opts.Progress, "; %s %.0f/s", r.name, s.PerSecond)
				if s.Errors > 0 {
					fmt.Fprintf(opts.Progress, " (%d errors)", s.Errors)
				}
			}
			fmt.Fprintln(opts.Progress)
		}
		res.Tools = append(res.Tools, tr)
	}
	for _, r := range servers {
		m, err := r.memory()
		if err != nil {
			return nil, err
		}
		m.Server = r.name
		res.Memory = append(res.Memory, m)
	}
	return res, nil
}

// running is a started server with a client for the paired rounds.
type running struct {
	name   string
	url    string
	pid    int
	stop   func() error
	tokens *rotation
	client *mcp.ClientSession
	timing *serverTiming
	memory func() (Memory, error) // the memory over the measured calls, once they are done
}

func start(ctx context.Context, s NamedServer, dsn string) (*running, error) {
	url, pid, stop, err := s.Start(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	tokens := s.Tokens
	if len(tokens) == 0 {
		tokens = []string{""}
	}
	r := &running{name: s.Name, url: url, pid: pid, stop: stop, tokens: &rotation{tokens: tokens}, timing: &serverTiming{}}
	if r.client, err = r.connect(ctx, r.timing); err != nil {
		stop()
		return nil, err
	}
	return r, nil
}

// rotation hands out tokens in turn.
type rotation struct {
	tokens []string
	next   atomic.Uint64
}

func (r *rotation) RoundTrip(req *http.Request) (*http.Response, error) {
	i := r.next.Add(1) - 1
	return oauth.BearerTransport(r.tokens[i%uint64(len(r.tokens))], transport).RoundTrip(req)
}

var transport = &http.Transport{MaxIdleConnsPerHost: 256}

// serverTiming keeps the server's own times of the last response (its
// Server-Timing header), for a client that makes one call at a time.
type serverTiming struct {
	next http.RoundTripper
	last atomic.Pointer[[]Stage] // plumbline's whole time first, or nil
}

func (s *serverTiming) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(req)
	if err == nil {
		if times := ServerTimes(resp.Header.Get("Server-Timing")); len(times) > 0 && times[0].Name == "plumbline" {
			s.last.Store(&times)
		}
	}
	return resp, err
}

// ServerTime reads the duration of plumbline's own entry in a
// Server-Timing header ("plumbline;dur=1.234"), in milliseconds.
func ServerTime(header string) (float64, bool) {
	for _, t := range ServerTimes(header) {
		if t.Name == "plumbline" {
			return t.P50, true
		}
	}
	return 0, false
}

// ServerTimes reads every entry of a Server-Timing header that has a
// duration, in the header's order, in milliseconds.
func ServerTimes(header string) []Stage {
	var out []Stage
	for _, metric := range strings.Split(header, ",") {
		params := strings.Split(strings.TrimSpace(metric), ";")
		for _, p := range params[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "dur="); ok {
				if ms, err := strconv.ParseFloat(v, 64); err == nil {
					out = append(out, Stage{Name: strings.TrimSpace(params[0]), P50: ms})
				}
				break
			}
		}
	}
	return out
}

func (r *running) connect(ctx context.Context, timing *serverTiming) (*mcp.ClientSession, error) {
	var rt http.RoundTripper = r.tokens
	if timing != nil {
		timing.next, rt = rt, timing
	}
	tr := &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "plumbline-bench", Version: "1"}, nil).Connect(ctx, tr, nil)
}

// call makes one call and fails on a refusal.
func call(ctx context.Context, cs *mcp.ClientSession, c Call) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
	if err == nil && res.IsError {
		text := ""
		if t, ok := res.Content[0].(*mcp.TextContent); ok && len(res.Content) > 0 {
			text = t.Text
		}
		err = fmt.Errorf("%s was refused: %.200s", c.Tool, text)
	}
	return res, err
}

// warm makes a call with every token (so the server has seen each) and
// each call once.
func (r *running) warm(ctx context.Context, calls []Call) error {
	health := Call{Tool: "health", Args: "{}"}
	n := len(r.tokens.tokens)
	if s := measure(ctx, n, min(8, n), func(ctx context.Context, _ int) error {
		_, err := call(ctx, r.client, health)
		return err
	}); s.Errors > 0 {
		return fmt.Errorf("%d of %d calls failed", s.Errors, s.Calls)
	}
	for _, c := range calls {
		if _, err := call(ctx, r.client, c); err != nil {
			return err
		}
	}
	return nil
}

func (r *running) bytes(ctx context.Context, c Call, tr *ToolResult) error {
	res, err := call(ctx, r.client, c)
	if err != nil {
		return err
	}
	// The structured content is the whole answer; the text block is a
	// rendering of it for a model, measured by MeasureBytes.
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	tr.Bytes, tr.FigureBytes = len(structured), FigureBytes(string(structured))
	return nil
}

// rate measures calls per second at a level of concurrency, each worker
// over a session of its own, and with clock the processor time they took.
func (r *running) rate(ctx context.Context, clock *cpuClock, c Call, calls, level int) (*Stats, error) {
	sessions := make([]*mcp.ClientSession, level)
	for i := range sessions {
		cs, err := r.connect(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	return clock.around(r.pid, func() *Stats {
		return measure(ctx, calls, level, func(ctx context.Context, worker int) error {
			_, err := call(ctx, sessions[worker], c)
			return err
		})
	}), nil
}

// paired runs the rounds of one call: raw SQL and each server once a round,
// in rotating order.
func paired(ctx context.Context, opts Options, c Call, tr *ToolResult, servers []*running, raw func(context.Context, int) error) error {
	n := len(servers) + 1 // the raw side is number 0
	lat := make([][]float64, n)
	own := make([][]float64, len(servers))
	stages := make([]map[string][]float64, len(servers))
	order := make([][]string, len(servers))
	fmt.Fprintf(opts.Progress, "%-18s paired rounds:", c.Tool)
	next := time.Now().Add(5 * time.Second)
	for round := 0; round < opts.Rounds; round++ {
		for k := 0; k < n; k++ {
			side := (round + k) % n
			if side == 0 && tr.Statements == 0 {
				continue
			}
			t := time.Now()
			var err error
			if side == 0 {
				err = raw(ctx, 0)
			} else {
				servers[side-1].timing.last.Store(nil)
				_, err = call(ctx, servers[side-1].client, c)
			}
			ms := float64(time.Since(t).Microseconds()) / 1000
			if err != nil {
				return err
			}
			lat[side] = append(lat[side], ms)
			if side > 0 {
				if v := servers[side-1].timing.last.Load(); v != nil {
					i := side - 1
					own[i] = append(own[i], (*v)[0].P50)
					if stages[i] == nil {
						stages[i] = map[string][]float64{}
					}
					for _, st := range (*v)[1:] {
						if _, seen := stages[i][st.Name]; !seen {
							order[i] = append(order[i], st.Name)
						}
						stages[i][st.Name] = append(stages[i][st.Name], st.P50)
					}
				}
			}
		}
		if time.Now().After(next) {
			fmt.Fprintf(opts.Progress, " %d/%d", round+1, opts.Rounds)
			next = time.Now().Add(5 * time.Second)
		}
	}
	if tr.Statements > 0 {
		tr.RawP50 = median(lat[0])
	}
	for i, r := range servers {
		sr := &ServerResult{Server: r.name, P50: median(lat[i+1])}
		if tr.Statements > 0 {
			sr.Added = medianDiff(lat[i+1], lat[0])
		}
		if len(own[i]) == len(lat[i+1]) {
			p := median(own[i])
			sr.ServerP50 = &p
			for _, name := range order[i] {
				sr.Stages = append(sr.Stages, Stage{Name: name, P50: median(stages[i][name])})
			}
			if tr.Statements > 0 {
				a := medianDiff(own[i], lat[0])
				sr.ServerAdd = &a
			}
		}
		tr.Servers = append(tr.Servers, sr)
		fmt.Fprintf(opts.Progress, "; %s p50 %.2f ms", r.name, sr.P50)
		if tr.Statements > 0 {
			fmt.Fprintf(opts.Progress, " (raw %.2f, added %+.2f)", tr.RawP50, sr.Added)
		}
	}
	fmt.Fprintln(opts.Progress)
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// medianDiff is the median of the differences a[i] − b[i] of one round.
func medianDiff(a, b []float64) float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return median(d)
}

type statement struct {
	sql  string
	args []any
}

// recorder is a store that remembers the plans it runs.
type recorder struct {
	ask.Store
	mu    sync.Mutex
	plans []*ask.Plan
}

func (r *recorder) Run(ctx context.Context, plans ...*ask.Plan) ([]*ask.Result, error) {
	r.mu.Lock()
	r.plans = append(r.plans, plans...)
	r.mu.Unlock()
	return r.Store.Run(ctx, plans...)
}

// capture answers each call once in process and returns the report SQL it
// ran, by tool.
func capture(ctx context.Context, dsn string, calls []Call) (map[string][]statement, error) {
	cat, err := catalog.Demo()
	if err != nil {
		return nil, err
	}
	st, err := pgstore.Open(ctx, dsn, cat, nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	out := map[string][]statement{}
	for _, c := range calls {
		rec := &recorder{Store: st}
		ans := reports.New(cat, rec, nil).Call(ctx, ask.Caller{Person: "bench", Client: "bench"}, c.Tool, json.RawMessage(c.Args))
		if ans.Refusal != nil {
			return nil, fmt.Errorf("%s was refused: %s", c.Tool, ans.Refusal.Rule)
		}
		for _, p := range rec.plans {
			sql, args, err := query.Build(p)
			if err != nil {
				return nil, err
			}
			out[c.Tool] = append(out[c.Tool], statement{sql, args})
		}
	}
	return out, nil
}

// replayed runs a call's report statements in one batch, one round trip,
// as the server sends them, and returns how many rows held a figure.
func replayed(ctx context.Context, pool *pgxpool.Pool, stmts []statement) (int, error) {
	b := &pgx.Batch{}
	n := 0
	for _, s := range stmts {
		b.Queue(s.sql, s.args...).Query(func(rows pgx.Rows) error {
			got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
			for _, row := range got {
				if slices.ContainsFunc(row[1:], func(v any) bool { return v != nil }) {
					n++
				}
			}
			return err
		})
	}
	return n, pool.SendBatch(ctx, b).Close()
}

// measure runs fn calls times over level workers and summarises the
// latencies.
func measure(ctx context.Context, calls, level int, fn func(ctx context.Context, worker int) error) *Stats {
	if calls < level {
		calls = level
	}
	durations := make([]time.Duration, calls)
	var next, errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < level; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(calls) {
					return
				}
				t := time.Now()
				err := fn(ctx, worker)
				durations[i] = time.Since(t)
				if err != nil {
					errs.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	pct := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))].Microseconds()) / 1000
	}
	return &Stats{Concurrency: level, Calls: calls, Errors: int(errs.Load()), P50: pct(0.50), P95: pct(0.95), P99: pct(0.99),
		PerSecond: float64(calls) / elapsed.Seconds()}
}

// FigureBytes counts the bytes of an answer that are figures: rows and
// totals, people, teams, and freshness dates.
func FigureBytes(text string) int {
	var a map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &a) != nil {
		return 0
	}
	n := len(a["rows"]) + len(a["people"]) + len(a["teams"])
	var sections []map[string]json.RawMessage
	json.Unmarshal(a["sections"], &sections)
	for _, s := range sections {
		n += len(s["rows"]) + len(s["total"])
	}
	var sources map[string]map[string]json.RawMessage
	json.Unmarshal(a["sources"], &sources)
	for _, s := range sources {
		n += len(s["data_through"])
	}
	return n
}

// resetPeak starts a process's peak memory (VmHWM) afresh from its current
// resident memory.
func resetPeak(pid int) {
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// freshCopy copies a binary to a file of its own, beside it (on the same
// file system, so not on a tmpfs /tmp, whose pages never leave the cache)
// or else in the temporary directory, and drops the copy's pages from the
// page cache, so that a process started from it reads them as one started
// from a newly deployed binary does. How a file's pages came into the
// cache (written by the linker, read by an earlier process) sets the size
// of the folios the kernel keeps them in, and so how many of them a
// process maps beyond those it touches: runs of one build differed by up to
// 4 MiB of resident memory. It returns the copy's path and a func that
// deletes the copy.
func freshCopy(bin string) (string, func(), error) {
	dir, err := os.MkdirTemp(filepath.Dir(bin), ".plumbline-bench-")
	if err != nil {
		if dir, err = os.MkdirTemp("", "plumbline-bench-"); err != nil {
			return "", nil, err
		}
	}
	remove := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, filepath.Base(bin))
	if err := copyUncached(bin, path); err != nil {
		remove()
		return "", nil, fmt.Errorf("copy the server's binary: %w", err)
	}
	return path, remove, nil
}

// copyUncached copies src to a new executable file dst and drops dst's
// pages from the page cache.
func copyUncached(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync() // only clean pages leave the cache
	}
	if err == nil {
		err = unix.Fadvise(int(out.Fd()), 0, 0, unix.FADV_DONTNEED)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// memoryOf reads a process's peak and current resident memory, and what of
// it now is its own and what pages of files.
func memoryOf(pid int) (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("read the server's memory: %w", err)
	}
	var m Memory
	for _, line := range strings.Split(string(b), "\n") {
		key, value, _ := strings.Cut(line, ":")
		kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		switch key {
		case "VmHWM":
			m.PeakKiB = kib
		case "VmRSS":
			m.EndKiB = kib
		case "RssAnon":
			m.AnonPeakKiB = kib
		case "RssFile":
			m.FilePeakKiB = kib
		}
	}
	return m, nil
}

// Process starts a plumbline binary serving a database on a free loopback
// port and waits until it is listening. It runs a fresh copy of the binary
// (freshCopy), so that its memory is measured as a newly deployed one's.
func Process(bin string, extraArgs ...string) Server {
	return func(ctx context.Context, dsn string) (string, int, func() error, error) {
		copied, remove, err := freshCopy(bin)
		if err != nil {
			return "", 0, nil, err
		}
		args := append([]string{"serve", "--db", dsn, "--log-level", "info"}, extraArgs...)
		cmd := exec.CommandContext(ctx, copied, args...)
		logs, err := cmd.StderrPipe()
		if err != nil {
			remove()
			return "", 0, nil, err
		}
		if err := cmd.Start(); err != nil {
			remove()
			return "", 0, nil, err
		}
		stop := func() error {
			defer remove()
			cmd.Process.Signal(os.Interrupt)
			return cmd.Wait()
		}
		// The server logs the URL it serves once it listens.
		found := make(chan string, 1)
		go func() {
			lines := bufio.NewScanner(logs)
			for lines.Scan() {
				var entry struct{ URL string }
				if json.Unmarshal(lines.Bytes(), &entry) == nil && entry.URL != "" {
					select {
					case found <- entry.URL:
					default:
					}
				}
			}
			close(found)
		}()
		select {
		case url, ok := <-found:
			if ok {
				return url, cmd.Process.Pid, stop, nil
			}
		case <-time.After(30 * time.Second):
		}
		stop()
		return "", 0, nil, errors.New("the server did not start listening")
	}
}
