package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"plumbline/internal/httpguard"
	"plumbline/internal/oauth"
	"plumbline/internal/tlsfiles"
)

// Timeouts are the HTTP listener's timeouts: a slow or silent client holds
// a connection no longer than these allow.
type Timeouts struct {
	Header, Idle      time.Duration
	Body, Write       time.Duration
	MCPBody, MCPWrite time.Duration
}

// Defaults of the HTTP timeouts. An MCP call may wait the acquire timeout
// for a connection and then run for the statement timeout, so the default
// write timeout of /mcp is their sum and MCPWriteMargin more.
const (
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultBodyTimeout    = 10 * time.Second
	DefaultWriteTimeout   = 30 * time.Second
	DefaultMCPBodyTimeout = 30 * time.Second
	MCPWriteMargin        = 15 * time.Second
)

// server checks the timeouts against a report query's, which may wait
// acquireWait for a connection and run for statement, and returns what
// builds the HTTP server for a handler, with them set.
func (t Timeouts) server(statement, acquireWait time.Duration) (func(http.Handler) *http.Server, error) {
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
		mcpWrite = acquireWait + statement + MCPWriteMargin
	}
	if mcpWrite <= statement {
		return nil, fmt.Errorf("%w: --mcp-write-timeout must exceed --statement-timeout (%s), or a call running its full time would be cut off", ErrUsage, statement)
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

// serveHTTP serves srv on its address, behind the authorization server a
// configures, with the token store on dsn, until ctx ends, then drains
// in-flight calls. ready, if set, is called once the listener is open.
func (srv *opened) serveHTTP(ctx context.Context, dsn string, a *Auth, ready func(*oauth.Config) error) error {
	s, log := srv.settings, srv.settings.Log
	newServer, err := s.Timeouts.server(s.StatementTimeout, s.AcquireTimeout)
	if err != nil {
		return err
	}
	var pair *tlsfiles.Pair
	switch {
	case (s.TLSCert == "") != (s.TLSKey == ""):
		return fmt.Errorf("%w: --tls-cert and --tls-key go together: give both to serve HTTPS, or neither for plain HTTP", ErrUsage)
	case s.TLSCert != "":
		if pair, err = tlsfiles.Load(s.TLSCert, s.TLSKey, log); err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
		a.HTTPS = true
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Addr, err)
	}
	handler, cfg, closeAuth, err := a.handler(ctx, dsn, srv, ln, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer closeAuth()
	hs := newServer(handler)
	serve := hs.Serve
	if pair != nil {
		hs.TLSConfig = pair.Config()
		serve = func(ln net.Listener) error { return hs.ServeTLS(ln, "", "") }
	}
	log.Info("serving MCP over Streamable HTTP", "url", cfg.Resource(), "listen", ln.Addr().String(), "tls", pair != nil)
	if ready != nil {
		if err := ready(cfg); err != nil {
			ln.Close()
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- serve(ln) }()
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

// serveMetrics serves the server's metrics at http://ADDR/metrics on a
// listener of its own (--metrics-addr), so that the scrape port can stay
// private while /mcp is public. It returns the URL served and a func that
// stops serving; with no metrics it serves nothing.
func (srv *opened) serveMetrics() (string, func(), error) {
	m, addr, log := srv.Metrics, srv.settings.MetricsAddr, srv.settings.Log
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
