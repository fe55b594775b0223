package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/oauth/cimd"
	"plumbline/internal/scim"
	"plumbline/internal/signin"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
)

// Auth configures sign-in and tokens. Every field has the meaning of the
// serve flag of the same name; the lists are comma-separated, as typed.
type Auth struct {
	PublicURL string
	// Role is the role the token store's statements run as.
	Role                      string
	TokenTTL, MachineTokenTTL time.Duration
	// ClientsFile is the YAML file of pre-registered clients.
	ClientsFile                                string
	ClientDomains, Hosts, Origins              string
	OIDCIssuer, OIDCClientID, OIDCClientSecret string
	Registration                               bool
	// PruneEvery is how often an HTTP server prunes spent sign-in state
	// (0: never).
	PruneEvery time.Duration
	// HTTPS says the listener serves TLS itself, so that the default
	// public URL is https.
	HTTPS bool
	// SCIMPerMinute is how many requests each SCIM token may make in any
	// minute (0: no limit).
	SCIMPerMinute int
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Config returns the authorization server's configuration for a server
// listening on addr (the public URL defaults to it), its events counted
// in m if set.
func (a *Auth) Config(addr string, log *slog.Logger, m *telemetry.Metrics) (oauth.Config, error) {
	cfg := oauth.Config{
		BaseURL: strings.TrimSuffix(a.PublicURL, "/"), TokenTTL: a.TokenTTL, MachineTokenTTL: a.MachineTokenTTL,
		Registration: a.Registration, CIMD: cimd.Options{Domains: splitList(a.ClientDomains)},
		Hosts: splitList(a.Hosts), Origins: splitList(a.Origins), Logger: log, Metrics: m,
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://" + addr
		if a.HTTPS {
			cfg.BaseURL = "https://" + addr
		}
	}
	if a.ClientsFile != "" {
		clients, err := oauth.LoadClients(a.ClientsFile)
		if err != nil {
			return cfg, fmt.Errorf("%w: --clients: %v", ErrUsage, err)
		}
		cfg.Clients = clients
	}
	return cfg, nil
}

// Store opens the token store on dsn with its own small pool, which shows
// in m, if set, as the auth pool. The returned func closes it.
func (a *Auth) Store(ctx context.Context, dsn string, m *telemetry.Metrics) (*oauth.Store, func(), error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --db: %v", ErrUsage, err)
	}
	pc.MaxConns = 4
	if telemetry.Tracing() {
		pc.ConnConfig.Tracer = telemetry.SQLTracer{}
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, nil, err
	}
	m.Pool("auth", pool)
	return oauth.NewStore(pool, a.Role), pool.Close, nil
}

// AuthServer builds the authorization server for a server listening on
// addr: OpenID Connect sign-in when configured, else the development
// sign-in when both the listener and the public URL are loopback. It
// serves mount too (oauth.Config.Mount).
func (a *Auth) AuthServer(ctx context.Context, store *oauth.Store, addr string, loopbackListener bool, log *slog.Logger, m *telemetry.Metrics,
	mount map[string]http.Handler) (*oauth.Server, error) {
	cfg, err := a.Config(addr, log, m)
	if err != nil {
		return nil, err
	}
	cfg.Mount = mount
	var method signin.Method
	switch {
	case a.OIDCIssuer != "":
		method, err = signin.NewOIDC(ctx, signin.OIDCConfig{Issuer: a.OIDCIssuer, ClientID: a.OIDCClientID,
			ClientSecret: a.OIDCClientSecret, RedirectURL: cfg.BaseURL + "/signin/oidc/callback"})
		if err != nil {
			return nil, fmt.Errorf("OpenID Connect provider: %w", err)
		}
	case loopbackListener && cfg.Loopback():
		method = signin.NewDev(store)
	}
	srv, err := oauth.New(cfg, store, method)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if method == nil {
		log.Warn("no sign-in is configured: people cannot connect through the browser; set --oidc-issuer")
	}
	return srv, nil
}

// handler is what an HTTP server serves: srv behind the authorization
// server, on listener ln, pruning spent sign-in state every PruneEvery.
func (a *Auth) handler(ctx context.Context, dsn string, srv *opened, ln net.Listener, log *slog.Logger) (http.Handler, *oauth.Config, func(), error) {
	store, closeStore, err := a.Store(ctx, dsn, srv.Metrics)
	if err != nil {
		return nil, nil, nil, err
	}
	directory, closeDirectory, err := a.directory(ctx, dsn, ln.Addr().String(), log)
	if err != nil {
		closeStore()
		return nil, nil, nil, err
	}
	closeStores := func() { closeDirectory(); closeStore() }
	tcp, _ := ln.Addr().(*net.TCPAddr)
	as, err := a.AuthServer(ctx, store, ln.Addr().String(), tcp != nil && tcp.IP.IsLoopback(), log, srv.Metrics,
		map[string]http.Handler{scim.Path + "/": directory})
	if err != nil {
		closeStores()
		return nil, nil, nil, err
	}
	handler := mcpserver.Timed(as.Handler(mcpserver.StreamableHTTP(srv.MCP)))
	if a.PruneEvery <= 0 {
		return handler, as.Config(), closeStores, nil
	}
	pctx, stopPruning := context.WithCancel(ctx)
	pruned := make(chan struct{})
	go func() {
		defer close(pruned)
		store.PruneEvery(pctx, a.PruneEvery, log, srv.Metrics)
	}()
	closeAll := func() {
		stopPruning()
		<-pruned
		closeStores()
	}
	return handler, as.Config(), closeAll, nil
}

// stdioIdentity checks token, the one the stdio transport was given, and
// returns the caller it speaks for, the middleware that checks it again on
// every call, and a func that closes the token store. tokenSource names
// where the token came from, for the refusal.
func (a *Auth) stdioIdentity(ctx context.Context, dsn, addr, token, tokenSource string, tools []string, log *slog.Logger,
	m *telemetry.Metrics) (ask.Caller, mcp.Middleware, func(), error) {
	store, closeStore, err := a.Store(ctx, dsn, m)
	if err != nil {
		return ask.Caller{}, nil, nil, err
	}
	// Over stdio the one token is checked; no one signs in, so no
	// sign-in is set up and the OpenID Connect provider is not asked.
	cfg, err := a.Config(addr, log, m)
	var as *oauth.Server
	if err == nil {
		if as, err = oauth.New(cfg, store, nil); err != nil {
			err = fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	if err != nil {
		closeStore()
		return ask.Caller{}, nil, nil, err
	}
	id, err := as.Verify(ctx, token)
	if err != nil {
		closeStore()
		if errors.Is(err, oauth.ErrInvalidToken) {
			return ask.Caller{}, nil, nil, fmt.Errorf("%s is not a valid token for %s: %w", tokenSource, as.Config().Resource(), err)
		}
		return ask.Caller{}, nil, nil, err
	}
	log.Info("stdio token accepted", "principal", id.Principal(), "client", id.ClientID)
	return oauth.IdentityCaller(id, tools), as.Recheck(token), closeStore, nil
}
