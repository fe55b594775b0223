package oauth

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"plumbline/internal/oauth/intake"
	"plumbline/internal/telemetry"
)

// This file is the client credentials grant of the MCP authorization
// extension io.modelcontextprotocol/oauth-client-credentials: a
// pre-registered machine client (a background or contained agent)
// authenticates with its secret (client_secret_basic or
// client_secret_post) and gets a token for its service identity, bound to
// this resource like every token, with no person and no browser involved.

// ClientCredentialsExtension names the MCP authorization extension.
const ClientCredentialsExtension = "io.modelcontextprotocol/oauth-client-credentials"

var serviceName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidServiceName reports whether name may name a service identity:
// lower-case letters, digits, '.', '_' and '-', at most 63.
func ValidServiceName(name string) bool { return serviceName.MatchString(name) }

// checkMachine validates a pre-registered machine client.
func (c *Client) checkMachine() error {
	switch {
	case !serviceName.MatchString(c.Service):
		return fmt.Errorf("client %q: service must be a name of lower-case letters, digits, '.', '_' and '-' (at most 63)", c.ID)
	case c.public():
		return fmt.Errorf("client %q: a machine client (with a service) needs client_secret_sha256", c.ID)
	case len(c.RedirectURIs) > 0:
		return fmt.Errorf("client %q: a machine client (with a service) uses the client credentials grant and has no redirect_uris", c.ID)
	case !slices.Contains(c.Scope, ScopeReports):
		return fmt.Errorf("client %q: scope must include %s, which every call needs", c.ID, ScopeReports)
	}
	for _, sc := range c.Scope {
		if !slices.Contains(ServiceScopeChoices, sc) {
			return fmt.Errorf("client %q: each scope must be one of %s", c.ID, strings.Join(ServiceScopeChoices, ", "))
		}
	}
	return nil
}

// machineClients reports whether any pre-registered client uses the client
// credentials grant.
func (s *Server) machineClients() bool {
	return slices.ContainsFunc(s.cfg.Clients, func(c Client) bool { return c.Service != "" })
}

// clientCredentials answers the client credentials grant for c, already
// authenticated: the scope asked for (all the client may have, if none),
// bound to this resource.
func (s *Server) clientCredentials(w http.ResponseWriter, r *http.Request, c *Client) {
	f := r.PostForm
	if c.Service == "" {
		s.writeError(w, intake.Fail(http.StatusBadRequest, "unauthorized_client", "only a pre-registered machine client may use the client_credentials grant"))
		return
	}
	if len(f["resource"]) > 0 && s.resource(f["resource"]) == "" {
		s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_target", "resource must be this server's MCP endpoint, %s", s.cfg.Resource()))
		return
	}
	scope := c.Scope
	if asked := strings.Fields(f.Get("scope")); len(asked) > 0 {
		for _, sc := range asked {
			if !slices.Contains(c.Scope, sc) {
				s.writeError(w, intake.Fail(http.StatusBadRequest, "invalid_scope", "this client may be issued only: %s", strings.Join(c.Scope, " ")))
				return
			}
		}
		scope = asked
	}
	token, info, err := s.store.mint(r.Context(), grant{kind: KindService, subject: c.Service, clientID: c.ID, scope: scope,
		issuer: s.cfg.Issuer(), resource: s.cfg.Resource(), ttl: s.cfg.MachineTokenTTL})
	if err != nil {
		s.writeError(w, err)
		return
	}
	s.cfg.Metrics.Auth(telemetry.EventTokenIssued)
	writeToken(w, token, info.Expires, info.Scope)
}
