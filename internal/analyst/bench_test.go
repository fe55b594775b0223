package analyst_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck"
	"plumbline/reports/ask"
)

// benchSQL is a statement an analyst agent writes: a week's sales by team,
// as the agents' teams were on each day.
const benchSQL = `SELECT h.team_key, sum(s.submitted) AS submitted, round(sum(s.submitted)::numeric / nullif(sum(s.submitted + s.lost), 0), 4)
	FROM metrics.agent_sales_daily s JOIN analytics.agent_team_history h ON h.agent_key = s.agent_key
	WHERE s.day BETWEEN date '2026-11-09' AND date '2026-11-15' GROUP BY 1 ORDER BY 2 DESC`

// starSQL is a statement whose select list is a *: a day's rows of a
// relation, whatever its columns.
const starSQL = `SELECT * FROM metrics.agent_sales_daily WHERE day = date '2026-11-17' ORDER BY submitted DESC`

// Side by side in one run: the parse and checks alone; the same statement
// run directly with pgx as the analyst, read-only, with the door's
// settings; a page of a SELECT * run by the door's store as the analyst,
// with its columns known and with PostgreSQL asked for them first (the
// round trip a * costs); and a whole call of the door (check, audit write,
// limit count, the run, the outcome), without MCP, for the join and for
// the SELECT *.
func BenchmarkDoor(b *testing.B) {
	f := newFloor(b, setup{perMinute: 1 << 30})
	ctx := context.Background()
	rows, err := f.sql.Query(ctx, sqlcheck.CatalogQuery)
	if err != nil {
		b.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	policy := &sqlcheck.Policy{Relations: []string{"analytics.agent_team_history", "metrics.agent_sales_daily"}, Catalog: map[string]bool{}}
	for _, n := range names {
		policy.Catalog[n] = true
	}
	st, err := sqlcheck.Check(benchSQL, policy)
	if err != nil {
		b.Fatal(err)
	}
	paged, err := st.Paged(st.Columns)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, err := sqlcheck.Check(benchSQL, policy); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		conn, err := pgx.Connect(ctx, f.db.AgentDSN)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		for b.Loop() {
			err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "SELECT set_config('role', $1, true), set_config('work_mem', '16MB', true)", pgtest.Roles.Analyst); err != nil {
					return err
				}
				rows, err := tx.Query(ctx, paged, analyst.MaxPageSize+1, 0)
				if err != nil {
					return err
				}
				_, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	star, err := sqlcheck.Check(starSQL, &sqlcheck.Policy{Relations: []string{"metrics.agent_sales_daily"}})
	if err != nil {
		b.Fatal(err)
	}
	tx := pgstore.Tx{Role: pgtest.Roles.Analyst, Discard: true}
	page := func(bt *pgx.Batch, paged string) {
		bt.Queue(paged, analyst.MaxPageSize+1, 0).Query(func(rows pgx.Rows) error {
			_, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
			return err
		})
	}
	var starPaged string
	b.Run("star-described", func(b *testing.B) {
		for b.Loop() {
			err := f.door.Store().BatchDescribing(ctx, tx, func(*pgx.Batch) {}, star.SQL, func(desc *pgconn.StatementDescription, bt *pgx.Batch) error {
				var err error
				starPaged, err = star.Paged(len(desc.Fields))
				page(bt, starPaged)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("star-known", func(b *testing.B) {
		for b.Loop() {
			if err := f.door.Store().Batch(ctx, tx, func(bt *pgx.Batch) { page(bt, starPaged) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bb := range []struct{ name, sql string }{{"door", benchSQL}, {"door-star", starSQL}} {
		b.Run(bb.name, func(b *testing.B) {
			caller := ask.Caller{Person: "service:bench", Client: "bench", Tools: []string{analyst.ToolName}}
			args, _ := json.Marshal(map[string]any{"sql": bb.sql})
			for b.Loop() {
				if a := f.door.Call(ctx, caller, args); a.Refused {
					b.Fatalf("%+v", a.Body)
				}
			}
		})
	}
}

// Eight statements at once whose answers would each be 100 MB of values
// (50 rows of 2 MB), through the whole server: MCP over HTTP, the check,
// the audit and the run. It reports the process's resident memory at its
// peak over the calls, and that peak over what it was idle, after a first
// call: the door reads no more than its bounds, so eight such calls cost
// what eight small ones do.
func BenchmarkEightLongAnswersAtOnce(b *testing.B) {
	f := newFloor(b, setup{perMinute: 1 << 30})
	cs := f.client(b, f.serviceToken(b, "floor-analyst", "reports:read", "analyst:sql"))
	call := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: analyst.ToolName,
			Arguments: map[string]any{"sql": "SELECT lpad('', 2000000, 'x') FROM generate_series(1, 50)"}})
		if err != nil {
			b.Error(err)
		} else if !res.IsError {
			b.Error("a 2 MB value was answered")
		}
	}
	call()
	runtime.GC()
	debug.FreeOSMemory()
	idle := rssKiB(b)
	peak := idle
	for b.Loop() {
		done := make(chan struct{})
		sampled := make(chan int)
		go func() {
			top := 0
			for {
				top = max(top, rssKiB(b))
				select {
				case <-done:
					sampled <- top
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(call)
		}
		wg.Wait()
		close(done)
		peak = max(peak, <-sampled)
	}
	b.ReportMetric(float64(peak)/1024, "peak-rss-MiB")
	b.ReportMetric(float64(peak-idle)/1024, "rss-over-idle-MiB")
}

// rssKiB reads the process's resident memory, in KiB.
func rssKiB(tb testing.TB) int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// Statements the statement timeout must end, each run alone through the
// door with its default timeout of 10 s, while the database is watched
// every 10 ms: for each, how long the call took and how long the
// statement ran on the server (till its backend was last seen running
// it), reported as the longest of each past the timeout. A statement is
// over within the timeout and a second.
func BenchmarkStatementsEndInTime(b *testing.B) {
	f := newFloor(b, setup{perMinute: 1 << 30})
	ctx := context.Background()
	caller := ask.Caller{Person: "service:bench", Client: "bench", Tools: []string{analyst.ToolName}}
	statements := []string{
		"SELECT 'probe-cross', count(*) FROM metrics.agent_sales_daily a, metrics.agent_sales_daily b, metrics.agent_sales_daily c",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 'probe-recursive', count(*) FROM r",
		"SELECT 'probe-regex', count(*) FROM generate_series(1, 1000000000) n WHERE md5(n::text) ~ '^(a|b|ab)*c$'",
		"SELECT 'probe-sort', lpad('', 1000, n::text) FROM generate_series(1, 100000000) n ORDER BY 2 DESC",
		"SELECT 'probe-agg', length(string_agg(lpad('', 100000, n::text), '')) FROM generate_series(1, 1000000) n",
		"SELECT 'probe-answer', lpad('', 2000000, 'x') FROM generate_series(1, 50)",
		"SELECT 'probe-array', array_agg(lpad('', 100000, n::text)) FROM generate_series(1, 8000) n",
	}
	worstCall, worstRun := time.Duration(0), time.Duration(0)
	for b.Loop() {
		for _, sql := range statements {
			probe := sql[strings.Index(sql, "'probe-")+1:]
			probe = probe[:strings.Index(probe, "'")]
			args, _ := json.Marshal(map[string]any{"sql": sql})
			start := time.Now()
			watched := make(chan time.Time)
			stop := make(chan struct{})
			go func() {
				conn, err := pgx.Connect(ctx, f.db.DSN)
				if err != nil {
					b.Error(err)
					watched <- time.Time{}
					return
				}
				defer conn.Close(ctx)
				var last time.Time
				for {
					var running bool
					err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
						WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid())`, probe).Scan(&running)
					if err != nil {
						b.Error(err)
					}
					if running {
						last = time.Now()
					}
					select {
					case <-stop:
						if !running {
							watched <- last
							return
						}
					case <-time.After(10 * time.Millisecond):
					}
				}
			}()
			a := f.door.Call(ctx, caller, args)
			took := time.Since(start)
			close(stop)
			ran := (<-watched).Sub(start)
			outcome := "answered"
			if body, ok := a.Body.(*analyst.RefusalAnswer); ok {
				outcome = body.Error.Check
			}
			b.Logf("%-16s call %5.2fs, ran %5.2fs on the server (%s)", probe, took.Seconds(), ran.Seconds(), outcome)
			worstCall, worstRun = max(worstCall, took), max(worstRun, ran)
		}
	}
	b.ReportMetric((worstCall - analyst.DefaultStatementTimeout).Seconds(), "call-past-timeout-s")
	b.ReportMetric((worstRun - analyst.DefaultStatementTimeout).Seconds(), "run-past-timeout-s")
}
