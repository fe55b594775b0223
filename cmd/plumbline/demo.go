package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"plumbline/internal/config"
	"plumbline/internal/demofloor"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
	"plumbline/internal/server"
	"plumbline/internal/terminal"
)

func demo(ctx context.Context, args []string, s *streams) error {
	f := newFlags("demo", helpText("demo"), s)
	dir := f.string("dir", ".plumbline", "`directory` for the private PostgreSQL cluster")
	nowFlag := f.string("now", "", "generate and answer as of this RFC 3339 `moment` instead of the clock")
	seed := f.int("seed", demofloor.DefaultSeed, "seed of the generated floor")
	agents := f.int("agents", demofloor.DefaultAgents, "agents on the generated floor")
	days := f.int("days", demofloor.DefaultDays, "days of history on the generated floor")
	as := f.choice("as", "lead", "whose token the printed configurations carry: lead (the Falcons' lead, who sees that team only) "+
		"or floor-manager (who sees every team); both are kept in --dir", "lead", "floor-manager")
	sf := addServerFlags(f, true)
	if _, err := f.parse(args); err != nil {
		return err
	}
	now, clock := time.Now(), time.Now
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return fmt.Errorf("%w: --now must be an RFC 3339 time such as 2026-11-18T14:30:00-05:00", errUsage)
		}
		now, clock = t, func() time.Time { return t }
	}
	log, stopDebug, err := sf.logging(s.err)
	if err != nil {
		return err
	}
	defer stopDebug()
	roles := sf.Roles
	if err := checkRoles(roles); err != nil {
		return err
	}
	gs, err := sf.grants.Load()
	if err != nil {
		return err
	}
	ags, err := sf.grants.LoadAnalyst()
	if err != nil {
		return err
	}

	fmt.Fprintf(s.out, "Starting PostgreSQL in %s ...\n", *dir)
	cluster, err := pgcluster.Start(ctx, *dir, pgcluster.Options{KeepPort: true})
	if err != nil {
		return err
	}
	if abs, _ := filepath.Abs(*dir); cluster.Dir() != abs {
		fmt.Fprintf(s.out, "(kept in %s: the postgres user it runs as cannot reach %s)\n", cluster.Dir(), *dir)
	}
	defer func() {
		fmt.Fprintln(s.out, "Stopping PostgreSQL.")
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(s.err, "plumbline demo: stop PostgreSQL:", err)
		}
	}()
	opts := demofloor.Options{Seed: uint64(*seed), Now: now, Agents: *agents, Days: *days}
	if err := provision.Demo(ctx, cluster, opts, roles, sf.Analyst.Limits, append(gs, ags...), s.out); err != nil {
		return err
	}
	people, err := provision.DemoMembers(ctx, cluster.DSN(provision.DemoDatabase), roles.Auth, opts)
	if err != nil {
		return err
	}
	// plumbline signs in as its login; the superuser is for psql.
	appDSN := cluster.LoginDSN(roles.App, provision.DemoDatabase)
	if sf.Analyst.DSN == "" {
		sf.Analyst.DSN = cluster.LoginDSN(roles.Agent, provision.DemoDatabase)
	}
	settings, err := sf.settings(clock, log)
	if err != nil {
		return err
	}
	// The metrics keep their port across runs, as the cluster does, while
	// it is free: a scrape configured once keeps working.
	metricsPortFile := filepath.Join(cluster.Dir(), "metrics-port")
	if f.sources["metrics-addr"].Kind == config.Default {
		settings.MetricsAddr = keptMetricsAddr(metricsPortFile, settings.MetricsAddr)
	}
	// The tokens are kept in --dir even when the cluster lives elsewhere, so
	// that .plumbline/demo-token and .plumbline/floor-manager-token are
	// where the README says.
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	return server.RunHTTP(ctx, appDSN, settings, &sf.auth, func(cfg *oauth.Config, metricsURL string) error {
		store, closeStore, err := sf.auth.Store(ctx, appDSN, nil)
		if err != nil {
			return err
		}
		defer closeStore()
		lead := terminal.DemoPerson{Name: people.Lead.Name, Email: people.Lead.Email, TokenFile: filepath.Join(*dir, provision.DemoTokenFile)}
		leadToken, err := provision.DemoToken(ctx, store, cfg, people.Lead, *dir, provision.DemoTokenFile)
		if err != nil {
			return err
		}
		floor := terminal.DemoPerson{Name: people.FloorManager.Name, Email: people.FloorManager.Email,
			TokenFile: filepath.Join(*dir, provision.FloorManagerTokenFile)}
		floorToken, err := provision.DemoToken(ctx, store, cfg, people.FloorManager, *dir, provision.FloorManagerTokenFile)
		if err != nil {
			return err
		}
		asFloor := *as == "floor-manager"
		token := leadToken
		if asFloor {
			token = floorToken
		}
		if u, err := url.Parse(metricsURL); err == nil && u.Port() != "" && f.sources["metrics-addr"].Kind == config.Default {
			if err := os.WriteFile(metricsPortFile, []byte(u.Port()+"\n"), 0o644); err != nil {
				return fmt.Errorf("keep the metrics port: %w", err)
			}
		}
		exe, err := os.Executable()
		if err != nil {
			exe = "plumbline"
		}
		exe, _ = filepath.Abs(exe)
		stdioArgs := append([]string{"serve", "--transport", "stdio", "--db", appDSN, "--public-url", cfg.BaseURL}, roles.Args()...)
		for _, dir := range []struct{ flag, value string }{{"--catalog", *sf.catalogDir}, {"--grants", sf.grants.Reader}} {
			if dir.value != "" {
				abs, _ := filepath.Abs(dir.value)
				stdioArgs = append(stdioArgs, dir.flag, abs)
			}
		}
		return terminal.DemoBanner{Login: roles.App, URL: cfg.Resource(), BaseURL: cfg.BaseURL, AdminDSN: cluster.DSN(provision.DemoDatabase),
			AppDSN: appDSN, MetricsURL: metricsURL, Lead: lead, FloorManager: floor, Team: people.Team.Name, AsFloorManager: asFloor,
			Token: token, TokenTTL: cfg.TokenTTL, TokenEnv: server.TokenEnv, Exe: exe, StdioArgs: stdioArgs, KeptIn: cluster.Dir()}.Write(s.out)
	})
}

// keptMetricsAddr returns the loopback address on the port kept in file,
// if it holds one that is free now, else def.
func keptMetricsAddr(file, def string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return def
	}
	port, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || port <= 0 || port > 65535 {
		return def
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return def
	}
	l.Close()
	return addr
}
