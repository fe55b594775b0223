package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"plumbline/internal/demofloor"
	"plumbline/internal/oauth"
	"plumbline/internal/pgcluster"
	"plumbline/internal/provision"
	"plumbline/internal/server"
)

// The MCP Inspector the demo's printed command runs: the version plumbline's
// tests run (internal/clienttest/package.json) and the Node.js it needs (its
// engines field); TestInspectorPin holds them to the lockfile.
const (
	inspectorVersion = "2.12.0"
	inspectorNode    = "22.19"
)

func demo(ctx context.Context, args []string, s *streams) error {
	f := newFlags("demo", helpText("demo"), s)
	dir := f.string("dir", ".plumbline", "`directory` for the private PostgreSQL cluster")
	nowFlag := f.string("now", "", "generate and answer as of this RFC 3339 `moment` instead of the clock")
	seed := f.int("seed", demofloor.DefaultSeed, "seed of the generated floor")
	agents := f.int("agents", demofloor.DefaultAgents, "agents on the generated floor")
	days := f.int("days", demofloor.DefaultDays, "days of history on the generated floor")
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
	log, err := logger(s.err, sf.LogLevel)
	if err != nil {
		return err
	}
	stopDebug, err := server.ServeDebug(sf.DebugAddr, log)
	if err != nil {
		return err
	}
	defer stopDebug()
	roles, err := sf.roles.roles()
	if err != nil {
		return err
	}
	gs, err := loadGrants(*sf.grantsDir)
	if err != nil {
		return err
	}
	ags, err := loadAnalystGrants(*sf.analystGrants)
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
	if err := provision.Demo(ctx, cluster, opts, roles, append(gs, ags...), s.out); err != nil {
		return err
	}
	manager, err := provision.DemoMembers(ctx, cluster.DSN(provision.DemoDatabase))
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
	return server.RunHTTP(ctx, appDSN, settings, &sf.auth, func(cfg *oauth.Config, metricsURL string) error {
		token, err := demoToken(ctx, appDSN, &sf.auth, cfg, manager, cluster.Dir())
		if err != nil {
			return err
		}
		printConnect(s, cluster.DSN(provision.DemoDatabase), appDSN, cfg, token, manager, sf, metricsURL, cluster.Dir())
		return nil
	})
}

// printConnect tells a newcomer how to point a client at the demo, with
// the ready token in every configuration.
func printConnect(s *streams, adminDSN, appDSN string, cfg *oauth.Config, token string, manager oauth.Member, sf *serverFlags, metricsURL, keptIn string) {
	exe, err := os.Executable()
	if err != nil {
		exe = "plumbline"
	}
	exe, _ = filepath.Abs(exe)
	stdioArgs := append([]string{"serve", "--transport", "stdio", "--db", appDSN, "--public-url", cfg.BaseURL}, sf.roles.args()...)
	for _, dir := range []struct{ flag, value string }{{"--catalog", *sf.catalogDir}, {"--grants", *sf.grantsDir}} {
		if dir.value != "" {
			abs, _ := filepath.Abs(dir.value)
			stdioArgs = append(stdioArgs, dir.flag, abs)
		}
	}
	desktop, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"plumbline": map[string]any{"command": exe, "args": stdioArgs, "env": map[string]string{tokenEnv: token}},
	}}, "", "  ")
	url := cfg.Resource()
	metrics := ""
	if metricsURL != "" {
		metrics = "\n  Metrics (Prometheus):           " + metricsURL
	}
	fmt.Fprintf(s.out, `
plumbline is serving the demo floor, signed in as %s.

  MCP endpoint (Streamable HTTP): %s
  Database, for psql:             %s%s
  Access token, for %s (%s), valid %s:
    %s

Claude Code:
  claude mcp add --transport http plumbline %s --header "Authorization: Bearer %s"

Claude Desktop (claude_desktop_config.json, runs plumbline over stdio
against this demo's database while it is running):
%s

MCP Inspector %s (needs Node.js %s or newer):
  npx -y @modelcontextprotocol/inspector@%s --cli %s --header "Authorization: Bearer %s" --method tools/list

PostgreSQL's port and the token are kept with the cluster, in
  %s
so what you paste keeps working on every later run on the same --addr,
until that directory is deleted.

A client that signs in through the browser instead finds the sign-in from
the URL alone and offers the floor's team leads to sign in as.

The analyst's door (the sql tool) is for a contained agent's service token:
  %s token create --service floor-analyst --scope "reports:read analyst:sql" --db %s --public-url %s

Press Ctrl-C to stop.
`, *sf.roles.app, url, adminDSN, metrics, manager.Name, manager.Email, durationWords(cfg.TokenTTL), token, url, token, desktop,
		inspectorVersion, inspectorNode, inspectorVersion, url, token, keptIn, exe, appDSN, cfg.BaseURL)
}

// durationWords says a token lifetime in days or hours.
func durationWords(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	return d.String()
}
