package server

import (
	"flag"

	"plumbline/internal/analyst"
	"plumbline/internal/config"
	"plumbline/internal/limits"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/internal/scim"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// RegisterFlags registers the server's flags on fs, each filling its field
// of s. demo serves the metrics on a free loopback port by default (the
// demo prints it); a server serves none unless asked.
func (s *Settings) RegisterFlags(fs *flag.FlagSet, demo bool) {
	metricsAddr, metricsUsage := "", "`host:port` to serve Prometheus metrics on, at /metrics, a listener of its own (default: none)"
	if demo {
		metricsAddr, metricsUsage = "127.0.0.1:0", "`host:port` to serve Prometheus metrics on, at /metrics (default: a free loopback port, printed); empty for none"
	}
	fs.StringVar(&s.MetricsAddr, "metrics-addr", metricsAddr, metricsUsage)
	fs.StringVar(&s.OTLPEndpoint, "otlp-endpoint", "", "`URL` of an OpenTelemetry collector's OTLP/HTTP receiver to send traces to, such as http://collector:4318 (at /v1/traces unless the URL has a path) "+
		"(default: $OTEL_EXPORTER_OTLP_ENDPOINT or $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; if none is set, nothing is traced)")
	fs.StringVar(&s.DebugAddr, "debug-addr", "", "loopback `host:port` serving the process's goroutines and heap as JSON at "+DebugPath+
		" and its profiles at /debug/pprof/, apart from MCP (plumbline-bench --soak reads it); empty (the default) serves none")
	fs.StringVar(&s.Addr, "addr", "127.0.0.1:8080", "`host:port` to serve HTTP on")
	fs.StringVar(&s.ReportsDSN, "reports-dsn", "", "connection `string` of a read replica for report queries; the request log, "+
		"limits and tokens stay on --db (default: --db)")
	fs.Var(config.NewChoice(&s.LogLevel, "info", "debug", "info", "warn", "error"), "log-level", "log `level`: debug, info, warn or error")
	fs.DurationVar(&s.StatementTimeout, "statement-timeout", pgstore.DefaultStatementTimeout, "longest a report query may run")
	fs.DurationVar(&s.AcquireTimeout, "acquire-timeout", pgstore.DefaultAcquireTimeout, "longest a call waits for a database connection before it is answered busy")
	fs.IntVar(&s.MaxConns, "max-conns", 0, "most database connections (default: pgx's, 4 or the number of CPUs)")
	// Read from the environment, never as the flag's default, which --help
	// would print.
	fs.StringVar(&s.LogSecret, "log-secret", "", "`secret` (at least 16 bytes) keying the hashes of free text in the request log; "+
		"prefer $PLUMBLINE_LOG_SECRET; if neither is set, a key made for this run, so hashes match no other run or replica")
	fs.IntVar(&s.PerMinute, "calls-per-minute", limits.DefaultPerMinute, "calls each person may make in any minute, across all replicas; 0 for no limit")
	fs.IntVar(&s.CacheMiB, "cache-mib", reports.DefaultCacheBytes>>20, "MiB of settled answers (none of their figures can still change) kept in memory "+
		"and served again; 0 keeps none")
	fs.Var(config.NewChoice(&s.DefaultReach, ask.SeesFloor, ask.SeesFloor, ask.SeesNone), "default-reach", "what a person with no row of reach "+
		"in force sees (plumbline access): "+ask.SeesFloor+" (every team) or "+ask.SeesNone+" (nothing until plumbline access grants it)")
	fs.Var(config.NewChoice(&s.TextContent, mcpserver.TextReader, mcpserver.TextModes...), "text-content", "what a tool result's text block holds: "+mcpserver.TextReader+
		" (the answer rendered for a model to read) or "+mcpserver.TextJSON+" (the structured content's JSON, for clients that parse the text)")
	fs.Var(config.NewChoice(&s.Compress, mcpserver.CompressRemote, mcpserver.CompressModes...), "compress", "which answers go compressed, when the client accepts it: "+mcpserver.CompressRemote+
		" (to clients on other machines; one on this machine's loopback has no wire to save), "+mcpserver.CompressAlways+
		" (behind a proxy on the same machine that does not compress) or "+mcpserver.CompressNever)
	fs.DurationVar(&s.ClientCacheTTL, "client-cache-ttl", mcpserver.DefaultCacheTTL, "how long clients may keep the tool and resource lists and the metric definitions (ttlMs)")

	a := &s.Analyst
	fs.StringVar(&a.DSN, "analyst-db", "", "PostgreSQL connection `string` signed in as the analyst's door's login (plumbline_agent, "+
		"a member of the analyst role alone); without it there is no analyst's door")
	a.Limits.RegisterFlags(fs)
	fs.IntVar(&a.ValueKiB, "analyst-value-kib", analyst.DefaultValueBytes>>10, "KiB a value of an analyst's answer may hold, as PostgreSQL sends it "+
		"and as JSON; past it the statement is stopped and refused")
	fs.IntVar(&a.PageKiB, "analyst-page-kib", analyst.DefaultPageBytes>>10, "KiB the rows of a page of an analyst's answer may hold, as JSON; "+
		"past it the page stops at the rows that fit")
	fs.IntVar(&a.PerMinute, "analyst-statements-per-minute", analyst.DefaultPerMinute, "statements each service may send through the analyst's door in any minute; 0 for no limit")

	t := &s.Timeouts
	fs.DurationVar(&t.Header, "read-header-timeout", DefaultHeaderTimeout, "longest a client may take to send a request's header")
	fs.DurationVar(&t.Idle, "idle-timeout", DefaultIdleTimeout, "longest an idle keep-alive connection stays open")
	fs.DurationVar(&t.Body, "body-timeout", DefaultBodyTimeout, "longest a client may take to send a request's body, after its header, "+
		"on every route but /mcp (/token, /register, /revoke, /authorize, sign-in)")
	fs.DurationVar(&t.Write, "write-timeout", DefaultWriteTimeout, "longest an answer may take, from the end of the request's header, on every route but /mcp")
	fs.DurationVar(&t.MCPBody, "mcp-body-timeout", DefaultMCPBodyTimeout, "longest a client may take to send an /mcp request's body, after its header")
	fs.DurationVar(&t.MCPWrite, "mcp-write-timeout", 0, "longest an /mcp answer may take, from the end of the request's header; "+
		"it must exceed --statement-timeout (default: --acquire-timeout + --statement-timeout + "+MCPWriteMargin.String()+")")
}

// RegisterTLSFlags registers --tls-cert and --tls-key, for serve.
func (s *Settings) RegisterTLSFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.TLSCert, "tls-cert", "", "PEM `file` of the certificate (and its chain) to serve HTTPS with, taken up again when it changes; "+
		"with --tls-key (default: plain HTTP, for a proxy in front that terminates TLS)")
	fs.StringVar(&s.TLSKey, "tls-key", "", "PEM `file` of the certificate's private key")
}

// RegisterFlags registers the sign-in flags on fs, each filling its field
// of a. Role is the command's --auth-role, set apart.
func (a *Auth) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.PublicURL, "public-url", "", "the public base `URL` clients reach plumbline at, e.g. https://reports.example.com; the OAuth issuer is exactly this and the resource is it plus /mcp (default: http:// and the address served on)")
	fs.DurationVar(&a.TokenTTL, "token-ttl", oauth.DefaultTokenTTL, "how long an access token issued through sign-in lives")
	fs.DurationVar(&a.MachineTokenTTL, "machine-token-ttl", oauth.DefaultMachineTokenTTL, "how long a token a machine client gets by the client credentials grant lives")
	fs.StringVar(&a.ClientsFile, "clients", "", "YAML `file` of pre-registered OAuth clients (client_id, client_name, redirect_uris, optional client_secret_sha256; "+
		"a machine client has service and scope instead of redirect_uris, and uses the client credentials grant)")
	fs.StringVar(&a.ClientDomains, "client-domains", "", "comma-separated `hosts` whose Client ID Metadata Documents are accepted (.example.com allows subdomains); empty accepts any public https host")
	fs.StringVar(&a.Hosts, "allow-hosts", "", "comma-separated Host `names` served besides the public URL's host (loopback is always served on a loopback public URL)")
	fs.StringVar(&a.Origins, "allow-origins", "", "comma-separated browser `origins` allowed to call /mcp besides the public URL's own")
	fs.StringVar(&a.OIDCIssuer, "oidc-issuer", "", "OpenID Connect provider `URL` people sign in with; without it, only a loopback server offers the development sign-in")
	fs.StringVar(&a.OIDCClientID, "oidc-client-id", "", "plumbline's client `id` at the OpenID Connect provider")
	fs.StringVar(&a.OIDCClientSecret, "oidc-client-secret", "", "plumbline's client `secret` at the OpenID Connect provider")
	fs.BoolVar(&a.Registration, "registration", false, "turn on Dynamic Client Registration (RFC 7591; deprecated, for clients without Client ID Metadata Document support; "+
		"20 valid registrations per source address in any hour, across replicas)")
}

// RegisterPruneFlag registers --prune-every, for a command that serves
// HTTP.
func (a *Auth) RegisterPruneFlag(fs *flag.FlagSet) {
	fs.DurationVar(&a.PruneEvery, "prune-every", oauth.DefaultPruneEvery, "how often an HTTP server deletes spent sign-in state (codes a day past expiry, "+
		"expired sessions, tokens 30 days past expiry or revocation, failed client authentications a day old); 0 leaves it to plumbline prune-log")
}

// RegisterSCIMFlags registers the SCIM endpoint's flags, for a command
// that serves HTTP.
func (a *Auth) RegisterSCIMFlags(fs *flag.FlagSet) {
	fs.IntVar(&a.SCIMPerMinute, "scim-per-minute", scim.DefaultPerMinute, "requests each SCIM token may make to "+scim.Path+
		" in any minute, in each replica; 0 for no limit")
}
