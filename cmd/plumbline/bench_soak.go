package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/catalog"
	"plumbline/internal/bench"
	"plumbline/internal/grants"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
	"plumbline/internal/server"
)

// soakFlags are bench --soak's choices.
type soakFlags struct {
	duration, interval time.Duration
	rate, clients      int
	logRows, logDays   int
	people, perMinute  int
	cacheMiB           int
	bin, out           string
}

// benchSoak is bench --soak: it mints the callers' tokens, fills the
// request log, starts the server with its runtime figures on a loopback
// address of their own, soaks it, printing a row a minute, and prints the
// verdict. A failed verdict is an error, after the table.
func benchSoak(ctx context.Context, cluster *pgcluster.Cluster, roles grants.Roles, sf soakFlags, s *streams) error {
	cat, err := catalog.Demo()
	if err != nil {
		return err
	}
	mix := bench.SoakMix(cat.Version(), time.Now())
	appDSN := cluster.LoginDSN(roles.App, provision.DemoDatabase)
	fmt.Fprintf(s.err, "minting %d service tokens ...\n", sf.people)
	addr, tokens, err := bench.ServiceTokens(ctx, appDSN, roles.Auth, sf.people)
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
	for i := range sf.people {
		persons = append(persons, fmt.Sprintf("service:bench-%d", i))
	}
	for i := range 40 {
		persons = append(persons, fmt.Sprintf("person-%02d@floor.example", i))
	}
	fmt.Fprintf(s.err, "filling the request log with %d calls over %d days ...\n", sf.logRows, sf.logDays)
	t := time.Now()
	if err := bench.SeedLog(ctx, pool, sf.logRows, sf.logDays, persons, mix); err != nil {
		return fmt.Errorf("fill the request log: %w", err)
	}
	seeded := time.Since(t)
	debugAddr, err := bench.FreeLoopback()
	if err != nil {
		return err
	}
	srv := bench.NamedServer{Name: "plumbline", Tokens: tokens, Start: bench.Process(sf.bin, "--addr", addr,
		"--calls-per-minute", strconv.Itoa(sf.perMinute), "--cache-mib", strconv.Itoa(sf.cacheMiB), "--debug-addr", debugAddr)}
	pace := "as fast as they go"
	if sf.rate > 0 {
		pace = fmt.Sprintf("%d calls/s in all", sf.rate)
	}
	fmt.Fprintf(s.out, "plumbline bench --soak %v: %d clients, %s, over %d calls of every tool and mode; the request log started with %d rows (filled in %.1fs)\n",
		sf.duration, sf.clients, pace, len(mix), sf.logRows, seeded.Seconds())
	fmt.Fprintln(s.out, bench.SoakHeader)
	res, err := bench.Soak(ctx, bench.SoakOptions{Server: srv, ServerDSN: appDSN, DSN: cluster.DSN(provision.DemoDatabase), Mix: mix,
		Clients: sf.clients, Rate: sf.rate, Duration: sf.duration, Interval: sf.interval, Runtime: bench.RuntimeAt("http://" + debugAddr + server.DebugPath),
		Row: func(r *bench.SoakRow) { fmt.Fprintln(s.out, r.Line()) }, Progress: s.err})
	if err != nil {
		return err
	}
	res.WriteVerdict(s.out)
	b, _ := json.MarshalIndent(struct {
		LogRows    int     `json:"log_rows_seeded"`
		SeedSecs   float64 `json:"seed_seconds"`
		People     int     `json:"people"`
		IntervalMs int64   `json:"interval_ms"`
		*bench.SoakResult
	}{sf.logRows, seeded.Seconds(), sf.people, sf.interval.Milliseconds(), res}, "", "  ")
	if err := os.WriteFile(sf.out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Wrote %s.\n", sf.out)
	if !res.Verdict.Pass {
		return errors.New("the soak failed: " + strings.Join(res.Verdict.Failed, "; "))
	}
	return nil
}
