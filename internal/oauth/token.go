package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"plumbline/internal/httpguard"
	"plumbline/internal/oauth/cimd"
	"plumbline/internal/oauth/intake"
	"plumbline/internal/telemetry"
)

var pkceVerifier = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// authenticateClient identifies the calling client by HTTP Basic, by
// client_id and client_secret in the body, or, for a public client, by
// client_id alone, held to the limits on failed client authentication
// (Store.judgeClient): while the request's source or the client it names
// is at its limit, it is refused whatever it sends.
func (s *Server) authenticateClient(r *http.Request) (*Client, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if r.PostForm.Get("client_secret") != "" {
			return nil, intake.Fail(http.StatusBadRequest, "invalid_request", "use one way to authenticate the client")
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	source := httpguard.Source(r).String()
	var c *Client
	switch body := r.PostForm.Get("client_id"); {
	case id == "" || body != "" && body != id:
		// No client named, or two: a failure, counted against the source.
	case cimd.IsURL(id):
		// A metadata-document client is public: its code is bound to its
		// client_id and PKCE verifier, so nothing needs fetching here.
		c = &Client{ID: id, AuthMethod: "none", Document: true}
	default:
		var err error
		if c, err = s.client(r.Context(), id, source); errors.Is(err, errUnknownClient) {
			c = nil
		} else if err != nil {
			return nil, err
		}
	}
	ok, guessed := c != nil && c.authenticate(secret), ""
	if c != nil && !c.public() {
		guessed = c.ID
	}
	wait, err := s.store.judgeClient(r.Context(), guessed, source, ok)
	switch {
	case err != nil:
		return nil, err
	case wait > 0:
		s.cfg.Metrics.Limited(telemetry.LimitClientAuthentication)
		e := intake.Fail(http.StatusTooManyRequests, "invalid_client", "client authentication failed too often: an address may fail %d times, "+
			"and a client with a secret %d times, in any %d minutes, and this request's address or client has, so every request from it "+
			"or for it is refused, whatever credentials it sends; try again after the time in Retry-After",
			ClientFailuresPerSource, ClientFailuresPerClient, int(ClientFailureWindow.Minutes()))
		e.RetryAfter = wait
		return nil, e
	case !ok:
		return nil, intake.Fail(http.StatusUnauthorized, "invalid_client", "the client is unknown or its credentials are wrong")
	}
	return c, nil
}

// token is the token endpoint: the authorization code grant with PKCE, and
// for pre-registered machine clients the client credentials grant
// (clientCredentials). There are no refresh tokens; a client signs in (or
// asks) again when its token expires.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := intake.ReadForm(w, r); err != nil {
		s.writeError(w, err)
		return
	}
	c, err := s.authenticateClient(r)
	if err != nil {
		if _, _, basic := r.BasicAuth(); basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="plumbline"`)
		}
		s.writeError(w, err)
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") == "client_credentials":
		s.clientCredentials(w, r, c)
		return
	case f.Get("grant_type") != "authorization_code":
		s.writeError(w, intake.Fail(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code, or client_credentials for a machine client"))
		return
	case c.Service != "":
		s.writeError(w, intake.Fail(http.StatusBadRequest, "unauthorized_client", "a machine client uses the client_credentials grant"))
		return
	case f.Get("code") == "":
		s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_request", "send the code"))
		return
	case !pkceVerifier.MatchString(f.Get("code_verifier")):
		s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_grant", "PKCE is required: send the code_verifier, 43 to 128 characters"))
		return
	}
	resource := ""
	if len(f["resource"]) > 0 {
		if resource = s.resource(f["resource"]); resource == "" {
			s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_target", "resource must be this server's MCP endpoint, %s", s.cfg.Resource()))
			return
		}
	}
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	token, expires, scope, err := s.store.redeem(r.Context(), redemption{
		code: f.Get("code"), clientID: c.ID, challenge: base64.RawURLEncoding.EncodeToString(sum[:]),
		redirectURI: f.Get("redirect_uri"), resource: resource, issuer: s.cfg.Issuer(), ttl: s.cfg.TokenTTL,
	})
	switch {
	case errors.Is(err, errCodeInvalid), errors.Is(err, errCodeReused), errors.Is(err, errNotMember), errors.Is(err, errWrongTarget):
		s.cfg.Metrics.Auth(telemetry.EventTokenRefused)
		s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_grant", "%s", err.Error()))
		return
	case err != nil:
		s.writeError(w, err)
		return
	}
	s.cfg.Metrics.Auth(telemetry.EventTokenIssued)
	writeToken(w, token, expires, scope)
}

// writeToken answers a token request with the token issued: no refresh
// token, ever.
func writeToken(w http.ResponseWriter, token string, expires time.Time, scope []string) {
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": token,
		"token_type":   "Bearer",
		"expires_in":   int64(time.Until(expires).Seconds()),
		"scope":        strings.Join(scope, " "),
	})
}

// revoke is the revocation endpoint (RFC 7009). It answers 200 whether or
// not the token existed or was the client's, so it reveals nothing; only
// the client a token was issued to can revoke it.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if err := intake.ReadForm(w, r); err != nil {
		s.writeError(w, err)
		return
	}
	c, err := s.authenticateClient(r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if r.PostForm.Get("token") == "" {
		s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_request", "send the token to revoke"))
		return
	}
	if err := s.store.revokeToken(r.Context(), r.PostForm.Get("token"), c.ID); err != nil {
		s.writeError(w, err)
		return
	}
	s.cfg.Metrics.Auth(telemetry.EventTokenRevoked)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// registerClient is Dynamic Client Registration (RFC 7591): deprecated
// in MCP, off unless configured, and it requires application_type. Each
// source address may register RegistrationsPerHour clients in any hour;
// only a valid registration counts. It never issues an id that looks like a URL.
func (s *Server) registerClient(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.writeError(w, intake.Fail(http.StatusMethodNotAllowed, "invalid_request", "use POST"))
		return
	}
	reg, err := intake.DecodeRegistration(http.MaxBytesReader(w, r.Body, 16<<10))
	if err != nil {
		s.writeError(w, err)
		return
	}
	c, appType := &Client{Name: reg.Name, RedirectURIs: reg.RedirectURIs, AuthMethod: reg.AuthMethod}, reg.ApplicationType
	id, _ := newSecret("dcr_")
	c.ID = id[:26]
	var secret string
	if c.AuthMethod != "none" {
		secret, c.secretHash = newSecret("plcs_")
	}
	wait, err := s.store.register(r.Context(), c, appType, httpguard.Source(r).String())
	if err != nil {
		s.writeError(w, err)
		return
	}
	if wait > 0 {
		s.cfg.Metrics.Limited(telemetry.LimitClientRegistrations)
		e := intake.Fail(http.StatusTooManyRequests, "invalid_request",
			"this address has registered %d clients in the last hour, the most it may; try again after the time in Retry-After", RegistrationsPerHour)
		e.RetryAfter = wait
		s.writeError(w, e)
		return
	}
	out := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        time.Now().Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": c.AuthMethod,
		"application_type":           appType,
	}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	s.cfg.Metrics.Auth(telemetry.EventClientRegistered)
	writeJSON(w, http.StatusCreated, out)
}
