package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"plumbline/reports"
)

// Identity is who a verified token speaks for.
type Identity struct {
	Kind     string // KindPerson or KindService
	Subject  string // the person id, or the service's name
	ClientID string
	Scopes   []string
	Expires  time.Time
}

// Principal is how the identity appears in the request log and to the
// engine: the person id, or service:NAME for a service.
func (id Identity) Principal() string {
	if id.Kind == KindService {
		return "service:" + id.Subject
	}
	return id.Subject
}

// ErrInvalidToken means a token is unknown, revoked, expired, issued for
// another issuer or resource, or held by someone who is no longer an active
// member.
var ErrInvalidToken = errors.New("the token is unknown, revoked or expired, was issued for another server, or its person is no longer an active member")

// Verify checks a token: its row must exist, be live, name this server's
// issuer and resource, and, for a person, the person must be an active
// member (cached for the membership window). The row is read every time,
// so a revocation takes effect on the next request.
func (s *Server) Verify(ctx context.Context, token string) (Identity, error) {
	row, err := s.store.token(ctx, token)
	if errors.Is(err, errNotFound) {
		return Identity{}, ErrInvalidToken
	}
	if err != nil {
		return Identity{}, err
	}
	if !row.live || row.issuer != s.cfg.Issuer() || row.resource != s.cfg.Resource() {
		return Identity{}, ErrInvalidToken
	}
	if row.kind == KindPerson {
		active, err := s.members.active(ctx, row.subject)
		if err != nil {
			return Identity{}, err
		}
		if !active {
			return Identity{}, ErrInvalidToken
		}
	}
	return Identity{Kind: row.kind, Subject: row.subject, ClientID: row.clientID, Scopes: row.scope, Expires: row.expires}, nil
}

// memberCache remembers whether people are active members for a while.
type memberCache struct {
	store *Store
	ttl   time.Duration

	mu   sync.Mutex
	seen map[string]memberSeen
}

type memberSeen struct {
	active bool
	at     time.Time
}

func (c *memberCache) active(ctx context.Context, personID string) (bool, error) {
	c.mu.Lock()
	seen, ok := c.seen[personID]
	c.mu.Unlock()
	if ok && time.Since(seen.at) < c.ttl {
		return seen.active, nil
	}
	m, err := c.store.Member(ctx, personID)
	if err != nil && !errors.Is(err, errNotFound) {
		return false, err
	}
	active := err == nil && m.Status == StatusActive
	c.mu.Lock()
	if len(c.seen) > 10000 {
		clear(c.seen)
	}
	c.seen[personID] = memberSeen{active: active, at: time.Now()}
	c.mu.Unlock()
	return active, nil
}

type identityKey struct{}

// protect lets through only requests bearing a valid token with
// ScopeReports, in the Authorization header. A missing or bad token gets
// 401 and an insufficient one 403, each with a WWW-Authenticate challenge
// that points at the resource metadata (RFC 6750, RFC 9728). The verified
// identity then reaches the MCP handler as the go-sdk's TokenInfo.
func (s *Server) protect(next http.Handler) http.Handler {
	handoff := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := ctx.Value(identityKey{}).(Identity)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: id.Principal(), Scopes: id.Scopes, Expiration: id.Expires,
			Extra: map[string]any{"client_id": id.ClientID, "kind": id.Kind}}, nil
	}, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r) // CORS preflight carries no credentials
			return
		}
		if r.URL.Query().Has("access_token") {
			s.challenge(w, http.StatusBadRequest, "invalid_request", "send the access token in the Authorization header only, never in the URL", nil)
			return
		}
		scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			s.challenge(w, http.StatusUnauthorized, "", "", PersonScopes)
			return
		}
		id, err := s.Verify(r.Context(), strings.TrimSpace(token))
		switch {
		case errors.Is(err, ErrInvalidToken):
			s.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid, expired or revoked; sign in again", PersonScopes)
			return
		case err != nil:
			s.cfg.Logger.Error("verify a token", "err", err)
			http.Error(w, "the token could not be checked; try again shortly", http.StatusServiceUnavailable)
			return
		case !slices.Contains(id.Scopes, ScopeReports):
			s.challenge(w, http.StatusForbidden, "insufficient_scope", "this call needs the "+ScopeReports+" scope", []string{ScopeReports})
			return
		}
		handoff.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, id)))
	})
}

// challenge answers with a Bearer challenge and the error as JSON.
func (s *Server) challenge(w http.ResponseWriter, status int, code, description string, scope []string) {
	params := []string{fmt.Sprintf("resource_metadata=%q", s.cfg.MetadataURL())}
	if len(scope) > 0 {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(scope, " ")))
	}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", description))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	if code == "" {
		code, description = "unauthorized", "this endpoint needs an OAuth access token; discover how to get one from the resource metadata"
	}
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

// resourceMetadata serves RFC 9728 Protected Resource Metadata.
func (s *Server) resourceMetadata() http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               s.cfg.Resource(),
		AuthorizationServers:   []string{s.cfg.Issuer()},
		ScopesSupported:        Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "plumbline: governed sales-floor reports",
	})
}

// Caller returns the function that names a tool call's caller from its
// verified token, for mcpserver.Options.Caller. all is every tool the
// server offers; a token without ScopePeople may call all but the people
// directory tools, and only a service token with ScopeAnalyst the
// analyst's door. A call without a verified token may call nothing.
func Caller(all []string) func(*mcp.CallToolRequest) reports.Caller {
	return func(req *mcp.CallToolRequest) reports.Caller {
		if req.Extra == nil || req.Extra.TokenInfo == nil {
			return reports.Caller{Tools: []string{}}
		}
		ti := req.Extra.TokenInfo
		client, _ := ti.Extra["client_id"].(string)
		kind, _ := ti.Extra["kind"].(string)
		return reports.Caller{Person: ti.UserID, Client: client, Tools: scopeTools(kind, ti.Scopes, all)}
	}
}

// IdentityCaller is the caller an identity verified outside HTTP (stdio)
// calls as.
func IdentityCaller(id Identity, all []string) reports.Caller {
	return reports.Caller{Person: id.Principal(), Client: id.ClientID, Tools: scopeTools(id.Kind, id.Scopes, all)}
}
