package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"plumbline/internal/oauth/cimd"
)

// Client is an OAuth client: pre-registered, registered through Dynamic
// Client Registration, or described by a Client ID Metadata Document. Every
// field is the client's own claim, so none is trusted beyond matching.
type Client struct {
	ID           string
	Name         string
	RedirectURIs []string
	// AuthMethod is how the client authenticates at /token: none (a public
	// client, held to PKCE), client_secret_basic or client_secret_post.
	AuthMethod string
	// Document is set for a client whose id is the URL of its metadata
	// document.
	Document bool
	// Service, set only for a pre-registered machine client, is the
	// service its tokens speak for: it uses the client credentials grant,
	// never a redirect, and is audited as service:NAME.
	Service string
	// Scope is what a machine client may be issued: a subset of
	// ServiceScopeChoices, with ScopeReports.
	Scope []string

	secretHash []byte
}

// check validates a pre-registered client.
func (c *Client) check() error {
	if c.ID == "" || strings.HasPrefix(strings.ToLower(c.ID), "https:") || strings.HasPrefix(strings.ToLower(c.ID), "http:") {
		return fmt.Errorf("client %q: a pre-registered client_id must be set and must not look like a URL", c.ID)
	}
	if c.Name == "" {
		c.Name = c.ID
	}
	if c.Service != "" {
		return c.checkMachine()
	}
	if len(c.RedirectURIs) == 0 {
		return fmt.Errorf("client %q: list at least one redirect URI", c.ID)
	}
	for _, r := range c.RedirectURIs {
		if !cimd.ValidRedirect(r) {
			return fmt.Errorf("client %q: redirect URI %q must be https, or http on a loopback host, without a fragment", c.ID, r)
		}
	}
	if c.AuthMethod == "" {
		c.AuthMethod = "none"
	}
	return nil
}

// public reports whether the client has no secret.
func (c *Client) public() bool { return c.secretHash == nil }

// authenticate checks a client secret; public clients send none.
func (c *Client) authenticate(secret string) bool {
	if c.public() {
		return secret == ""
	}
	return subtle.ConstantTimeCompare(hashSecret(secret), c.secretHash) == 1
}

// redirect returns the redirect URI an authorization request will use:
// the one sent, if it matches a registered one (exactly, except for the
// port of a loopback http redirect), or the only registered one when none
// was sent.
func (c *Client) redirect(sent string) (string, bool) {
	if sent == "" {
		if len(c.RedirectURIs) == 1 {
			return c.RedirectURIs[0], true
		}
		return "", false
	}
	for _, r := range c.RedirectURIs {
		if redirectMatches(r, sent) {
			return sent, true
		}
	}
	return "", false
}

// redirectMatches compares a registered redirect URI with one sent: byte
// for byte, except that a loopback http redirect may use any port
// (RFC 8252 §7.3). Scheme, host, path and query must still match exactly.
func redirectMatches(registered, sent string) bool {
	if registered == sent {
		return true
	}
	r, err1 := url.Parse(registered)
	s, err2 := url.Parse(sent)
	if err1 != nil || err2 != nil || r.Scheme != "http" || s.Scheme != "http" || !cimd.IsLoopback(r.Hostname()) {
		return false
	}
	return r.Hostname() == s.Hostname() && r.EscapedPath() == s.EscapedPath() && r.RawQuery == s.RawQuery &&
		s.User == nil && s.Fragment == "" && !strings.Contains(sent, "#")
}

// errUnknownClient means no client has the id.
var errUnknownClient = errors.New("unknown client")

// documentID reports whether a client_id names its client by a URL, which
// is to be fetched.
func documentID(id string) bool {
	return strings.HasPrefix(strings.ToLower(id), "https://") || strings.HasPrefix(strings.ToLower(id), "http://")
}

// client resolves a client_id: a metadata document URL is fetched (as
// source's share of fetches allows), any other id is looked up among the
// pre-registered and the registered clients.
func (s *Server) client(ctx context.Context, id, source string) (*Client, error) {
	if id == "" {
		return nil, errUnknownClient
	}
	if documentID(id) {
		if !cimd.IsURL(id) {
			return nil, &cimd.Error{Rule: "a URL client_id must be https and have a path"}
		}
		doc, err := s.fetcher.Fetch(ctx, id, source)
		if err != nil {
			return nil, err
		}
		return &Client{ID: id, Name: doc.ClientName, RedirectURIs: doc.RedirectURIs, AuthMethod: "none", Document: true}, nil
	}
	for i := range s.cfg.Clients {
		if s.cfg.Clients[i].ID == id {
			return &s.cfg.Clients[i], nil
		}
	}
	c, err := s.store.registeredClient(ctx, id)
	if errors.Is(err, errNotFound) {
		return nil, errUnknownClient
	}
	return c, err
}
