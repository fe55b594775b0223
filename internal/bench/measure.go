package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/catalog"
	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
	"plumbline/internal/server"
)

// Config is what plumbline-bench measures: the floor, the servers, which
// measurement (paired rounds, bytes or a soak) and where the results go.
type Config struct {
	Agents, Days, Seed int
	Rounds, Calls      int
	People, PerMinute  int
	CacheMiB           int
	// Bin is the plumbline binary whose server is measured; Baseline, if
	// set, another measured beside it in the same rounds.
	Bin, Baseline string
	Fsync, Bytes  bool
	JSON, Charts  string
	Soak          SoakConfig

	levels, tools string
	// Levels and Tools are the parsed --levels and --tools, set by Check.
	Levels []int
	Tools  []string
}

// SoakConfig is plumbline-bench --soak's choices; a zero Duration soaks nothing.
type SoakConfig struct {
	Duration, Interval              time.Duration
	Rate, Clients, LogRows, LogDays int
}

// RegisterFlags registers plumbline-bench's flags on fs, each filling its
// field of c.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.Agents, "agents", demofloor.DefaultAgents, "agents on the generated floor (the demo floor has 96)")
	fs.IntVar(&c.Days, "days", demofloor.DefaultDays, "days of history on the generated floor")
	fs.IntVar(&c.Seed, "seed", demofloor.DefaultSeed, "seed of the generated floor")
	fs.IntVar(&c.Rounds, "rounds", 200, "paired rounds per tool")
	fs.IntVar(&c.Calls, "calls", 200, "calls per tool at each level of concurrency")
	fs.StringVar(&c.levels, "levels", "1,8,64", "comma-separated `levels` of concurrency")
	fs.StringVar(&c.tools, "tools", "", "comma-separated `tools` to measure (default: all)")
	fs.IntVar(&c.People, "people", 2000, "service tokens the calls go round, each one caller held to the limit")
	fs.IntVar(&c.PerMinute, "calls-per-minute", limits.DefaultPerMinute, "the servers' per-person limit; 0 for none")
	fs.StringVar(&c.Baseline, "baseline", "", "another plumbline `binary` (an earlier build, say) whose server is measured beside --bin's, in the same rounds")
	fs.BoolVar(&c.Fsync, "fsync", true, "durable commits, as in production; false measures without waiting for the disk")
	fs.IntVar(&c.CacheMiB, "cache-mib", 0, "also measure --bin's server keeping settled answers in a cache of this many MiB, as \"cached\", beside the one that computes every call; 0 (the default) measures only that one (with --soak: the soaked server's cache)")
	fs.StringVar(&c.JSON, "json", "bench.json", "write the results to this JSON `file`")
	fs.StringVar(&c.Charts, "charts", "", "draw latency and added-time charts into this `directory`, as SVG")
	fs.BoolVar(&c.Bytes, "bytes", false, "measure only what the model reads: each answer's bytes, first call, compact and known_definitions")
	fs.StringVar(&c.Bin, "bin", "", "the plumbline `binary` whose server is measured (default: the plumbline beside plumbline-bench)")
	s := &c.Soak
	fs.DurationVar(&s.Duration, "soak", 0, "soak the server for this long instead: clients over a mix of every tool and mode, a row a --soak-interval, a verdict at the end")
	fs.IntVar(&s.Rate, "soak-rate", 0, "the soak's calls per second, all clients together; 0 calls as fast as they go")
	fs.IntVar(&s.Clients, "soak-clients", 64, "clients calling at once in the soak, each over a session of its own")
	fs.DurationVar(&s.Interval, "soak-interval", time.Minute, "the time a row of the soak's table covers")
	fs.IntVar(&s.LogRows, "soak-log-rows", 1_000_000, "calls the request log holds when the soak starts, spread over --soak-log-days")
	fs.IntVar(&s.LogDays, "soak-log-days", 90, "days before now the request log's first calls spread over")
}

// Check checks the flags' values together and parses the lists; its
// errors name the flag and the rule, never the value.
func (c *Config) Check() error {
	s := c.Soak
	if s.Duration > 0 && (c.Baseline != "" || c.Bytes) {
		return errors.New("--soak soaks one server, --bin's; --baseline and --bytes are for the other measurements")
	}
	if s.Duration < 0 || s.Rate < 0 || s.Clients < 1 || s.Interval <= 0 || s.LogRows < 0 || s.LogDays < 1 {
		return errors.New("--soak, --soak-rate and --soak-log-rows must not be negative, --soak-clients and --soak-log-days at least 1, --soak-interval positive")
	}
	c.Levels = nil
	for _, part := range strings.Split(c.levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 512 {
			return errors.New("--levels must be whole numbers from 1 to 512, such as 1,8,64")
		}
		c.Levels = append(c.Levels, n)
	}
	if c.People < 1 || c.Rounds < 1 || c.Calls < 1 {
		return errors.New("--people, --rounds and --calls must be at least 1")
	}
	c.Tools = nil
	if c.tools != "" {
		c.Tools = strings.Split(c.tools, ",")
	}
	return nil
}

// Measure runs the measurement c chooses on a private PostgreSQL cluster
// holding a generated floor, provisioned as in production: it prints the
// table to out and progress to progress, and writes the JSON (and charts).
// c.Bin must be set and c checked.
func Measure(ctx context.Context, c *Config, out, progress io.Writer) error {
	dir, err := os.MkdirTemp("", "plumbline-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(progress, "Starting a private PostgreSQL cluster ...\n")
	cluster, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: !c.Fsync})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	opts := demofloor.Options{Seed: uint64(c.Seed), Now: time.Now(), Agents: c.Agents, Days: c.Days}
	roles := grants.DefaultRoles()
	gs, err := grants.LoadDir("")
	if err != nil {
		return err
	}
	if err := provision.Demo(ctx, cluster, opts, roles, grants.DefaultLimits(), gs, progress); err != nil {
		return err
	}
	if c.Soak.Duration > 0 {
		if c.JSON == "bench.json" {
			c.JSON = "soak.json"
		}
		return soak(ctx, cluster, roles, c, out, progress)
	}
	// The servers sign in as plumbline's login, as in production; each
	// listens on an address of its own, which its tokens are bound to.
	appDSN := cluster.LoginDSN(roles.App, provision.DemoDatabase)
	// Every server computes every call, but "cached", which keeps
	// settled answers.
	type measured struct {
		name, path string
		cacheMiB   int
	}
	bins := []measured{{"plumbline", c.Bin, 0}}
	if c.CacheMiB > 0 {
		bins = append(bins, measured{"cached", c.Bin, c.CacheMiB})
	}
	if c.Baseline != "" {
		bins = append(bins, measured{"baseline", c.Baseline, 0})
	}
	var servers []NamedServer
	for _, b := range bins {
		fmt.Fprintf(progress, "%s: minting %d service tokens ...\n", b.name, c.People)
		addr, tokens, err := ServiceTokens(ctx, appDSN, roles.Auth, c.People)
		if err != nil {
			return err
		}
		args := []string{"--addr", addr, "--calls-per-minute", strconv.Itoa(c.PerMinute)}
		// A baseline may be older than the answer cache, and then keeps
		// none.
		if b.path == c.Bin || servesFlag(ctx, b.path, "cache-mib") {
			args = append(args, "--cache-mib", strconv.Itoa(b.cacheMiB))
		}
		// What the model reads is measured with the wire a client on
		// another machine gets.
		if c.Bytes && servesFlag(ctx, b.path, "compress") {
			args = append(args, "--compress", mcpserver.CompressAlways)
		}
		servers = append(servers, NamedServer{Name: b.name, Tokens: tokens, Start: Process(b.path, args...)})
	}
	if c.Bytes {
		return bytesOf(ctx, servers[0], appDSN, c.JSON, out, progress)
	}
	res, err := Run(ctx, Options{
		DSN: cluster.DSN(provision.DemoDatabase), ServerDSN: appDSN, Servers: servers,
		Rounds: c.Rounds, Calls: c.Calls, Levels: c.Levels, Tools: c.Tools, Progress: progress,
	})
	if err != nil {
		return err
	}
	res.WriteTable(out, c.Agents, c.Days, c.PerMinute, c.Fsync)
	if err := writeJSON(c.JSON, struct {
		Agents         int  `json:"agents"`
		Days           int  `json:"days"`
		CallsPerMinute int  `json:"calls_per_minute"`
		People         int  `json:"people"`
		Fsync          bool `json:"fsync"`
		*Result
	}{c.Agents, c.Days, c.PerMinute, c.People, c.Fsync, res}, progress); err != nil {
		return err
	}
	if c.Charts != "" {
		files, err := Charts(res, c.Charts)
		if err != nil {
			return err
		}
		fmt.Fprintf(progress, "Drew %s.\n", strings.Join(files, ", "))
	}
	return nil
}

// bytesOf is bench --bytes: it starts the server, measures the bytes of
// every answer of ByteCalls in each mode, prints them as a table and
// writes them as JSON.
func bytesOf(ctx context.Context, srv NamedServer, dsn, file string, out, progress io.Writer) error {
	url, _, stop, err := srv.Start(ctx, dsn)
	if err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	defer stop()
	cat, err := catalog.Demo()
	if err != nil {
		return err
	}
	res, err := MeasureBytes(ctx, url, srv.Tokens[0], time.Now(), cat.Zone())
	if err != nil {
		return err
	}
	res.WriteTable(out)
	return writeJSON(file, res, progress)
}

// soak is bench --soak: it mints the callers' tokens, fills the request
// log, starts the server with its runtime figures on a loopback address of
// their own, soaks it, printing a row an interval, and prints the verdict.
// A failed verdict is an error, after the table.
func soak(ctx context.Context, cluster *pgcluster.Cluster, roles grants.Roles, c *Config, out, progress io.Writer) error {
	sc := c.Soak
	cat, err := catalog.Demo()
	if err != nil {
		return err
	}
	mix := SoakMix(cat.Version(), time.Now())
	appDSN := cluster.LoginDSN(roles.App, provision.DemoDatabase)
	fmt.Fprintf(progress, "minting %d service tokens ...\n", c.People)
	addr, tokens, err := ServiceTokens(ctx, appDSN, roles.Auth, c.People)
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, cluster.DSN(provision.DemoDatabase))
	if err != nil {
		return err
	}
	defer pool.Close()
	// The log's persons are the soak's own callers and people of the floor.
	var persons []string
	for i := range c.People {
		persons = append(persons, fmt.Sprintf("service:bench-%d", i))
	}
	for i := range 40 {
		persons = append(persons, fmt.Sprintf("person-%02d@floor.example", i))
	}
	fmt.Fprintf(progress, "filling the request log with %d calls over %d days ...\n", sc.LogRows, sc.LogDays)
	t := time.Now()
	if err := SeedLog(ctx, pool, sc.LogRows, sc.LogDays, persons, mix); err != nil {
		return fmt.Errorf("fill the request log: %w", err)
	}
	seeded := time.Since(t)
	debugAddr, err := FreeLoopback()
	if err != nil {
		return err
	}
	srv := NamedServer{Name: "plumbline", Tokens: tokens, Start: Process(c.Bin, "--addr", addr,
		"--calls-per-minute", strconv.Itoa(c.PerMinute), "--cache-mib", strconv.Itoa(c.CacheMiB), "--debug-addr", debugAddr)}
	pace := "as fast as they go"
	if sc.Rate > 0 {
		pace = fmt.Sprintf("%d calls/s in all", sc.Rate)
	}
	fmt.Fprintf(out, "plumbline-bench --soak %v: %d clients, %s, over %d calls of every tool and mode; the request log started with %d rows (filled in %.1fs)\n",
		sc.Duration, sc.Clients, pace, len(mix), sc.LogRows, seeded.Seconds())
	fmt.Fprintln(out, SoakHeader)
	res, err := Soak(ctx, SoakOptions{Server: srv, ServerDSN: appDSN, DSN: cluster.DSN(provision.DemoDatabase), Mix: mix,
		Clients: sc.Clients, Rate: sc.Rate, Duration: sc.Duration, Interval: sc.Interval, Runtime: RuntimeAt("http://" + debugAddr + server.DebugPath),
		Row: func(r *SoakRow) { fmt.Fprintln(out, r.Line()) }, Progress: progress})
	if err != nil {
		return err
	}
	res.WriteVerdict(out)
	if err := writeJSON(c.JSON, struct {
		LogRows    int     `json:"log_rows_seeded"`
		SeedSecs   float64 `json:"seed_seconds"`
		People     int     `json:"people"`
		IntervalMs int64   `json:"interval_ms"`
		*SoakResult
	}{sc.LogRows, seeded.Seconds(), c.People, sc.Interval.Milliseconds(), res}, progress); err != nil {
		return err
	}
	if !res.Verdict.Pass {
		return errors.New("the soak failed: " + strings.Join(res.Verdict.Failed, "; "))
	}
	return nil
}

// writeJSON writes v, indented, to file and says so on progress.
func writeJSON(file string, v any, progress io.Writer) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(progress, "Wrote %s.\n", file)
	return nil
}

// servesFlag reports whether the serve command of the plumbline binary at
// path takes a flag, as its help lists it.
func servesFlag(ctx context.Context, path, flag string) bool {
	help, _ := exec.CommandContext(ctx, path, "help", "serve").CombinedOutput()
	return bytes.Contains(help, []byte("\n  -"+flag+" "))
}
