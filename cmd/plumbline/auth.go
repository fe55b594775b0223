package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"plumbline/internal/oauth"
	"plumbline/internal/server"
)

// tokenEnv is where the stdio transport reads its token from. A token is
// never a flag: flags show in process listings.
const tokenEnv = "PLUMBLINE_TOKEN"

// authFlags configure sign-in and tokens; serve, demo and token share them.
type authFlags struct {
	publicURL, role                    *string
	tokenTTL, machineTTL               *time.Duration
	clients, clientDomains             *string
	hosts, origins                     *string
	oidcIssuer, oidcClient, oidcSecret *string
	registration                       *bool
	pruneEvery                         *time.Duration // set by addPruneFlag
}

// addAuthFlags adds the sign-in flags; role is the --auth-role flag, the
// role the token store's statements run as (SET LOCAL ROLE).
func addAuthFlags(f *flags, role *string) *authFlags {
	return &authFlags{
		publicURL:  f.string("public-url", "", "the public base `URL` clients reach plumbline at, e.g. https://reports.example.com; the OAuth issuer is exactly this and the resource is it plus /mcp (default: http:// and the address served on)"),
		role:       role,
		tokenTTL:   f.duration("token-ttl", oauth.DefaultTokenTTL, "how long an access token issued through sign-in lives"),
		machineTTL: f.duration("machine-token-ttl", oauth.DefaultMachineTokenTTL, "how long a token a machine client gets by the client credentials grant lives"),
		clients: f.string("clients", "", "YAML `file` of pre-registered OAuth clients (client_id, client_name, redirect_uris, optional client_secret_sha256; "+
			"a machine client has service and scope instead of redirect_uris, and uses the client credentials grant)"),
		clientDomains: f.string("client-domains", "", "comma-separated `hosts` whose Client ID Metadata Documents are accepted (.example.com allows subdomains); empty accepts any public https host"),
		hosts:         f.string("allow-hosts", "", "comma-separated Host `names` served besides the public URL's host (loopback is always served on a loopback public URL)"),
		origins:       f.string("allow-origins", "", "comma-separated browser `origins` allowed to call /mcp besides the public URL's own"),
		oidcIssuer:    f.string("oidc-issuer", "", "OpenID Connect provider `URL` people sign in with; without it, only a loopback server offers the development sign-in"),
		oidcClient:    f.string("oidc-client-id", "", "plumbline's client `id` at the OpenID Connect provider"),
		oidcSecret:    f.string("oidc-client-secret", "", "plumbline's client `secret` at the OpenID Connect provider"),
		registration: f.boolean("registration", false, "turn on Dynamic Client Registration (RFC 7591; deprecated, for clients without Client ID Metadata Document support; "+
			"20 valid registrations per source address in any hour, across replicas)"),
	}
}

// addPruneFlag adds the flag of how often an HTTP server prunes the
// sign-in state, for serve and demo.
func (af *authFlags) addPruneFlag(f *flags) {
	af.pruneEvery = f.duration("prune-every", oauth.DefaultPruneEvery, "how often an HTTP server deletes spent sign-in state (codes a day past expiry, "+
		"expired sessions, tokens 30 days past expiry or revocation); 0 leaves it to plumbline prune-log")
}

// values returns the flags' values (server.Auth).
func (af *authFlags) values() *server.Auth {
	a := &server.Auth{PublicURL: *af.publicURL, Role: *af.role, TokenTTL: *af.tokenTTL, MachineTokenTTL: *af.machineTTL,
		ClientsFile: *af.clients, ClientDomains: *af.clientDomains, Hosts: *af.hosts, Origins: *af.origins,
		OIDCIssuer: *af.oidcIssuer, OIDCClientID: *af.oidcClient, OIDCClientSecret: *af.oidcSecret, Registration: *af.registration}
	if af.pruneEvery != nil {
		a.PruneEvery = *af.pruneEvery
	}
	return a
}

// demoTokenFile keeps the demo's ready token beside its cluster, so that
// a configuration pasted once keeps working on every later run, until the
// cluster is deleted, rather than each run spending one of the manager's
// live tokens.
const demoTokenFile = "demo-token"

// demoToken returns the demo's ready token for the manager: the one kept
// in dir while it still holds (it may have expired, or been issued for
// another --addr), else a new one, kept there for the next run.
func demoToken(ctx context.Context, dsn string, auth *server.Auth, cfg *oauth.Config, manager oauth.Member, dir string) (string, error) {
	store, closeStore, err := auth.Store(ctx, dsn, nil)
	if err != nil {
		return "", err
	}
	defer closeStore()
	path := filepath.Join(dir, demoTokenFile)
	if kept, err := os.ReadFile(path); err == nil {
		as, err := oauth.New(*cfg, store, nil)
		if err != nil {
			return "", err
		}
		token := strings.TrimSpace(string(kept))
		id, err := as.Verify(ctx, token)
		switch {
		case err == nil && id.Kind == oauth.KindPerson && id.Subject == manager.PersonID:
			return token, nil
		case err != nil && !errors.Is(err, oauth.ErrInvalidToken):
			return "", err
		}
	}
	token, _, err := store.CreatePersonToken(ctx, cfg, manager.PersonID, cfg.TokenTTL)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the demo's token: %w", err)
	}
	return token, nil
}
