package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/analyst"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/mcpserver"
	"plumbline/internal/members"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/query"
	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// ErrUsage marks an error in the settings themselves, which the command
// that parsed them words as a usage error.
var ErrUsage = errors.New("usage")

// Settings are what a server is built from: RegisterFlags fills all but
// the first five from a command's flags, which document each; the zero
// value of an optional one turns its feature off.
type Settings struct {
	// Catalog and Grants are the catalogue and the reader's grant files,
	// Roles plumbline's roles in the database: the command loads them.
	Catalog *catalog.Catalog
	Grants  []*grants.Grant
	Roles   grants.Roles
	// Now is the clock (nil: time.Now); Log receives the server's logs.
	Now func() time.Time
	Log *slog.Logger

	Addr, ReportsDSN, LogLevel       string
	StatementTimeout, AcquireTimeout time.Duration
	MaxConns, PerMinute, CacheMiB    int
	// LogSecret keys the hashes of free text in the request log; empty
	// makes a key for this run.
	LogSecret             string
	TextContent, Compress string
	// DefaultReach is what a person with no row of reach in force sees:
	// ask.SeesFloor or ask.SeesNone.
	DefaultReach                         string
	ClientCacheTTL                       time.Duration
	MetricsAddr, OTLPEndpoint, DebugAddr string
	// TLSCert and TLSKey are the PEM files HTTP serves TLS with; empty
	// serves plain HTTP (behind a proxy that terminates TLS, or on
	// loopback).
	TLSCert, TLSKey string
	Analyst         Analyst
	Timeouts        Timeouts
	// Build names the binary in the metrics and traces; its Catalog is
	// filled in from Catalog.
	Build telemetry.Build
}

// Analyst configures the analyst's door.
type Analyst struct {
	// DSN signs in as the door's own login; empty means no door.
	DSN string
	// Grants are the analyst grant files, loaded by the command.
	Grants []*grants.Grant
	// Limits bound each statement, in the database (the analyst role's
	// and the agent login's settings, which the startup guard checks) and
	// in the door's own transaction (its timeout and work_mem).
	Limits grants.Limits
	// ValueKiB and PageKiB bound an answer's values and pages.
	ValueKiB, PageKiB int
	// PerMinute is each service's limit of statements in any minute
	// (0: none).
	PerMinute int
}

// opened is an opened server: the MCP server and what it counts.
type opened struct {
	// MCP is the MCP server, to serve over HTTP or stdio.
	MCP *mcp.Server
	// Metrics are its metrics, nil unless Settings.Metrics.
	Metrics *telemetry.Metrics
	// settings are what it was opened with.
	settings *Settings
	close    func()
}

// Close writes the request log's queued outcomes, closes the pools and
// sends the last traces.
func (s *opened) Close() { s.close() }

// callers names each call's caller, given the tools the server offers and
// the metrics that count its events (nil when off).
type callers func(tools []string, m *telemetry.Metrics) (func(*mcp.CallToolRequest) ask.Caller, error)

// RunHTTP opens the server on dsn, each call's caller named by its
// verified token, serves its metrics, and serves it over Streamable HTTP
// behind the authorization server a configures until ctx ends. ready, if
// set, is called once the listener is open, with the metrics' URL (empty
// when there are none).
func RunHTTP(ctx context.Context, dsn string, s *Settings, a *Auth, ready func(cfg *oauth.Config, metricsURL string) error) error {
	srv, err := open(ctx, dsn, s, func(tools []string, _ *telemetry.Metrics) (func(*mcp.CallToolRequest) ask.Caller, error) {
		return oauth.Caller(tools), nil
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	metricsURL, stopMetrics, err := srv.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	return srv.serveHTTP(ctx, dsn, a, func(cfg *oauth.Config) error {
		if ready == nil {
			return nil
		}
		return ready(cfg, metricsURL)
	})
}

// TokenEnv is where the stdio transport reads its token from. A token is
// never a flag: flags show in process listings.
const TokenEnv = "PLUMBLINE_TOKEN"

// RunStdio opens the server on dsn and serves it on in and out until the
// client leaves or ctx ends, every call made with token, which is checked
// at start and again on every call; tokenSource names where it came from,
// for the refusal of a token that is not valid.
func RunStdio(ctx context.Context, dsn string, s *Settings, a *Auth, token, tokenSource string, in io.Reader, out io.Writer) error {
	var recheck mcp.Middleware
	closeAuth := func() {}
	srv, err := open(ctx, dsn, s, func(tools []string, m *telemetry.Metrics) (func(*mcp.CallToolRequest) ask.Caller, error) {
		caller, mw, closeStore, err := a.stdioIdentity(ctx, dsn, s.Addr, token, tokenSource, tools, s.Log, m)
		if err != nil {
			return nil, err
		}
		recheck, closeAuth = mw, closeStore
		return func(*mcp.CallToolRequest) ask.Caller { return caller }, nil
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	defer closeAuth()
	_, stopMetrics, err := srv.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv.MCP.AddReceivingMiddleware(recheck)
	s.Log.Info("serving MCP on stdio")
	return srv.MCP.Run(ctx, mcpserver.Stdio(in, out))
}

// open connects to dsn as plumbline's login, refuses to go on if that
// login (or the replica's, or the door's) can reach more than it should,
// and builds the MCP server, whose calls callers names.
func open(ctx context.Context, dsn string, s *Settings, callers callers) (*opened, error) {
	if !slices.Contains(mcpserver.TextModes, s.TextContent) {
		return nil, fmt.Errorf("%w: --text-content must be one of %s", ErrUsage, strings.Join(mcpserver.TextModes, ", "))
	}
	if !slices.Contains(mcpserver.CompressModes, s.Compress) {
		return nil, fmt.Errorf("%w: --compress must be one of %s", ErrUsage, strings.Join(mcpserver.CompressModes, ", "))
	}
	if s.ClientCacheTTL <= 0 {
		return nil, fmt.Errorf("%w: --client-cache-ttl must be positive, such as 15m", ErrUsage)
	}
	log, cat := s.Log, s.Catalog
	secret, err := logSecret(s.LogSecret, log)
	if err != nil {
		return nil, err
	}
	// Traces start before any pool opens: each pool's statements are
	// traced if tracing is on when it opens.
	build := s.Build
	build.Catalog = cat.Version()
	stopTracing, err := telemetry.TraceTo(ctx, s.OTLPEndpoint, build)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	if telemetry.Tracing() {
		log.Info("sending traces to an OpenTelemetry collector over OTLP/HTTP")
	}
	srv := &opened{settings: s, close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(ctx); err != nil {
			log.Warn("could not send the last traces", "err", err)
		}
	}}
	then := func(first func()) {
		rest := srv.close
		srv.close = func() { first(); rest() }
	}
	fail := func(err error) (*opened, error) {
		srv.Close()
		return nil, err
	}
	// The primary takes the request log and the limits; reports read from
	// the replica when one is named. Both logins must pass the guard.
	primary, err := connect(ctx, dsn, "the database", s)
	if err != nil {
		return fail(err)
	}
	then(primary.Close)
	reader := primary
	if s.ReportsDSN != "" {
		if reader, err = connect(ctx, s.ReportsDSN, "the reports replica", s); err != nil {
			return fail(err)
		}
		then(reader.Close)
		log.Info("report queries go to the replica named by --reports-dsn; the request log and limits stay on --db")
	}
	if s.MetricsAddr != "" {
		srv.Metrics = telemetry.NewMetrics(build)
	}
	srv.Metrics.Pool("primary", primary.Pool())
	if reader != primary {
		srv.Metrics.Pool("reports", reader.Pool())
	}
	if query.Rollups(cat) {
		// Rollups are built on the primary, where the loads land; a
		// replica gets them as it gets every other write.
		rctx, stopRollups := context.WithCancel(context.WithoutCancel(ctx))
		rolled := make(chan struct{})
		go func() {
			defer close(rolled)
			primary.RefreshRollupsEvery(rctx, pgstore.RollupEvery, log)
		}()
		then(func() { stopRollups(); <-rolled })
	}
	// The request log writes outcomes after their calls; closing it writes
	// those still queued, before the pools close.
	rl := reqlog.New(primary, &reqlog.Options{Role: s.Roles.Logger, PerMinute: s.PerMinute, Logger: log, Metrics: srv.Metrics})
	then(rl.Close)
	def := ask.FloorReach
	if s.DefaultReach != "" {
		if def, err = ask.ParseReach(s.DefaultReach); err != nil {
			return fail(fmt.Errorf("%w: --default-reach: %v", ErrUsage, err))
		}
	}
	// Each caller's reach is read from the directory, as the auth role,
	// with the pool's guards.
	reach := &members.ReachSource{Store: pgstore.ReachReader{Store: primary, Role: s.Roles.Auth}, Default: def}
	engine := reports.New(cat, reader, &reports.Options{Now: s.Now, Logger: log, Redact: reqlog.Redactor(secret), Recorder: rl,
		Cache: reports.NewAnswerCache(int64(max(s.CacheMiB, 0)) << 20), Reach: reach})
	log.Info("catalogue loaded", "version", cat.Version(), "reports", len(cat.Reports()), "metrics", len(cat.Metrics()))
	tools := engine.ToolNames()
	door, err := openDoor(ctx, primary, engine, s)
	if err != nil {
		return fail(err)
	}
	if door != nil {
		srv.Metrics.Pool("analyst", door.Store().Pool())
		then(door.Close)
		tools = append(tools, analyst.ToolName)
	}
	caller, err := callers(tools, srv.Metrics)
	if err != nil {
		return fail(err)
	}
	srv.MCP = mcpserver.New(engine, &mcpserver.Options{Logger: log, Caller: caller, Analyst: door,
		TextContent: s.TextContent, Compress: s.Compress, CacheTTL: s.ClientCacheTTL, Metrics: srv.Metrics})
	return srv, nil
}

// connect opens a store on dsn, checks the database answers and runs the
// startup guard on its login.
func connect(ctx context.Context, dsn, what string, s *Settings) (*pgstore.Store, error) {
	st, err := pgstore.Open(ctx, dsn, s.Catalog, &pgstore.Options{
		StatementTimeout: s.StatementTimeout, AcquireTimeout: s.AcquireTimeout, MaxConns: int32(s.MaxConns), Role: s.Roles.Reader,
		DefaultReach: s.DefaultReach,
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
	if err := guard(pingCtx, st, s); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// logSecret returns the key for hashing free text in the request log.
func logSecret(secret string, log *slog.Logger) ([]byte, error) {
	if secret == "" {
		log.Info("no --log-secret: free text in the request log is hashed with a key made for this run, so its hashes match no other run or replica")
		return reqlog.NewSecret(), nil
	}
	if len(secret) < reqlog.MinSecretLen {
		return nil, fmt.Errorf("%w: --log-secret must be at least %d bytes; make one with: openssl rand -hex 32", ErrUsage, reqlog.MinSecretLen)
	}
	return []byte(secret), nil
}

// guard refuses to start when the login can reach more than the grant
// files, plumbline's own tables and its roles allow.
func guard(ctx context.Context, st *pgstore.Store, s *Settings) error {
	rep, err := dbcheck.Inspect(ctx, st.Pool(), dbcheck.LoginPolicy(s.Roles, s.Grants, s.Catalog))
	if err != nil {
		return err
	}
	if !rep.OK() {
		return errors.New(rep.Refusal("the database login " + rep.Login))
	}
	for _, m := range rep.Missing {
		s.Log.Warn("the login lacks a grant; calls that need it will fail", "missing", m)
	}
	for _, rel := range grants.Ungranted(s.Catalog, s.Grants) {
		s.Log.Warn("the catalogue reads a relation no grant file names; reports that need it will fail", "relation", rel)
	}
	s.Log.Info("startup guard passed: the login reaches only what it needs", "login", rep.Login, "database", rep.Database)
	return nil
}

// openDoor opens the analyst's door when its DSN names its login, after
// the startup guard has checked that login: it may read exactly the
// analyst grants' relations, write nothing and hold no role but the
// analyst. Without a DSN it returns nil.
func openDoor(ctx context.Context, audit *pgstore.Store, engine *reports.Engine, s *Settings) (*analyst.Door, error) {
	a := s.Analyst
	if a.DSN == "" {
		return nil, nil
	}
	perMinute := a.PerMinute
	if perMinute == 0 {
		perMinute = -1
	}
	door, err := analyst.Open(ctx, a.DSN, audit, a.Grants, &analyst.Options{Role: s.Roles.Analyst, Logger: s.Roles.Logger,
		StatementTimeout: a.Limits.StatementTimeout, WorkMem: a.Limits.WorkMem, ValueBytes: a.ValueKiB << 10, PageBytes: a.PageKiB << 10,
		PerMinute: perMinute, TimeZone: s.Catalog.Zone().String(), Reports: engine.Tools(), Log: s.Log})
	if err != nil {
		return nil, fmt.Errorf("the analyst's door: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep, err := dbcheck.Inspect(gctx, door.Store().Pool(), dbcheck.AnalystPolicy(s.Roles, a.Grants))
	if err == nil {
		var limits []string
		limits, err = dbcheck.InspectLimits(gctx, door.Store().Pool(), s.Roles.Analyst, a.Limits)
		rep.Extra = append(rep.Extra, limits...)
	}
	if err == nil && !rep.OK() {
		err = errors.New(rep.Refusal("the analyst's door's login " + rep.Login))
	}
	if err != nil {
		door.Close()
		return nil, err
	}
	s.Log.Info("startup guard passed: the analyst's door's login reaches only the analyst grants", "login", rep.Login,
		"relations", len(a.Grants))
	return door, nil
}
