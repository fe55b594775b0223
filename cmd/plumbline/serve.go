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
	"plumbline/internal/store"
	"plumbline/reports"
)

const serveHelp = `
Usage: plumbline serve [flags]

Serve the reports over the Model Context Protocol, on Streamable HTTP at
http://ADDR/mcp (the default) or on stdin/stdout (--transport stdio, for a
client that starts plumbline itself).

The catalogue is read from --catalog (a directory of YAML files); without it
the embedded demo catalogue is used, which only fits the demo floor.

Examples:
  plumbline serve --db postgres://plumbline_app@db/floor --catalog ./catalog
  PLUMBLINE_DB=postgres://... plumbline serve --transport stdio
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
	srv, closeStore, err := sf.open(ctx, *db, time.Now, log)
	if err != nil {
		return err
	}
	defer closeStore()
	if *transport == "stdio" {
		log.Info("serving MCP on stdio")
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	return serveHTTP(ctx, srv, *sf.addr, log, nil)
}

// loadCatalog loads the catalogue in dir, or the embedded demo catalogue.
func loadCatalog(dir string) (*catalog.Catalog, error) {
	if dir == "" {
		return catalog.Demo()
	}
	return catalog.LoadDir(dir)
}

// open loads the catalogue, connects to the database and builds the MCP
// server. The returned func closes the database pool.
func (sf *serverFlags) open(ctx context.Context, dsn string, now func() time.Time, log *slog.Logger) (*mcp.Server, func(), error) {
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
	return mcpserver.New(engine, &mcpserver.Options{Logger: log}), st.Close, nil
}

// serveHTTP serves srv on addr until ctx ends, then drains in-flight calls.
// ready, if set, is called once the listener is open.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, log *slog.Logger, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: mcpserver.HTTPHandler(srv), ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/mcp"
	log.Info("serving MCP over Streamable HTTP", "url", url)
	if ready != nil {
		ready(url)
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
