package cimd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"
)

// Limits of a fetch.
const (
	MaxDocumentBytes = 5 * 1024
	DefaultTimeout   = 5 * time.Second
	maxCacheAge      = 24 * time.Hour
	maxCacheEntries  = 1000
	// DefaultFetchesPerMinute is how many documents one source may have
	// fetched in a minute, in a burst or spread out.
	DefaultFetchesPerMinute = 10
	maxSources              = 10_000
)

// ErrTooManyFetches means the source has had its share of fetches this
// minute.
var ErrTooManyFetches = errors.New("too many client metadata documents fetched for this address; try again in a minute")

// Options tune a Fetcher. The zero value is ready to use.
type Options struct {
	// Domains, if set, is the allow-list of client hosts: a client_id's
	// host must equal one of them, or end in one that starts with a dot
	// (".example.com" allows every subdomain of example.com).
	Domains []string
	// AllowLoopback lets the fetcher dial loopback addresses. For tests
	// only: in production it would let anyone make the server fetch from
	// itself.
	AllowLoopback bool
	// RootCAs, if set, are the certificate authorities trusted for
	// fetches instead of the system's. For tests.
	RootCAs *x509.CertPool
	// Timeout bounds one fetch. If zero, DefaultTimeout.
	Timeout time.Duration
	// FetchesPerMinute is how many documents one source may have fetched
	// in a minute. If zero, DefaultFetchesPerMinute.
	FetchesPerMinute int
}

// Document is a client's validated metadata.
type Document struct {
	ClientID     string
	ClientName   string
	ClientURI    string
	RedirectURIs []string
}

// Fetcher fetches and caches documents. It is safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	cache   map[string]cached
	sources map[string]*rate.Limiter
}

type cached struct {
	doc     *Document
	expires time.Time
}

// Error is a reason a client_id's document was refused. Its text names the
// rule, never the document's content.
type Error struct{ Rule string }

func (e *Error) Error() string { return "client metadata document: " + e.Rule }

func refuse(format string, args ...any) error { return &Error{Rule: fmt.Sprintf(format, args...)} }

// New returns a fetcher.
func New(opts Options) *Fetcher {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.FetchesPerMinute <= 0 {
		opts.FetchesPerMinute = DefaultFetchesPerMinute
	}
	dialer := &net.Dialer{Timeout: opts.Timeout, Control: func(network, address string, _ syscall.RawConn) error {
		return checkAddress(address, opts.AllowLoopback)
	}}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would be the address checked, not the target
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
	}
	return &Fetcher{
		opts: opts,
		client: &http.Client{Transport: transport, Timeout: opts.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		now:     time.Now,
		cache:   map[string]cached{},
		sources: map[string]*rate.Limiter{},
	}
}

// IsURL reports whether a client_id is a metadata document URL: https
// with a path. Anything else is an ordinary client id.
func IsURL(clientID string) bool {
	u, err := url.Parse(clientID)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/"
}

// checkURL applies the client identifier rules to a URL client_id.
func (f *Fetcher) checkURL(clientID string) (*url.URL, error) {
	u, err := url.Parse(clientID)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return nil, refuse("the client_id must be an https URL")
	case u.User != nil:
		return nil, refuse("the client_id URL must not carry a user name or password")
	case u.Fragment != "" || strings.Contains(clientID, "#"):
		return nil, refuse("the client_id URL must not have a fragment")
	case u.RawQuery != "" || strings.Contains(clientID, "?"):
		return nil, refuse("the client_id URL must not have a query")
	case u.Path == "" || u.Path == "/":
		return nil, refuse("the client_id URL must have a path")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e") {
			return nil, refuse("the client_id URL must not have . or .. path segments")
		}
	}
	if len(f.opts.Domains) > 0 && !f.allowedHost(u.Hostname()) {
		return nil, refuse("the client's host is not on this server's list of allowed client domains")
	}
	return u, nil
}

func (f *Fetcher) allowedHost(host string) bool {
	host = strings.ToLower(host)
	for _, d := range f.opts.Domains {
		d = strings.ToLower(d)
		if host == d || strings.HasPrefix(d, ".") && strings.HasSuffix(host, d) {
			return true
		}
	}
	return false
}

// Fetch returns the validated document of a URL client_id, from the cache
// when a fresh copy is there. Otherwise it is fetched, if the source asking
// (httpguard.Source) has not had its share of fetches this minute:
// ErrTooManyFetches if it has.
func (f *Fetcher) Fetch(ctx context.Context, clientID, source string) (*Document, error) {
	if _, err := f.checkURL(clientID); err != nil {
		return nil, err
	}
	f.mu.Lock()
	c, ok := f.cache[clientID]
	fresh := ok && f.now().Before(c.expires)
	allowed := fresh || f.allow(source)
	f.mu.Unlock()
	if fresh {
		return c.doc, nil
	}
	if !allowed {
		return nil, ErrTooManyFetches
	}
	doc, ttl, err := f.fetch(ctx, clientID)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ttl > 0 {
		if len(f.cache) >= maxCacheEntries {
			clear(f.cache)
		}
		f.cache[clientID] = cached{doc: doc, expires: f.now().Add(ttl)}
	} else {
		delete(f.cache, clientID)
	}
	return doc, nil
}

// allow spends one of source's fetches, if it has one left. f.mu is held.
func (f *Fetcher) allow(source string) bool {
	l, ok := f.sources[source]
	if !ok {
		if len(f.sources) >= maxSources {
			// Forget the sources whose allowance is whole again: they
			// lose nothing by it.
			for k, l := range f.sources {
				if l.Tokens() >= float64(f.opts.FetchesPerMinute) {
					delete(f.sources, k)
				}
			}
		}
		if len(f.sources) >= maxSources {
			return false
		}
		l = rate.NewLimiter(rate.Every(time.Minute/time.Duration(f.opts.FetchesPerMinute)), f.opts.FetchesPerMinute)
		f.sources[source] = l
	}
	return l.Allow()
}

func (f *Fetcher) fetch(ctx context.Context, clientID string) (*Document, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return nil, 0, refuse("the client_id URL cannot be fetched")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		var blocked *blockedError
		if errors.As(err, &blocked) {
			return nil, 0, refuse("the client_id's host resolves to an address this server does not fetch from")
		}
		return nil, 0, refuse("the client_id URL could not be fetched")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, refuse("fetching the client_id URL answered %d, not 200 (redirects are not followed)", resp.StatusCode)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil, 0, refuse("the document must be served as application/json")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return nil, 0, refuse("the document could not be read")
	}
	if len(body) > MaxDocumentBytes {
		return nil, 0, refuse("the document is larger than %d bytes", MaxDocumentBytes)
	}
	doc, err := parse(body, clientID)
	if err != nil {
		return nil, 0, err
	}
	return doc, cacheAge(resp.Header), nil
}

// parse validates a document fetched from clientID.
func parse(body []byte, clientID string) (*Document, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, refuse("the document is not a JSON object")
	}
	str := func(name string) (string, bool) {
		var s string
		v, ok := raw[name]
		return s, ok && json.Unmarshal(v, &s) == nil
	}
	id, _ := str("client_id")
	if id != clientID {
		return nil, refuse("the document's client_id must equal the URL it was fetched from")
	}
	name, ok := str("client_name")
	if !ok || strings.TrimSpace(name) == "" {
		return nil, refuse("the document must have a client_name")
	}
	for _, secret := range []string{"client_secret", "client_secret_expires_at"} {
		if _, ok := raw[secret]; ok {
			return nil, refuse("the document must not carry %s", secret)
		}
	}
	if v, ok := raw["token_endpoint_auth_method"]; ok {
		var m string
		if json.Unmarshal(v, &m) != nil || m != "none" {
			return nil, refuse("token_endpoint_auth_method must be none: this server takes no shared secrets or keys from a metadata document")
		}
	}
	var redirects []string
	if v, ok := raw["redirect_uris"]; !ok || json.Unmarshal(v, &redirects) != nil || len(redirects) == 0 {
		return nil, refuse("the document must list redirect_uris")
	}
	for _, r := range redirects {
		if !ValidRedirect(r) {
			return nil, refuse("every redirect URI must be https, or http on a loopback address, without a fragment")
		}
	}
	for _, list := range []struct{ field, need string }{{"grant_types", "authorization_code"}, {"response_types", "code"}} {
		if v, ok := raw[list.field]; ok {
			var values []string
			if json.Unmarshal(v, &values) != nil || !slices.Contains(values, list.need) {
				return nil, refuse("%s must include %s", list.field, list.need)
			}
		}
	}
	uri, _ := str("client_uri")
	if len([]rune(name)) > 100 {
		name = string([]rune(name)[:100])
	}
	return &Document{ClientID: id, ClientName: name, ClientURI: uri, RedirectURIs: redirects}, nil
}

// ValidRedirect reports whether a redirect URI is acceptable to register:
// https, or plain http on a loopback host, and no fragment.
func ValidRedirect(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" || u.Fragment != "" || strings.Contains(uri, "#") || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		return IsLoopback(u.Hostname())
	}
	return false
}

// IsLoopback reports whether a host is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// cacheAge is how long a response may be cached: its max-age (clamped to
// a day), or nothing when it says no-store or no-cache or gives no age.
func cacheAge(h http.Header) time.Duration {
	var age time.Duration
	for _, d := range strings.Split(h.Get("Cache-Control"), ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			if n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age=")); err == nil && n > 0 {
				age = time.Duration(n) * time.Second
			}
		}
	}
	return min(age, maxCacheAge)
}

// blockedError is a dial refused by the address check.
type blockedError struct{ addr netip.Addr }

func (e *blockedError) Error() string { return "refusing to dial a special-use address" }

// special are special-use ranges (RFC 6890 and successors) beyond what
// netip's predicates cover.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// checkAddress refuses to dial anything but a public unicast address
// (loopback too, when allowed).
func checkAddress(address string, allowLoopback bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{}
	}
	a := ap.Addr().Unmap()
	if a.IsLoopback() && allowLoopback {
		return nil
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return &blockedError{a}
	}
	for _, p := range special {
		if p.Contains(a) {
			return &blockedError{a}
		}
	}
	return nil
}
