// Package bench measures plumbline against the limit the database sets: for
// each tool, the whole MCP call over Streamable HTTP to a real plumbline
// server process, next to the same report SQL run directly with pgx, at
// several levels of concurrency, with the server's memory and the split of
// each answer's bytes into figures and everything else.
//
// The SQL a call runs is captured by answering the call once in process with
// a recording store, so the raw side runs exactly the statements the server
// runs for the report itself (without the governance around them).
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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/oauth"
	"plumbline/internal/query"
	"plumbline/internal/store"
	"plumbline/reports"
)

// Call is one representative tool call.
type Call struct {
	Tool string `json:"tool"`
	Args string `json:"arguments"`
}

// Calls are the calls a bench makes: every tool, with a typical question.
var Calls = []Call{
	{"sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"team","metrics":["submitted_sales","close_rate"]}`},
	{"hours", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"group_by":"day"}`},
	{"quality", `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"week"}`},
	{"team_day", `{"who":{"team":"hawks"}}`},
	{"team_weeks", `{"who":{"team":"hawks"}}`},
	{"league", `{"period":{"named":"last_28_days"}}`},
	{"roster", `{"who":{"team":"hawks"}}`},
	{"find_people", `{"query":"maria"}`},
	{"freshness", `{}`},
	{"metric_definitions", `{}`},
	{"health", `{}`},
}

// Options choose what to measure.
type Options struct {
	// DSN is the database holding the floor; the server and the raw side
	// both use it.
	DSN string
	// Server starts a plumbline server on the database and returns its MCP
	// URL, its process id and a func that stops it.
	Server func(ctx context.Context) (url string, pid int, stop func() error, err error)
	// Token is the bearer token the MCP clients send, if the server wants one.
	Token string
	// Calls per tool at each concurrency level. If zero, 200.
	Calls int
	// Levels of concurrency. If nil, 1, 8 and 64.
	Levels []int
	// Tools limits the calls to these tools. If nil, every call.
	Tools []string
	// Progress receives a line per step; nil discards them.
	Progress io.Writer
}

// Result is a whole bench run.
type Result struct {
	When      time.Time     `json:"when"`
	Levels    []int         `json:"levels"`
	Tools     []*ToolResult `json:"tools"`
	ServerRSS Memory        `json:"server_memory"`
}

// Memory is a process's resident memory.
type Memory struct {
	PeakKiB int `json:"peak_kib"` // VmHWM
	EndKiB  int `json:"end_kib"`  // VmRSS at the end
}

// ToolResult is one tool's measurements.
type ToolResult struct {
	Call
	Statements  int      `json:"statements"` // report SQL statements per call; 0 when the tool runs none
	MCP         []*Stats `json:"mcp"`
	SQL         []*Stats `json:"sql,omitempty"`
	Bytes       int      `json:"bytes"`
	FigureBytes int      `json:"figure_bytes"`
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
}

// Overhead is the share of the MCP call's median not spent in the report
// SQL, at a level of concurrency; false when the tool runs no report SQL.
func (t *ToolResult) Overhead(level int) (float64, bool) {
	for i, m := range t.MCP {
		if m.Concurrency == level && i < len(t.SQL) && m.P50 > 0 {
			return (m.P50 - t.SQL[i].P50) / m.P50, true
		}
	}
	return 0, false
}

// Run measures every call.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Calls == 0 {
		opts.Calls = 200
	}
	if opts.Levels == nil {
		opts.Levels = []int{1, 8, 64}
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	calls := Calls
	if opts.Tools != nil {
		calls = nil
		for _, c := range Calls {
			if slices.Contains(opts.Tools, c.Tool) {
				calls = append(calls, c)
			}
		}
	}
	statements, err := capture(ctx, opts.DSN, calls)
	if err != nil {
		return nil, fmt.Errorf("capture the report SQL: %w", err)
	}
	url, pid, stop, err := opts.Server(ctx)
	if err != nil {
		return nil, fmt.Errorf("start the server: %w", err)
	}
	defer stop()
	pool, err := pgxpool.New(ctx, opts.DSN)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	res := &Result{When: time.Now().UTC(), Levels: opts.Levels}
	for _, c := range calls {
		tr := &ToolResult{Call: c, Statements: len(statements[c.Tool])}
		if err := measureBytes(ctx, url, opts.Token, tr); err != nil {
			return nil, err
		}
		for _, level := range opts.Levels {
			fmt.Fprintf(opts.Progress, "%-18s %2d clients: MCP over HTTP ...", c.Tool, level)
			m, err := measureMCP(ctx, url, opts.Token, c, opts.Calls, level)
			if err != nil {
				return nil, err
			}
			tr.MCP = append(tr.MCP, m)
			fmt.Fprintf(opts.Progress, " p50 %.2f ms", m.P50)
			if tr.Statements > 0 {
				s := measure(ctx, opts.Calls, level, func(ctx context.Context, _ int) error {
					return replay(ctx, pool, statements[c.Tool])
				})
				tr.SQL = append(tr.SQL, s)
				fmt.Fprintf(opts.Progress, "; same SQL with pgx: p50 %.2f ms", s.P50)
			}
			fmt.Fprintln(opts.Progress)
		}
		res.Tools = append(res.Tools, tr)
	}
	res.ServerRSS, err = memoryOf(pid)
	return res, err
}

type statement struct {
	sql  string
	args []any
}

// recorder is a store that remembers the plans it runs.
type recorder struct {
	reports.Store
	mu    sync.Mutex
	plans []*reports.Plan
}

func (r *recorder) Run(ctx context.Context, plans ...*reports.Plan) ([]*reports.Result, error) {
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
	st, err := store.Open(ctx, dsn, cat, nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	out := map[string][]statement{}
	for _, c := range calls {
		rec := &recorder{Store: st}
		ans := reports.New(cat, rec, nil).Call(ctx, reports.Caller{Person: "bench", Client: "bench"}, c.Tool, json.RawMessage(c.Args))
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

func replay(ctx context.Context, pool *pgxpool.Pool, stmts []statement) error {
	for _, s := range stmts {
		rows, err := pool.Query(ctx, s.sql, s.args...)
		if err != nil {
			return err
		}
		if _, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() }); err != nil {
			return err
		}
	}
	return nil
}

func connect(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: oauth.BearerTransport(token, &http.Transport{MaxIdleConnsPerHost: 256})}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "plumbline-bench", Version: "1"}, nil).Connect(ctx, tr, nil)
}

func measureMCP(ctx context.Context, url, token string, c Call, calls, level int) (*Stats, error) {
	sessions := make([]*mcp.ClientSession, level)
	for i := range sessions {
		cs, err := connect(ctx, url, token)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	return measure(ctx, calls, level, func(ctx context.Context, worker int) error {
		res, err := sessions[worker].CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(c.Args)})
		if err == nil && res.IsError {
			err = errors.New("the call was refused")
		}
		return err
	}), nil
}

func measureBytes(ctx context.Context, url, token string, tr *ToolResult) error {
	cs, err := connect(ctx, url, token)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tr.Tool, Arguments: json.RawMessage(tr.Args)})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s was refused", tr.Tool)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	tr.Bytes, tr.FigureBytes = len(structured), FigureBytes(string(structured))
	return nil
}

// measure runs fn calls times over level workers and summarises the
// latencies.
func measure(ctx context.Context, calls, level int, fn func(ctx context.Context, worker int) error) *Stats {
	if calls < level {
		calls = level
	}
	durations := make([]time.Duration, calls)
	var next, errs int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < level; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= int64(calls) {
					return
				}
				t := time.Now()
				err := fn(ctx, worker)
				durations[i] = time.Since(t)
				if err != nil {
					mu.Lock()
					errs++
					mu.Unlock()
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
	return &Stats{Concurrency: level, Calls: calls, Errors: int(errs), P50: pct(0.50), P95: pct(0.95), P99: pct(0.99),
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

// memoryOf reads a process's peak and current resident memory.
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
		}
	}
	return m, nil
}

// Process starts a plumbline binary serving dsn on a free loopback port and
// waits until it is listening.
func Process(bin, dsn string, extraArgs ...string) func(ctx context.Context) (string, int, func() error, error) {
	return func(ctx context.Context) (string, int, func() error, error) {
		args := append([]string{"serve", "--db", dsn, "--addr", "127.0.0.1:0", "--log-level", "info"}, extraArgs...)
		cmd := exec.CommandContext(ctx, bin, args...)
		logs, err := cmd.StderrPipe()
		if err != nil {
			return "", 0, nil, err
		}
		if err := cmd.Start(); err != nil {
			return "", 0, nil, err
		}
		stop := func() error {
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
