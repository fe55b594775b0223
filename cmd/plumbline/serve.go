package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/analyst"
	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/server"
	"plumbline/internal/telemetry"
	"plumbline/reports"
)

// serverFlags are the flags serve and demo share; settings turns them into
// the server's settings (package server).
type serverFlags struct {
	addr, catalogDir, logLevel    *string
	reportsDSN                    *string
	grantsDir, logSecret          *string
	statementTimeout, acquireWait *time.Duration
	maxConns, perMinute           *int
	cacheMiB                      *int
	roles                         *roleFlags
	analyst                       *analystFlags
	textContent                   *string
	cacheTTL                      *time.Duration
	timeouts                      timeoutFlags
	metricsAddr, otlpEndpoint     *string
	debugAddr                     *string
}

// analystFlags configure the analyst's door.
type analystFlags struct {
	dsn, grantsDir, workMem *string
	timeout                 *time.Duration
	perMinute               *int
}

func addAnalystFlags(f *flags) *analystFlags {
	return &analystFlags{
		dsn: f.string("analyst-db", "", "PostgreSQL connection `string` signed in as the analyst's door's login (plumbline_agent, "+
			"a member of the analyst role alone); without it there is no analyst's door"),
		grantsDir: addAnalystGrantsFlag(f),
		timeout:   f.duration("analyst-statement-timeout", analyst.DefaultStatementTimeout, "longest a statement of the analyst's door may run"),
		workMem:   f.string("analyst-work-mem", analyst.DefaultWorkMem, "work_mem of each statement of the analyst's door, such as 16MB"),
		perMinute: f.int("analyst-statements-per-minute", analyst.DefaultPerMinute, "statements each service may send through the analyst's door in any minute; 0 for no limit"),
	}
}

// timeoutFlags are the HTTP listener's timeouts (server.Timeouts).
type timeoutFlags struct {
	header, idle           *time.Duration
	body, write            *time.Duration
	mcpBody, mcpWrite      *time.Duration
	statement, acquireWait *time.Duration
}

func addTimeoutFlags(f *flags, statement, acquireWait *time.Duration) timeoutFlags {
	return timeoutFlags{
		header: f.duration("read-header-timeout", server.DefaultHeaderTimeout, "longest a client may take to send a request's header"),
		idle:   f.duration("idle-timeout", server.DefaultIdleTimeout, "longest an idle keep-alive connection stays open"),
		body: f.duration("body-timeout", server.DefaultBodyTimeout, "longest a client may take to send a request's body, after its header, "+
			"on every route but /mcp (/token, /register, /revoke, /authorize, sign-in)"),
		write:   f.duration("write-timeout", server.DefaultWriteTimeout, "longest an answer may take, from the end of the request's header, on every route but /mcp"),
		mcpBody: f.duration("mcp-body-timeout", server.DefaultMCPBodyTimeout, "longest a client may take to send an /mcp request's body, after its header"),
		mcpWrite: f.duration("mcp-write-timeout", 0, "longest an /mcp answer may take, from the end of the request's header; "+
			"it must exceed --statement-timeout (default: --acquire-timeout + --statement-timeout + "+server.MCPWriteMargin.String()+")"),
		statement: statement, acquireWait: acquireWait,
	}
}

func (t timeoutFlags) values() server.Timeouts {
	return server.Timeouts{Header: *t.header, Idle: *t.idle, Body: *t.body, Write: *t.write, MCPBody: *t.mcpBody, MCPWrite: *t.mcpWrite,
		Statement: *t.statement, AcquireWait: *t.acquireWait}
}

// addServerFlags adds the server's flags; login adds the login's name, for
// the demo, which creates it, and turns the metrics on by default.
func addServerFlags(f *flags, login bool) *serverFlags {
	metricsAddr, metricsUsage := "", "`host:port` to serve Prometheus metrics on, at /metrics, a listener of its own (default: none)"
	if login {
		metricsAddr, metricsUsage = "127.0.0.1:0", "`host:port` to serve Prometheus metrics on, at /metrics (default: a free loopback port, printed); empty for none"
	}
	sf := &serverFlags{
		metricsAddr: f.string("metrics-addr", metricsAddr, metricsUsage),
		otlpEndpoint: f.string("otlp-endpoint", "", "`URL` of an OpenTelemetry collector's OTLP/HTTP receiver to send traces to, such as http://collector:4318 "+
			"(default: $OTEL_EXPORTER_OTLP_ENDPOINT or $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; if none is set, nothing is traced)"),
		debugAddr: f.string("debug-addr", "", "loopback `host:port` serving the process's goroutines and heap as JSON at "+server.DebugPath+
			" and its profiles at /debug/pprof/, apart from MCP (plumbline bench --soak reads it); empty (the default) serves none"),
		addr:       f.string("addr", "127.0.0.1:8080", "`host:port` to serve HTTP on"),
		catalogDir: f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)"),
		reportsDSN: f.string("reports-dsn", "", "connection `string` of a read replica for report queries; the request log, "+
			"limits and tokens stay on --db (default: --db)"),
		logLevel:         f.string("log-level", "info", "log `level`: debug, info, warn or error"),
		statementTimeout: f.duration("statement-timeout", pgstore.DefaultStatementTimeout, "longest a report query may run"),
		acquireWait:      f.duration("acquire-timeout", pgstore.DefaultAcquireTimeout, "longest a call waits for a database connection before it is answered busy"),
		maxConns:         f.int("max-conns", 0, "most database connections (default: pgx's, 4 or the number of CPUs)"),
		grantsDir:        addGrantsFlag(f),
		// Read from the environment at start rather than as the flag's
		// default, which --help would print.
		logSecret: f.String("log-secret", "", "`secret` (at least 16 bytes) keying the hashes of free text in the request log; "+
			"prefer $"+envName("log-secret")+"; if neither is set, a key made for this run, so hashes match no other run or replica"),
		perMinute: f.int("calls-per-minute", limits.DefaultPerMinute, "calls each person may make in any minute, across all replicas; 0 for no limit"),
		cacheMiB: f.int("cache-mib", reports.DefaultCacheBytes>>20, "MiB of settled answers (none of their figures can still change) kept in memory "+
			"and served again; 0 keeps none"),
		roles:   addRoleFlags(f, login),
		analyst: addAnalystFlags(f),
		textContent: f.string("text-content", mcpserver.TextReader, "what a tool result's text block holds: "+mcpserver.TextReader+
			" (the answer rendered for a model to read) or "+mcpserver.TextJSON+" (the structured content's JSON, for clients that parse the text)"),
		cacheTTL: f.duration("client-cache-ttl", mcpserver.DefaultCacheTTL, "how long clients may keep the tool and resource lists and the metric definitions (ttlMs)"),
	}
	sf.timeouts = addTimeoutFlags(f, sf.statementTimeout, sf.acquireWait)
	return sf
}

// settings loads the catalogue and the grant files the flags name and
// returns the server's settings, on the clock now, logging to log.
func (sf *serverFlags) settings(now func() time.Time, log *slog.Logger) (*server.Settings, error) {
	cat, err := loadCatalog(*sf.catalogDir)
	if err != nil {
		return nil, fmt.Errorf("load catalogue:\n%w", err)
	}
	roles, err := sf.roles.roles()
	if err != nil {
		return nil, err
	}
	gs, err := loadGrants(*sf.grantsDir)
	if err != nil {
		return nil, err
	}
	a := server.Analyst{DSN: *sf.analyst.dsn, StatementTimeout: *sf.analyst.timeout, WorkMem: *sf.analyst.workMem, PerMinute: *sf.analyst.perMinute}
	if a.DSN != "" {
		if a.Grants, err = loadAnalystGrants(*sf.analyst.grantsDir); err != nil {
			return nil, err
		}
	}
	secret := *sf.logSecret
	if secret == "" {
		secret = os.Getenv(envName("log-secret"))
	}
	return &server.Settings{Catalog: cat, Grants: gs, Roles: roles, ReportsDSN: *sf.reportsDSN,
		StatementTimeout: *sf.statementTimeout, AcquireTimeout: *sf.acquireWait, MaxConns: *sf.maxConns,
		LogSecret: secret, PerMinute: *sf.perMinute, CacheBytes: int64(*sf.cacheMiB) << 20,
		TextContent: *sf.textContent, ClientCacheTTL: *sf.cacheTTL, OTLPEndpoint: *sf.otlpEndpoint,
		Metrics: *sf.metricsAddr != "", Analyst: a, Build: telemetry.Build{Version: mcpserver.Version, Commit: commit()},
		Now: now, Log: log}, nil
}

// open builds the server the flags describe (server.Open).
func (sf *serverFlags) open(ctx context.Context, dsn string, now func() time.Time, log *slog.Logger, callers server.Callers) (*server.Server, error) {
	s, err := sf.settings(now, log)
	if err != nil {
		return nil, err
	}
	return server.Open(ctx, dsn, s, callers)
}

func serve(ctx context.Context, args []string, s *streams) error {
	f := newFlags("serve", helpText("serve"), s)
	db := f.string("db", "", "PostgreSQL connection `string` (required)")
	transport := f.string("transport", "http", "`transport`: http or stdio")
	sf := addServerFlags(f, false)
	af := addAuthFlags(f, sf.roles.auth)
	af.addPruneFlag(f)
	if _, err := f.parse(args); err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	if *transport != "http" && *transport != "stdio" {
		return fmt.Errorf("%w: --transport must be http or stdio", errUsage)
	}
	log, err := logger(s.err, *sf.logLevel)
	if err != nil {
		return err
	}
	stopDebug, err := server.ServeDebug(*sf.debugAddr, log)
	if err != nil {
		return err
	}
	defer stopDebug()
	auth := af.values()
	if *transport == "stdio" {
		token := os.Getenv(tokenEnv)
		if token == "" {
			return fmt.Errorf("%w: the stdio transport needs a token in $%s; create one with: plumbline token create --service NAME", errUsage, tokenEnv)
		}
		var recheck mcp.Middleware
		closeAuth := func() {}
		srv, err := sf.open(ctx, *db, time.Now, log, func(tools []string, m *telemetry.Metrics) (func(*mcp.CallToolRequest) reports.Caller, error) {
			caller, mw, closeStore, err := auth.StdioIdentity(ctx, *db, *sf.addr, token, "$"+tokenEnv, tools, log, m)
			if err != nil {
				return nil, err
			}
			recheck, closeAuth = mw, closeStore
			return func(*mcp.CallToolRequest) reports.Caller { return caller }, nil
		})
		if err != nil {
			return err
		}
		defer srv.Close()
		defer closeAuth()
		_, stopMetrics, err := srv.ServeMetrics(*sf.metricsAddr, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
		srv.MCP.AddReceivingMiddleware(recheck)
		log.Info("serving MCP on stdio")
		return srv.MCP.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout))
	}
	srv, err := sf.open(ctx, *db, time.Now, log, httpCallers)
	if err != nil {
		return err
	}
	defer srv.Close()
	_, stopMetrics, err := srv.ServeMetrics(*sf.metricsAddr, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	return srv.ServeHTTP(ctx, *db, *sf.addr, auth, sf.timeouts.values(), log, nil)
}

// httpCallers names each call's caller from its verified token.
func httpCallers(tools []string, _ *telemetry.Metrics) (func(*mcp.CallToolRequest) reports.Caller, error) {
	return oauth.Caller(tools), nil
}

// loadCatalog loads the catalogue in dir, or the embedded demo catalogue.
func loadCatalog(dir string) (*catalog.Catalog, error) {
	if dir == "" {
		return catalog.Demo()
	}
	return catalog.LoadDir(dir)
}
