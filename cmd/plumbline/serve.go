package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/store"
	"plumbline/reports"
)

const serveHelp = `
Usage: plumbline serve [flags]

Serve the reports over the Model Context Protocol, on Streamable HTTP at
http://ADDR/mcp (the default) or on stdin/stdout (--transport stdio, for a
client that starts plumbline itself).

Over HTTP every /mcp request needs an OAuth access token. plumbline is its
own authorization server: a client that knows only the URL discovers it
(/.well-known/oauth-protected-resource/mcp), registers by Client ID Metadata
Document (or is pre-registered with --clients), and the person signs in with
the OpenID Connect provider (--oidc-issuer) and approves on a consent page.
Only active members of the membership table (plumbline.members, kept by the
directory sync) may sign in or use a token. Behind a proxy, set --public-url
to the URL clients use; it names the issuer and the resource exactly.

Over stdio, the token comes from $PLUMBLINE_TOKEN (plumbline token create
--service NAME makes one), and plumbline refuses to start without a valid
one.

The catalogue is read from --catalog (a directory of YAML files); without it
the embedded demo catalogue is used, which only fits the demo floor.

Examples:
  plumbline serve --db postgres://plumbline_app@db/floor --catalog ./catalog \
      --public-url https://reports.example.com --oidc-issuer https://login.example.com \
      --oidc-client-id plumbline --oidc-client-secret ...
  PLUMBLINE_TOKEN=plb_... PLUMBLINE_DB=postgres://... plumbline serve --transport stdio
`

func init() {
	register("serve", command{summary: "serve the reports over MCP (Streamable HTTP or stdio)", help: serveHelp, run: serve})
}

// serverFlags are the flags serve and demo share.
type serverFlags struct {
	addr, catalogDir, logLevel    *string
	statementTimeout, acquireWait *time.Duration
	maxConns                      *int
}

func addServerFlags(f *flags) *serverFlags {
	return &serverFlags{
		addr:             f.string("addr", "127.0.0.1:8080", "`host:port` to serve HTTP on"),
		catalogDir:       f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)"),
		logLevel:         f.string("log-level", "info", "log `level`: debug, info, warn or error"),
		statementTimeout: f.duration("statement-timeout", store.DefaultStatementTimeout, "longest a report query may run"),
		acquireWait:      f.duration("acquire-timeout", store.DefaultAcquireTimeout, "longest a call waits for a database connection before it is answered busy"),
		maxConns:         f.int("max-conns", 0, "most database connections (default: pgx's, 4 or the number of CPUs)"),
	}
}

func serve(ctx context.Context, args []string, s *streams) error {
	f := newFlags("serve", serveHelp, s)
	db := f.string("db", "", "PostgreSQL connection `string` (required)")
	transport := f.string("transport", "http", "`transport`: http or stdio")
	sf := addServerFlags(f)
	af := addAuthFlags(f)
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
	if *transport == "stdio" {
		var recheck mcp.Middleware
		closeAuth := func() {}
		srv, closeStore, err := sf.open(ctx, *db, time.Now, log, func(tools []string) (func(*mcp.CallToolRequest) reports.Caller, error) {
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
		srv.AddReceivingMiddleware(recheck)
		log.Info("serving MCP on stdio")
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	srv, closeStore, err := sf.open(ctx, *db, time.Now, log, httpCallers)
	if err != nil {
		return err
	}
	defer closeStore()
	return serveHTTP(ctx, srv, *db, *sf.addr, af, log, nil)
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

// open loads the catalogue, connects to the database and builds the MCP
// server, whose calls callers names from the engine's tool names. The
// returned func closes the database pool.
func (sf *serverFlags) open(ctx context.Context, dsn string, now func() time.Time, log *slog.Logger,
	callers func(tools []string) (func(*mcp.CallToolRequest) reports.Caller, error)) (*mcp.Server, func(), error) {
	cat, err := loadCatalog(*sf.catalogDir)
	if err != nil {
		return nil, nil, fmt.Errorf("load catalogue:\n%w", err)
	}
	st, err := store.Open(ctx, dsn, cat, &store.Options{
		StatementTimeout: *sf.statementTimeout, AcquireTimeout: *sf.acquireWait, MaxConns: int32(*sf.maxConns),
	})
	if err != nil {
		return nil, nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := st.Ping(pingCtx); err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("cannot reach the database: %w", err)
	}
	engine := reports.New(cat, st, &reports.Options{Now: now, Logger: log})
	log.Info("catalogue loaded", "version", cat.Version(), "reports", len(cat.Reports()), "metrics", len(cat.Metrics()))
	caller, err := callers(engine.ToolNames())
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return mcpserver.New(engine, &mcpserver.Options{Logger: log, Caller: caller}), st.Close, nil
}

// serveHTTP serves srv on addr, behind the authorization server, until ctx
// ends, then drains in-flight calls. ready, if set, is called once the
// listener is open.
func serveHTTP(ctx context.Context, srv *mcp.Server, dsn, addr string, af *authFlags, log *slog.Logger, ready func(*oauth.Config) error) error {
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
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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
