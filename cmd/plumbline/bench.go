package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"plumbline/internal/bench"
	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/limits"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
)

func benchCmd(ctx context.Context, args []string, s *streams) error {
	f := newFlags("bench", helpText("bench"), s)
	agents := f.int("agents", demofloor.DefaultAgents, "agents on the generated floor (the demo floor has 96)")
	days := f.int("days", demofloor.DefaultDays, "days of history on the generated floor")
	seed := f.int("seed", demofloor.DefaultSeed, "seed of the generated floor")
	rounds := f.int("rounds", 200, "paired rounds per tool")
	calls := f.int("calls", 200, "calls per tool at each level of concurrency")
	levels := f.string("levels", "1,8,64", "comma-separated `levels` of concurrency")
	tools := f.string("tools", "", "comma-separated `tools` to measure (default: all)")
	people := f.int("people", 2000, "service tokens the calls go round, each one caller held to the limit")
	perMinute := f.int("calls-per-minute", limits.DefaultPerMinute, "the servers' per-person limit; 0 for none")
	baseline := f.string("baseline", "", "another plumbline `binary` to measure beside this one, in the same rounds")
	fsync := f.boolean("fsync", true, "durable commits, as in production; false measures without waiting for the disk")
	cacheMiB := f.int("cache-mib", 0, "the answer cache of the server measured, in MiB; 0 (the default) computes every call, so that calls measure the work")
	out := f.string("json", "bench.json", "write the results to this JSON `file`")
	png := f.string("png", "", "draw latency and added-time charts into this `directory`")
	bytesOnly := f.boolean("bytes", false, "measure only what the model reads: each answer's bytes, first call, compact and known_definitions")
	serverBin := f.string("bin", "", "run the server of this plumbline `binary` instead of this one's, to compare builds")
	soak := f.duration("soak", 0, "soak the server for this long instead: clients over a mix of every tool and mode, a row a --soak-interval, a verdict at the end")
	soakRate := f.int("soak-rate", 0, "the soak's calls per second, all clients together; 0 calls as fast as they go")
	soakClients := f.int("soak-clients", 64, "clients calling at once in the soak, each over a session of its own")
	soakInterval := f.duration("soak-interval", time.Minute, "the time a row of the soak's table covers")
	soakLogRows := f.int("soak-log-rows", 1_000_000, "calls the request log holds when the soak starts, spread over --soak-log-days")
	soakLogDays := f.int("soak-log-days", 90, "days before now the request log's first calls spread over")
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *soak > 0 && (*baseline != "" || *bytesOnly) {
		return fmt.Errorf("%w: --soak soaks one server, this binary's or --bin's; --baseline and --bytes are for the other measurements", errUsage)
	}
	if *soak < 0 || *soakRate < 0 || *soakClients < 1 || *soakInterval <= 0 || *soakLogRows < 0 || *soakLogDays < 1 {
		return fmt.Errorf("%w: --soak, --soak-rate and --soak-log-rows must not be negative, --soak-clients and --soak-log-days at least 1, --soak-interval positive", errUsage)
	}
	var lv []int
	for _, part := range strings.Split(*levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 512 {
			return fmt.Errorf("%w: --levels must be whole numbers from 1 to 512, such as 1,8,64", errUsage)
		}
		lv = append(lv, n)
	}
	if *people < 1 || *rounds < 1 || *calls < 1 {
		return fmt.Errorf("%w: --people, --rounds and --calls must be at least 1", errUsage)
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
	bins := []struct{ name, path string }{{"plumbline", bin}}
	if *baseline != "" {
		bins = append(bins, struct{ name, path string }{"baseline", *baseline})
	}
	dir, err := os.MkdirTemp("", "plumbline-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(s.err, "Starting a private PostgreSQL cluster ...\n")
	cluster, err := pgcluster.Start(ctx, dir, pgcluster.Options{Ephemeral: !*fsync})
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
	if err := provision.Demo(ctx, cluster, opts, roles, gs, s.err); err != nil {
		return err
	}
	if *soak > 0 {
		if *out == "bench.json" {
			*out = "soak.json"
		}
		return benchSoak(ctx, cluster, roles, soakFlags{duration: *soak, interval: *soakInterval, rate: *soakRate, clients: *soakClients,
			logRows: *soakLogRows, logDays: *soakLogDays, people: *people, perMinute: *perMinute, cacheMiB: *cacheMiB, bin: bin, out: *out}, s)
	}
	// The servers sign in as plumbline's login, as in production; each
	// listens on an address of its own, which its tokens are bound to.
	appDSN := cluster.LoginDSN(roles.App, provision.DemoDatabase)
	var servers []bench.NamedServer
	for i, b := range bins {
		fmt.Fprintf(s.err, "%s: minting %d service tokens ...\n", b.name, *people)
		addr, tokens, err := bench.ServiceTokens(ctx, appDSN, roles.Auth, *people)
		if err != nil {
			return err
		}
		args := []string{"--addr", addr, "--calls-per-minute", strconv.Itoa(*perMinute)}
		if i == 0 {
			// A baseline may be older than the answer cache; this binary
			// has one, and it is told its size.
			args = append(args, "--cache-mib", strconv.Itoa(*cacheMiB))
		}
		servers = append(servers, bench.NamedServer{Name: b.name, Tokens: tokens, Start: bench.Process(b.path, args...)})
	}
	if *bytesOnly {
		return benchBytes(ctx, servers[0].Start, appDSN, servers[0].Tokens[0], *out, s)
	}
	res, err := bench.Run(ctx, bench.Options{
		DSN: cluster.DSN(provision.DemoDatabase), ServerDSN: appDSN, Servers: servers,
		Rounds: *rounds, Calls: *calls, Levels: lv, Tools: only, Progress: s.err,
	})
	if err != nil {
		return err
	}
	res.WriteTable(s.out, *agents, *days, *perMinute, *fsync)
	b, _ := json.MarshalIndent(struct {
		Agents         int  `json:"agents"`
		Days           int  `json:"days"`
		CallsPerMinute int  `json:"calls_per_minute"`
		People         int  `json:"people"`
		Fsync          bool `json:"fsync"`
		*bench.Result
	}{*agents, *days, *perMinute, *people, *fsync, res}, "", "  ")
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
