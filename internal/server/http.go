package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"plumbline/internal/httpguard"
	"plumbline/internal/oauth"
)

// Timeouts are the HTTP listener's timeouts: a slow or silent client holds
// a connection no longer than these allow. Statement and AcquireWait are
// the report query's, which the /mcp write timeout must outlast.
type Timeouts struct {
	Header, Idle           time.Duration
	Body, Write            time.Duration
	MCPBody, MCPWrite      time.Duration
	Statement, AcquireWait time.Duration
}

// Defaults of the HTTP timeouts. An MCP call may wait AcquireWait for a
// connection and then run for Statement, so the default write timeout of
// /mcp is their sum and MCPWriteMargin more.
const (
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultBodyTimeout    = 10 * time.Second
	DefaultWriteTimeout   = 30 * time.Second
	DefaultMCPBodyTimeout = 30 * time.Second
	MCPWriteMargin        = 15 * time.Second
)

// server checks the timeouts and returns what builds the HTTP server for a
// handler, with them set.
func (t Timeouts) server() (func(http.Handler) *http.Server, error) {
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"read-header-timeout", t.Header}, {"idle-timeout", t.Idle}, {"body-timeout", t.Body},
		{"write-timeout", t.Write}, {"mcp-body-timeout", t.MCPBody}} {
		if d.value <= 0 {
			return nil, fmt.Errorf("%w: --%s must be positive, such as 10s", ErrUsage, d.name)
		}
	}
	mcpWrite := t.MCPWrite
	if mcpWrite == 0 {
		mcpWrite = t.AcquireWait + t.Statement + MCPWriteMargin
	}
	if mcpWrite <= t.Statement {
		return nil, fmt.Errorf("%w: --mcp-write-timeout must exceed --statement-timeout (%s), or a call running its full time would be cut off", ErrUsage, t.Statement)
	}
	routes := map[string]httpguard.Deadline{"/mcp": {Body: t.MCPBody, Write: mcpWrite}}
	return func(handler http.Handler) *http.Server {
		return &http.Server{
			Handler:           httpguard.Deadlines(routes, httpguard.Deadline{Body: t.Body, Write: t.Write}, handler),
			ReadHeaderTimeout: t.Header,
			IdleTimeout:       t.Idle,
		}
	}, nil
}

// ServeHTTP serves srv on addr, behind the authorization server a
// configures, until ctx ends, then drains in-flight calls. ready, if set,
// is called once the listener is open.
func (srv *Server) ServeHTTP(ctx context.Context, dsn, addr string, a *Auth, t Timeouts, log *slog.Logger, ready func(*oauth.Config) error) error {
	newServer, err := t.server()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	handler, cfg, closeAuth, err := a.handler(ctx, dsn, srv, ln, log)
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

// ServeMetrics serves the server's metrics at http://ADDR/metrics on a
// listener of its own, so that the scrape port can stay private while /mcp
// is public. It returns the URL served and a func that stops serving; with
// no metrics it serves nothing.
func (srv *Server) ServeMetrics(addr string, log *slog.Logger) (string, func(), error) {
	m := srv.Metrics
	if m == nil {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("listen on --metrics-addr %s: %w", addr, err)
	}
	hs := m.Server()
	url := "http://" + ln.Addr().String() + "/metrics"
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	log.Info("serving Prometheus metrics", "metrics_url", url)
	return url, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}
