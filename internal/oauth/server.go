package oauth

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"plumbline/internal/httpguard"
	"plumbline/internal/oauth/cimd"
	"plumbline/internal/oauth/intake"
	"plumbline/internal/signin"
)

// Server is the authorization server and resource guard.
type Server struct {
	cfg     Config
	store   *Store
	fetcher *cimd.Fetcher
	signIn  signin.Method
	seen    *seenTokens
}

// New returns a server. signIn is how people sign in; nil means no one can
// sign in through the browser (service tokens still work).
func New(cfg Config, store *Store, signIn signin.Method) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Server{
		cfg:     cfg,
		store:   store,
		fetcher: cimd.New(cfg.CIMD),
		signIn:  signIn,
		seen:    &seenTokens{},
	}, nil
}

// Config returns the server's configuration, defaults filled in.
func (s *Server) Config() *Config { return &s.cfg }

// Handler serves everything on plumbline's origin: mcp (the MCP
// Streamable HTTP handler) at /mcp behind the token check, the metadata
// documents, the authorization server's endpoints, sign-in, and /healthz.
// Every request must name an allowed Host; /mcp also refuses browser
// origins that are not allowed. /healthz answers under any Host.
func (s *Server) Handler(mcp http.Handler) http.Handler {
	origins := append([]string{s.cfg.BaseURL}, s.cfg.Origins...)
	mux := http.NewServeMux()
	prm := s.resourceMetadata()
	mux.Handle("/.well-known/oauth-protected-resource/mcp", prm)
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	mux.Handle("/.well-known/oauth-authorization-server", httpguard.Public(http.HandlerFunc(s.metadata)))
	mux.Handle("/mcp", httpguard.Origins(origins, httpguard.CORS(origins, s.protect(mcp))))
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.Handle("POST /authorize", http.NewCrossOriginProtection().Handler(http.HandlerFunc(s.decide)))
	mux.Handle("/token", httpguard.Public(http.HandlerFunc(s.token)))
	mux.Handle("/revoke", httpguard.Public(http.HandlerFunc(s.revoke)))
	if s.cfg.Registration {
		mux.Handle("/register", httpguard.Public(http.HandlerFunc(s.registerClient)))
	}
	if s.signIn != nil {
		mux.Handle("/signin/", s.signIn.Handler(s.signedIn))
	}
	for pattern, h := range s.cfg.Mount {
		mux.Handle(pattern, h)
	}
	u, _ := url.Parse(s.cfg.BaseURL)
	top := http.NewServeMux()
	top.Handle("/", httpguard.Hosts(append([]string{u.Host}, s.cfg.Hosts...), s.cfg.Loopback(), mux))
	// Load balancers probe by address, under any Host; the answer reveals
	// nothing.
	top.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
	return top
}

// metadata serves RFC 8414 authorization server metadata.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "use GET", http.StatusMethodNotAllowed)
		return
	}
	base := s.cfg.BaseURL
	authMethods := []string{"none", "client_secret_basic", "client_secret_post"}
	m := map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + "/authorize",
		"token_endpoint":                                 base + "/token",
		"revocation_endpoint":                            base + "/revoke",
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          authMethods,
		"revocation_endpoint_auth_methods_supported":     authMethods,
		"scopes_supported":                               Scopes,
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
	}
	if s.cfg.Registration {
		m["registration_endpoint"] = base + "/register"
	}
	if s.machineClients() {
		// The client credentials extension: its scopes include the
		// analyst's door, which only a machine client may be issued.
		m["grant_types_supported"] = []string{"authorization_code", "client_credentials"}
		m["scopes_supported"] = ServiceScopeChoices
	}
	writeJSON(w, http.StatusOK, m)
}

// writeJSON writes v as a JSON response that no one may cache.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError answers with err, an OAuth error: an *intake.Error as it is,
// with Retry-After when it has one, and anything else as a fault, which is
// logged, never told.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	var oe *intake.Error
	if !errors.As(err, &oe) {
		s.cfg.Logger.Error("authorization server fault", "err", err)
		oe = intake.Fail(http.StatusServiceUnavailable, "temporarily_unavailable", "try again after the time in Retry-After")
		oe.RetryAfter = RetryAfter
	}
	if oe.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(oe.RetryAfter.Seconds()))))
	}
	writeJSON(w, oe.Status, map[string]string{"error": oe.Code, "error_description": oe.Description})
}
