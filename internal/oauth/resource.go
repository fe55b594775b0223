package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"plumbline/internal/reqlog"
	"plumbline/internal/telemetry"
	"plumbline/reports/ask"
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
// member. The row and the membership are read every time, in one round
// trip, so a revocation or a removal takes effect on the next request.
func (s *Server) Verify(ctx context.Context, token string) (Identity, error) {
	hash := hashSecret(token)
	row, err := s.store.token(ctx, token)
	if err != nil {
		return Identity{}, err
	}
	id, err := s.judge(row)
	if err == nil {
		s.seen.remember(hash, id)
	} else {
		s.seen.forget(hash)
	}
	return id, err
}

// judge turns a token's row into the identity it speaks for, or
// ErrInvalidToken.
func (s *Server) judge(row tokenRow) (Identity, error) {
	if !row.found || !row.live || row.issuer != s.cfg.Issuer() || row.resource != s.cfg.Resource() {
		return Identity{}, ErrInvalidToken
	}
	return Identity{Kind: row.kind, Subject: row.subject, ClientID: row.clientID, Scopes: row.scope, Expires: row.expires}, nil
}

// seenTokens remembers, by hash, the identities of tokens verified before:
// what a token's row says of who it is for never changes, only whether it
// still holds, so a tool call with a token seen before can have its row
// read in the same round trip that puts the call on record (see deferred).
type seenTokens struct {
	mu  sync.Mutex
	ids map[string]Identity
}

// maxSeenTokens bounds the memory seenTokens holds.
const maxSeenTokens = 10_000

func (c *seenTokens) remember(hash []byte, id Identity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil || len(c.ids) >= maxSeenTokens {
		c.ids = map[string]Identity{}
	}
	c.ids[string(hash)] = id
}

func (c *seenTokens) lookup(hash []byte) (Identity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ids[string(hash)]
	return id, ok
}

func (c *seenTokens) forget(hash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ids, string(hash))
}

// tokenCheck is a token whose row is to be read when its call is admitted
// (reqlog.Check), in the same round trip as the call's row is written; if
// the call never gets that far, settle reads it before anything is
// answered.
type tokenCheck struct {
	s     *Server
	token string

	mu     sync.Mutex
	row    tokenRow
	judged bool  // Err has judged the row its admission read
	err    error // ErrInvalidToken, when judged so
}

var _ reqlog.Check = (*tokenCheck)(nil)

// Reader is what reads the token's row: the server's tokens, read for a
// whole batch of admissions in one statement.
func (c *tokenCheck) Reader() reqlog.CheckReader { return tokenReader{c.s} }

// tokenReader reads the rows of the tokens of a batch of admissions.
type tokenReader struct{ s *Server }

// Queue adds the read of the checks' tokens' rows, one statement for them
// all; each check gets its own row (or none: not found) once it has run.
func (r tokenReader) Queue(b *pgx.Batch, checks []reqlog.Check) {
	hashes := make([][]byte, len(checks))
	for i, c := range checks {
		hashes[i] = hashSecret(c.(*tokenCheck).token)
	}
	r.s.store.queueTokens(b, hashes, func(rows map[string]tokenRow) {
		for i, c := range checks {
			t := c.(*tokenCheck)
			t.mu.Lock()
			t.row = rows[string(hashes[i])]
			t.mu.Unlock()
		}
	})
}

// Err is nil when the token still holds. It is read after the admission's
// batch has run.
func (c *tokenCheck) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judged = true
	_, c.err = c.s.judge(c.row)
	return c.err
}

// settle returns whether the token holds: as its call's admission read it,
// or, when the call was not admitted (it never reached the engine, or its
// admission failed), as a read of its own says.
func (c *tokenCheck) settle(ctx context.Context) error {
	c.mu.Lock()
	judged, err := c.judged, c.err
	c.mu.Unlock()
	if !judged {
		_, err = c.s.Verify(ctx, c.token)
	}
	if err != nil {
		c.s.seen.forget(hashSecret(c.token))
	}
	return err
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
		start := time.Now()
		if r.URL.Query().Has("access_token") {
			s.challenge(w, http.StatusBadRequest, "invalid_request", "send the access token in the Authorization header only, never in the URL", nil)
			return
		}
		scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
		if !found || !strings.EqualFold(scheme, "Bearer") {
			s.challenge(w, http.StatusUnauthorized, "", "", PersonScopes)
			return
		}
		token = strings.TrimSpace(token)
		if id, ok := s.seen.lookup(hashSecret(token)); ok && slices.Contains(id.Scopes, ScopeReports) && isToolCall(r) {
			telemetry.TimingFrom(r.Context()).Auth(start, time.Now())
			s.deferred(handoff, w, r, token, id)
			return
		}
		id, err := s.Verify(r.Context(), token)
		telemetry.TimingFrom(r.Context()).Auth(start, time.Now())
		switch {
		case errors.Is(err, ErrInvalidToken):
			s.cfg.Metrics.Auth(telemetry.EventTokenInvalid)
			s.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid, expired or revoked; sign in again", PersonScopes)
			return
		case err != nil:
			s.unavailable(w, err)
			return
		case !slices.Contains(id.Scopes, ScopeReports):
			s.challenge(w, http.StatusForbidden, "insufficient_scope", "this call needs the "+ScopeReports+" scope", []string{ScopeReports})
			return
		}
		handoff.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, id)))
	})
}

// deferred lets through a tool call with a token seen before without
// reading the token's row first: the call's admission reads it in the same
// round trip that puts the call on record (reqlog.Check), before any report
// SQL runs, and the call is refused if it no longer holds. Nothing of the
// answer is sent before the row has been read: the first byte waits for
// the check to settle, and if the token no longer holds, the client gets
// the same 401 challenge as with an upfront check instead.
func (s *Server) deferred(next http.Handler, w http.ResponseWriter, r *http.Request, token string, id Identity) {
	check := &tokenCheck{s: s, token: token}
	ctx := reqlog.WithCheck(context.WithValue(r.Context(), identityKey{}, id), check)
	cw := &checkedWriter{ResponseWriter: w, settle: func() bool {
		err := check.settle(r.Context())
		switch {
		case errors.Is(err, ErrInvalidToken):
			s.cfg.Metrics.Auth(telemetry.EventTokenInvalid)
			s.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid, expired or revoked; sign in again", PersonScopes)
			return false
		case err != nil:
			s.unavailable(w, err)
			return false
		}
		return true
	}}
	next.ServeHTTP(cw, r.WithContext(ctx))
	cw.settled() // an answer with no body at all
}

// checkedWriter holds back a response until settle says the request may be
// answered; when it may not, settle has answered it, and what the handler
// writes is dropped.
type checkedWriter struct {
	http.ResponseWriter
	settle func() bool
	once   sync.Once
	ok     bool
}

func (w *checkedWriter) settled() bool {
	w.once.Do(func() { w.ok = w.settle() })
	return w.ok
}

func (w *checkedWriter) WriteHeader(status int) {
	if w.settled() {
		w.ResponseWriter.WriteHeader(status)
	}
}

func (w *checkedWriter) Write(p []byte) (int, error) {
	if w.settled() {
		return w.ResponseWriter.Write(p)
	}
	return len(p), nil
}

func (w *checkedWriter) Flush() {
	if w.settled() {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *checkedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// maxPeek is the most of a request body isToolCall reads to tell what it is.
const maxPeek = 1 << 20

// isToolCall reports whether a request is one JSON-RPC tools/call (not a
// batch), reading its body and putting it back for the handler.
func isToolCall(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxPeek {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call"
}

// RetryAfter is how long a client is told to wait when the database is
// out of reach: by /mcp, when the token could not be checked, and by the
// token, revocation and registration endpoints.
const RetryAfter = 2 * time.Second

// unavailable answers a request whose token could not be checked, because
// the database could not be reached: 503 with Retry-After, and the Bearer
// challenge that names the resource metadata, as the token is still due.
func (s *Server) unavailable(w http.ResponseWriter, err error) {
	s.cfg.Logger.Error("verify a token", "err", err)
	w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter.Seconds())))
	w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer resource_metadata=%q", s.cfg.MetadataURL()))
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable",
		"error_description": "the access token could not be checked, as the database is out of reach; try again after the time in Retry-After"})
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
func Caller(all []string) func(*mcp.CallToolRequest) ask.Caller {
	return func(req *mcp.CallToolRequest) ask.Caller {
		if req.Extra == nil || req.Extra.TokenInfo == nil {
			return ask.Caller{Tools: []string{}}
		}
		ti := req.Extra.TokenInfo
		client, _ := ti.Extra["client_id"].(string)
		kind, _ := ti.Extra["kind"].(string)
		return ask.Caller{Person: ti.UserID, Client: client, Tools: scopeTools(kind, ti.Scopes, all)}
	}
}

// IdentityCaller is the caller an identity verified outside HTTP (stdio)
// calls as.
func IdentityCaller(id Identity, all []string) ask.Caller {
	return ask.Caller{Person: id.Principal(), Client: id.ClientID, Tools: scopeTools(id.Kind, id.Scopes, all)}
}
