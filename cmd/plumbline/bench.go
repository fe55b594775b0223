package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/bench"
	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
)

const benchHelp = `
Usage: plumbline bench [flags]

Measure plumbline against the limit the database sets. bench starts a private
PostgreSQL cluster, generates a floor of the size asked for, starts a real
plumbline server process on it, and then for each tool measures side by side,
in one run:

  - the whole MCP call over Streamable HTTP (the go-sdk client), and
  - the same report SQL run directly with pgx,

at each level of concurrency: p50, p95 and p99 latency and calls per second.
It also reads the server's peak memory (RSS) and splits each answer's bytes
into figures and everything else. It prints a table, writes the results as
JSON, and with --png draws latency and overhead charts. The cluster is
removed afterwards.

Examples:
  plumbline bench                                  # the demo floor's size
  plumbline bench --agents 960 --days 400          # ten times the demo floor
  plumbline bench --tools sales,league --calls 50 --levels 1,8
  plumbline bench --bytes --json bytes.json        # what the model reads, per tool
  plumbline bench --bytes --bin ./plumbline-v1     # the same of another build's server
`

func init() {
	register("bench", command{summary: "measure each tool over MCP against the same SQL run directly", help: benchHelp, run: benchCmd})
}

func benchCmd(ctx context.Context, args []string, s *streams) error {
	f := newFlags("bench", benchHelp, s)
	agents := f.int("agents", demofloor.DefaultAgents, "agents on the generated floor")
	days := f.int("days", demofloor.DefaultDays, "days of history on the generated floor")
	seed := f.int("seed", demofloor.DefaultSeed, "seed of the generated floor")
	calls := f.int("calls", 200, "calls per tool at each level of concurrency")
	levels := f.string("levels", "1,8,64", "comma-separated `levels` of concurrency")
	tools := f.string("tools", "", "comma-separated `tools` to measure (default: all)")
	out := f.string("json", "bench.json", "write the results to this JSON `file`")
	png := f.string("png", "", "draw latency and overhead charts into this `directory`")
	bytesOnly := f.boolean("bytes", false, "measure only what the model reads: each answer's bytes, first call, compact and known_definitions")
	serverBin := f.string("bin", "", "run the server of this plumbline `binary` instead of this one's, to compare builds")
	if _, err := f.parse(args); err != nil {
		return err
	}
	var lv []int
	for _, part := range strings.Split(*levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 512 {
			return fmt.Errorf("%w: --levels must be whole numbers from 1 to 512, such as 1,8,64", errUsage)
		}
		lv = append(lv, n)
	}
	var only []string
	if *tools != "" {
		only = strings.Split(*tools, ",")
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	if *serverBin != "" {
		bin = *serverBin
	}
	dir, err := os.MkdirTemp("", "plumbline-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(s.err, "Starting a private PostgreSQL cluster ...\n")
	cluster, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: true})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	opts := demofloor.Options{Seed: uint64(*seed), Now: time.Now(), Agents: *agents, Days: *days}
	roles := grants.DefaultRoles()
	gs, err := loadGrants("")
	if err != nil {
		return err
	}
	if err := prepareDemo(ctx, cluster, opts, roles, gs, &streams{out: s.err, err: s.err}); err != nil {
		return err
	}
	// The server signs in as plumbline's login, as in production, with no
	// per-person limit: every call of the bench comes from one service,
	// whose token is bound to the address the server will listen on.
	appDSN := cluster.LoginDSN(roles.App, demoDatabase)
	addr, token, err := benchToken(ctx, appDSN, roles.Auth)
	if err != nil {
		return err
	}
	server := bench.Process(bin, appDSN, "--addr", addr, "--calls-per-minute", "0")
	if *bytesOnly {
		return benchBytes(ctx, server, token, *out, s)
	}
	res, err := bench.Run(ctx, bench.Options{
		DSN: cluster.DSN(demoDatabase), Server: server, Token: token,
		Calls: *calls, Levels: lv, Tools: only, Progress: s.err,
	})
	if err != nil {
		return err
	}
	printBench(s.out, res, *agents, *days)
	b, _ := json.MarshalIndent(struct {
		Agents int `json:"agents"`
		Days   int `json:"days"`
		*bench.Result
	}{*agents, *days, res}, "", "  ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Wrote %s.\n", *out)
	if *png != "" {
		files, err := bench.Charts(res, *png)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.err, "Drew %s.\n", strings.Join(files, ", "))
	}
	return nil
}

// printBench writes the results as an aligned table: one row per tool and
// level of concurrency.
func printBench(w io.Writer, res *bench.Result, agents, days int) {
	fmt.Fprintf(w, "plumbline bench: %d agents, %d days; server peak RSS %.1f MiB\n\n", agents, days, float64(res.ServerRSS.PeakKiB)/1024)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\tclients\tMCP p50 ms\tp95\tp99\tcalls/s\tSQL p50 ms\tcalls/s\toverhead\tbytes\tfigures\t")
	for _, t := range res.Tools {
		for i, m := range t.MCP {
			sqlP50, sqlRate, overhead := "-", "-", "-"
			if i < len(t.SQL) {
				sqlP50, sqlRate = fmt.Sprintf("%.2f", t.SQL[i].P50), fmt.Sprintf("%.0f", t.SQL[i].PerSecond)
				o, _ := t.Overhead(m.Concurrency)
				overhead = fmt.Sprintf("%.0f%%", 100*o)
			}
			bytes, figures := "", ""
			if i == 0 {
				bytes, figures = strconv.Itoa(t.Bytes), fmt.Sprintf("%.0f%%", 100*float64(t.FigureBytes)/float64(t.Bytes))
			}
			errs := ""
			if m.Errors > 0 {
				errs = fmt.Sprintf(" (%d errors)", m.Errors)
			}
			fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.0f%s\t%s\t%s\t%s\t%s\t%s\t\n",
				t.Tool, m.Concurrency, m.P50, m.P95, m.P99, m.PerSecond, errs, sqlP50, sqlRate, overhead, bytes, figures)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\noverhead: the share of the MCP call's median not spent in the report SQL (governance, request log, HTTP, JSON).")
}

// benchToken picks a free loopback address for the server and mints a
// service token for it, with every scope, so the bench calls every tool.
func benchToken(ctx context.Context, appDSN, authRole string) (addr, token string, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", err
	}
	addr = l.Addr().String()
	l.Close()
	pool, err := pgxpool.New(ctx, appDSN)
	if err != nil {
		return "", "", err
	}
	defer pool.Close()
	cfg := oauth.Config{BaseURL: "http://" + addr}
	token, _, err = oauth.NewStore(pool, authRole).CreateServiceToken(ctx, &cfg, "bench", oauth.Scopes, 24*time.Hour)
	return addr, token, err
}
