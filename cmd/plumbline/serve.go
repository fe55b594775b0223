package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/analyst"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/httpguard"
	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
	"plumbline/reports"
)

// serverFlags are the flags serve and demo share.
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
	timeouts                      httpTimeouts
	metricsAddr, otlpEndpoint     *string
	debugAddr                     *string

	// metrics are the server's metrics once open has built them, when
	// --metrics-addr names a listener.
	metrics *telemetry.Metrics
}

// httpTimeouts are the HTTP listener's timeouts: a slow or silent client
// holds a connection no longer than these allow.
type httpTimeouts struct {
	header, idle           *time.Duration
	body, write            *time.Duration
	mcpBody, mcpWrite      *time.Duration
	statement, acquireWait *time.Duration
}

// Defaults of the HTTP timeouts. An MCP call may wait --acquire-timeout
// for a connection and then run for --statement-timeout, so the default
// write timeout of /mcp is their sum and mcpWriteMargin more.
const (
	defaultHeaderTimeout  = 10 * time.Second
	defaultIdleTimeout    = 2 * time.Minute
	defaultBodyTimeout    = 10 * time.Second
	defaultWriteTimeout   = 30 * time.Second
	defaultMCPBodyTimeout = 30 * time.Second
	mcpWriteMargin        = 15 * time.Second
)

func addTimeoutFlags(f *flags, statement, acquireWait *time.Duration) httpTimeouts {
	return httpTimeouts{
		header: f.duration("read-header-timeout", defaultHeaderTimeout, "longest a client may take to send a request's header"),
		idle:   f.duration("idle-timeout", defaultIdleTimeout, "longest an idle keep-alive connection stays open"),
		body: f.duration("body-timeout", defaultBodyTimeout, "longest a client may take to send a request's body, after its header, "+
			"on every route but /mcp (/token, /register, /revoke, /authorize, sign-in)"),
		write:   f.duration("write-timeout", defaultWriteTimeout, "longest an answer may take, from the end of the request's header, on every route but /mcp"),
		mcpBody: f.duration("mcp-body-timeout", defaultMCPBodyTimeout, "longest a client may take to send an /mcp request's body, after its header"),
		mcpWrite: f.duration("mcp-write-timeout", 0, "longest an /mcp answer may take, from the end of the request's header; "+
			"it must exceed --statement-timeout (default: --acquire-timeout + --statement-timeout + "+mcpWriteMargin.String()+")"),
		statement: statement, acquireWait: acquireWait,
	}
}

// server checks the timeouts and returns what builds the HTTP server for a
// handler, with them set.
func (t httpTimeouts) server() (func(http.Handler) *http.Server, error) {
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"read-header-timeout", *t.header}, {"idle-timeout", *t.idle}, {"body-timeout", *t.body},
		{"write-timeout", *t.write}, {"mcp-body-timeout", *t.mcpBody}} {
		if d.value <= 0 {
			return nil, fmt.Errorf("%w: --%s must be positive, such as 10s", errUsage, d.name)
		}
	}
	mcpWrite := *t.mcpWrite
	if mcpWrite == 0 {
		mcpWrite = *t.acquireWait + *t.statement + mcpWriteMargin
	}
	if mcpWrite <= *t.statement {
		return nil, fmt.Errorf("%w: --mcp-write-timeout must exceed --statement-timeout (%s), or a call running its full time would be cut off", errUsage, *t.statement)
	}
	routes := map[string]httpguard.Deadline{"/mcp": {Body: *t.mcpBody, Write: mcpWrite}}
	return func(handler http.Handler) *http.Server {
		return &http.Server{
			Handler:           httpguard.Deadlines(routes, httpguard.Deadline{Body: *t.body, Write: *t.write}, handler),
			ReadHeaderTimeout: *t.header,
			IdleTimeout:       *t.idle,
		}
	}, nil
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
		debugAddr: f.string("debug-addr", "", "loopback `host:port` serving the process's goroutines and heap as JSON at "+debugPath+
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
	stopDebug, err := serveDebug(*sf.debugAddr, log)
	if err != nil {
		return err
	}
	defer stopDebug()
	if *transport == "stdio" {
		var recheck mcp.Middleware
		closeAuth := func() {}
		srv, closeStore, err := sf.open(ctx, *db, time.Now, log, func(tools []string) (func(*mcp.CallToolRequest) reports.Caller, error) {
			af.metrics = sf.metrics
			caller, mw, closeStore, err := af.stdioIdentity(ctx, *db, *sf.addr, tools, log)
			if err != nil {
				return nil, err
			}
			recheck, closeAuth = mw, closeStore
			return func(*mcp.CallToolRequest) reports.Caller { return caller }, nil
		})
		if err != nil {
			return err
		}
		defer closeStore()
		defer closeAuth()
		_, stopMetrics, err := serveMetrics(sf.metrics, *sf.metricsAddr, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
		srv.AddReceivingMiddleware(recheck)
		log.Info("serving MCP on stdio")
		return srv.Run(ctx, mcpserver.Stdio(os.Stdin, os.Stdout))
	}
	srv, closeStore, err := sf.open(ctx, *db, time.Now, log, httpCallers)
	if err != nil {
		return err
	}
	defer closeStore()
	_, stopMetrics, err := serveMetrics(sf.metrics, *sf.metricsAddr, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	af.metrics = sf.metrics
	return serveHTTP(ctx, srv, *db, *sf.addr, af, sf.timeouts, log, nil)
}

// httpCallers names each call's caller from its verified token.
func httpCallers(tools []string) (func(*mcp.CallToolRequest) reports.Caller, error) {
	return oauth.Caller(tools), nil
}

// loadCatalog loads the catalogue in dir, or the embedded demo catalogue.
func loadCatalog(dir string) (*catalog.Catalog, error) {
	if dir == "" {
		return catalog.Demo()
	}
	return catalog.LoadDir(dir)
}

// open loads the catalogue and the grant files, connects to the database,
// refuses to go on if the login can reach more than it should, and builds
// the MCP server, whose calls callers names from the engine's tool names.
// The returned func closes the database pool.
func (sf *serverFlags) open(ctx context.Context, dsn string, now func() time.Time, log *slog.Logger,
	callers func(tools []string) (func(*mcp.CallToolRequest) reports.Caller, error)) (*mcp.Server, func(), error) {
	if !slices.Contains(mcpserver.TextModes, *sf.textContent) {
		return nil, nil, fmt.Errorf("%w: --text-content must be one of %s", errUsage, strings.Join(mcpserver.TextModes, ", "))
	}
	if *sf.cacheTTL <= 0 {
		return nil, nil, fmt.Errorf("%w: --client-cache-ttl must be positive, such as 15m", errUsage)
	}
	cat, err := loadCatalog(*sf.catalogDir)
	if err != nil {
		return nil, nil, fmt.Errorf("load catalogue:\n%w", err)
	}
	roles, err := sf.roles.roles()
	if err != nil {
		return nil, nil, err
	}
	gs, err := loadGrants(*sf.grantsDir)
	if err != nil {
		return nil, nil, err
	}
	secret, err := sf.secret(log)
	if err != nil {
		return nil, nil, err
	}
	// Traces start before any pool opens: each pool's statements are
	// traced if tracing is on when it opens.
	build := telemetry.Build{Version: mcpserver.Version, Commit: commit(), Catalog: cat.Version()}
	stopTracing, err := telemetry.TraceTo(ctx, *sf.otlpEndpoint, build)
	if err != nil {
		return nil, nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	if telemetry.Tracing() {
		log.Info("sending traces to an OpenTelemetry collector over OTLP/HTTP")
	}
	traced := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(ctx); err != nil {
			log.Warn("could not send the last traces", "err", err)
		}
	}
	// The primary takes the request log and the limits; reports read from
	// the replica when one is named. Both logins must pass the guard.
	primary, err := sf.connect(ctx, dsn, "the database", cat, roles, gs, log)
	if err != nil {
		traced()
		return nil, nil, err
	}
	reader, closeAll := primary, func() { primary.Close(); traced() }
	if *sf.reportsDSN != "" {
		if reader, err = sf.connect(ctx, *sf.reportsDSN, "the reports replica", cat, roles, gs, log); err != nil {
			primary.Close()
			traced()
			return nil, nil, err
		}
		closeAll = func() { reader.Close(); primary.Close(); traced() }
		log.Info("report queries go to the replica named by --reports-dsn; the request log and limits stay on --db")
	}
	// The request log writes outcomes after their calls; closing it writes
	// those still queued, before the pools close.
	sf.metrics = sf.newMetrics(build)
	sf.metrics.Pool("primary", primary.Pool())
	if reader != primary {
		sf.metrics.Pool("reports", reader.Pool())
	}
	rl := reqlog.New(primary, &reqlog.Options{Role: roles.Logger, PerMinute: *sf.perMinute, Logger: log, Metrics: sf.metrics})
	closePools := closeAll
	closeAll = func() { rl.Close(); closePools() }
	opts := &reports.Options{Now: now, Logger: log, Redact: reqlog.Redactor(secret), Recorder: rl,
		Cache: reports.NewAnswerCache(int64(max(*sf.cacheMiB, 0)) << 20)}
	engine := reports.New(cat, reader, opts)
	log.Info("catalogue loaded", "version", cat.Version(), "reports", len(cat.Reports()), "metrics", len(cat.Metrics()))
	tools := engine.ToolNames()
	door, err := sf.analyst.open(ctx, primary, engine, cat, roles, log)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	if door != nil {
		sf.metrics.Pool("analyst", door.Store().Pool())
		closeStores := closeAll
		tools, closeAll = append(tools, analyst.ToolName), func() { door.Close(); closeStores() }
	}
	caller, err := callers(tools)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return mcpserver.New(engine, &mcpserver.Options{Logger: log, Caller: caller, Analyst: door,
		TextContent: *sf.textContent, CacheTTL: *sf.cacheTTL, Metrics: sf.metrics}), closeAll, nil
}

// connect opens a store on dsn, checks the database answers and runs the
// startup guard on its login.
func (sf *serverFlags) connect(ctx context.Context, dsn, what string, cat *catalog.Catalog, roles grants.Roles,
	gs []*grants.Grant, log *slog.Logger) (*pgstore.Store, error) {
	st, err := pgstore.Open(ctx, dsn, cat, &pgstore.Options{
		StatementTimeout: *sf.statementTimeout, AcquireTimeout: *sf.acquireWait, MaxConns: int32(*sf.maxConns), Role: roles.Reader,
	})
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := st.Ping(pingCtx); err != nil {
		st.Close()
		return nil, fmt.Errorf("cannot reach %s: %w", what, err)
	}
	if err := startGuard(pingCtx, st, cat, roles, gs, log); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// secret returns the key for hashing free text in the request log.
func (sf *serverFlags) secret(log *slog.Logger) ([]byte, error) {
	secret := *sf.logSecret
	if secret == "" {
		secret = os.Getenv(envName("log-secret"))
	}
	if secret == "" {
		log.Info("no --log-secret: free text in the request log is hashed with a key made for this run, so its hashes match no other run or replica")
		return reqlog.NewSecret(), nil
	}
	if len(secret) < reqlog.MinSecretLen {
		return nil, fmt.Errorf("%w: --log-secret must be at least %d bytes; make one with: openssl rand -hex 32", errUsage, reqlog.MinSecretLen)
	}
	return []byte(secret), nil
}

// startGuard refuses to start when the login can reach more than the grant
// files, plumbline's own tables and its roles allow.
func startGuard(ctx context.Context, st *pgstore.Store, cat *catalog.Catalog, roles grants.Roles, gs []*grants.Grant, log *slog.Logger) error {
	rep, err := dbcheck.Inspect(ctx, st.Pool(), dbcheck.LoginPolicy(roles, gs))
	if err != nil {
		return err
	}
	if !rep.OK() {
		return errors.New(rep.Refusal("the database login " + rep.Login))
	}
	for _, m := range rep.Missing {
		log.Warn("the login lacks a grant; calls that need it will fail", "missing", m)
	}
	for _, rel := range grants.Ungranted(cat, gs) {
		log.Warn("the catalogue reads a relation no grant file names; reports that need it will fail", "relation", rel)
	}
	log.Info("startup guard passed: the login reaches only what it needs", "login", rep.Login, "database", rep.Database)
	return nil
}

// serveHTTP serves srv on addr, behind the authorization server, until ctx
// ends, then drains in-flight calls. ready, if set, is called once the
// listener is open.
func serveHTTP(ctx context.Context, srv *mcp.Server, dsn, addr string, af *authFlags, timeouts httpTimeouts, log *slog.Logger, ready func(*oauth.Config) error) error {
	newServer, err := timeouts.server()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	handler, cfg, closeAuth, err := af.httpHandler(ctx, dsn, srv, ln, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeAuth()
	hs := newServer(handler)
	log.Info("serving MCP over Streamable HTTP", "url", cfg.Resource())
	if ready != nil {
		if err := ready(cfg); err != nil {
			ln.Close()
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight calls")
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
