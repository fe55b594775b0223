package oauth

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"plumbline/internal/oauth/cimd"
	"plumbline/internal/telemetry"
)

// Scopes. A person's token carries ScopeReports and ScopePeople, never more;
// a service token carries only ScopeReports unless it is created with more.
const (
	// ScopeReports lets a token call the report tools; every call to /mcp
	// needs it.
	ScopeReports = "reports:read"
	// ScopePeople lets a token also browse the people directory: the
	// roster and find_people tools.
	ScopePeople = "people:read"
	// ScopeAnalyst lets a service token also use the analyst's door: one
	// parsed SELECT over the analyst's allow-list (the sql tool). It is
	// for contained agents only, and a person's token never carries it.
	ScopeAnalyst = "analyst:sql"
)

// Scopes lists the scopes a client may ask for when a person signs in, in
// the order the resource's metadata publishes them.
var Scopes = []string{ScopeReports, ScopePeople}

// ServiceScopeChoices lists every scope a service token may carry: those of
// a person, and the analyst's door.
var ServiceScopeChoices = []string{ScopeReports, ScopePeople, ScopeAnalyst}

// PersonScopes is what a person's token carries unless the client asks
// for less.
var PersonScopes = []string{ScopeReports, ScopePeople}

// ServiceScopes is what a service token carries unless created with more.
var ServiceScopes = []string{ScopeReports}

// The tools a scope unlocks beyond the reports.
var (
	peopleTools  = []string{"roster", "find_people"} // ScopePeople
	analystTools = []string{"sql"}                   // ScopeAnalyst, for a service
)

// CLIClient is the client id recorded for tokens the command line issues.
const CLIClient = "plumbline-cli"

// Defaults.
const (
	DefaultTokenTTL = 90 * 24 * time.Hour
	// DefaultMachineTokenTTL is how long a token issued by the client
	// credentials grant lives: a machine client asks again, with no person
	// to bother.
	DefaultMachineTokenTTL = time.Hour
)

// Config configures the authorization server and the resource it protects.
type Config struct {
	// BaseURL is the one public URL clients reach plumbline at, such as
	// https://reports.example.com. The issuer is exactly this string, the
	// resource is it plus /mcp, and both appear byte-identical wherever
	// they are published. Plain http is allowed only for loopback hosts.
	BaseURL string
	// TokenTTL is how long an access token lives. If zero,
	// DefaultTokenTTL.
	TokenTTL time.Duration
	// MachineTokenTTL is how long a token issued by the client credentials
	// grant lives. If zero, DefaultMachineTokenTTL.
	MachineTokenTTL time.Duration
	// Clients are the pre-registered clients.
	Clients []Client
	// Registration turns on Dynamic Client Registration (RFC 7591), which
	// is deprecated and off by default.
	Registration bool
	// CIMD tunes how Client ID Metadata Documents are fetched.
	CIMD cimd.Options
	// Hosts are the Host header values served besides the base URL's own
	// host; loopback hosts are always served on a loopback base URL.
	Hosts []string
	// Origins are the browser origins allowed to call /mcp besides the
	// base URL's own.
	Origins []string
	// Logger receives faults. If nil, slog.Default().
	Logger *slog.Logger
	// Metrics, if set, count sign-in and token events and the
	// registration limit's refusals (package telemetry).
	Metrics *telemetry.Metrics
	// Mount are more handlers served on the same origin behind the same
	// Host checks, by the pattern each is registered under (as
	// http.ServeMux takes it), such as the SCIM endpoint.
	Mount map[string]http.Handler
}

// Issuer is the authorization server's issuer identifier.
func (c *Config) Issuer() string { return c.BaseURL }

// Resource is the canonical URL of the protected MCP endpoint.
func (c *Config) Resource() string { return c.BaseURL + "/mcp" }

// MetadataURL is where the resource's Protected Resource Metadata is.
func (c *Config) MetadataURL() string {
	return c.BaseURL + "/.well-known/oauth-protected-resource/mcp"
}

// Validate checks the configuration and fills in defaults.
func (c *Config) Validate() error {
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("the public base URL must be a scheme and host only, such as https://reports.example.com")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())) {
		return fmt.Errorf("the public base URL must be https (plain http only for a loopback host)")
	}
	canonical := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
	if c.BaseURL != canonical {
		return fmt.Errorf("the public base URL must be written in its canonical form, %s", canonical)
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = DefaultTokenTTL
	}
	if c.MachineTokenTTL <= 0 {
		c.MachineTokenTTL = DefaultMachineTokenTTL
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	for i := range c.Clients {
		if err := c.Clients[i].check(); err != nil {
			return err
		}
	}
	return nil
}

// Loopback reports whether the base URL names a loopback host, which is
// when the development sign-in may exist.
func (c *Config) Loopback() bool {
	u, err := url.Parse(c.BaseURL)
	return err == nil && isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether a host name or address is loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// LoadClients reads pre-registered clients from a YAML file:
//
//   - client_id: reports-desk
//     client_name: Reports desk
//     redirect_uris: [https://desk.example.com/callback, http://127.0.0.1/callback]
//     client_secret_sha256: 9f86d0…   # optional; without it the client is public
//   - client_id: floor-analyst-vm     # a machine client: client credentials
//     service: floor-analyst          # its tokens speak for service:floor-analyst
//     scope: reports:read analyst:sql # what it may be issued
//     client_secret_sha256: 4e07408…  # required
func LoadClients(path string) ([]Client, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		ID           string   `yaml:"client_id"`
		Name         string   `yaml:"client_name"`
		RedirectURIs []string `yaml:"redirect_uris"`
		SecretSHA256 string   `yaml:"client_secret_sha256"`
		Service      string   `yaml:"service"`
		Scope        string   `yaml:"scope"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]Client, 0, len(raw))
	for _, r := range raw {
		c := Client{ID: r.ID, Name: r.Name, RedirectURIs: r.RedirectURIs, AuthMethod: "none", Service: r.Service,
			Scope: strings.FieldsFunc(r.Scope, func(r rune) bool { return r == ' ' || r == ',' })}
		if r.SecretSHA256 != "" {
			if _, err := fmt.Sscanf(r.SecretSHA256, "%x", &c.secretHash); err != nil || len(c.secretHash) != 32 {
				return nil, fmt.Errorf("%s: client %q: client_secret_sha256 must be 64 hex digits", path, r.ID)
			}
			c.AuthMethod = "client_secret_basic"
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// scopeTools lists the tools a token of kind with scope may call, out of
// all: the analyst's door only for a service.
func scopeTools(kind string, scope, all []string) []string {
	out := []string{}
	for _, t := range all {
		switch {
		case slices.Contains(peopleTools, t) && !slices.Contains(scope, ScopePeople):
		case slices.Contains(analystTools, t) && (kind != KindService || !slices.Contains(scope, ScopeAnalyst)):
		default:
			out = append(out, t)
		}
	}
	return out
}
