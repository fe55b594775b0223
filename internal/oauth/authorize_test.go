package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"plumbline/internal/oauth"
)

// The whole flow over HTTP: the request leads to the sign-in, the consent
// page shows the redirect host and warns about a localhost redirect, the
// approval returns a code with state and iss, the code buys a token, and
// the token calls a report. A second request skips the consent page.
func TestAuthorizationCodeFlow(t *testing.T) {
	e := newEnv(t, nil)
	verifier, challenge := pkce("a")
	c := e.browser()
	resp, consent := e.signIn(t, c, e.authorizeURL(authParams(challenge)), dana.Email)
	if resp.StatusCode != 200 || !strings.Contains(consent, `id="redirect-host">127.0.0.1:4567<`) ||
		!strings.Contains(consent, `id="localhost-warning"`) || !strings.Contains(consent, "It chose that name itself") ||
		!strings.Contains(consent, "Reports desk") || !strings.Contains(consent, "Dana Okafor") {
		t.Fatalf("consent page: %d\n%s", resp.StatusCode, consent)
	}
	h := resp.Header
	if h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("Cache-Control") != "no-store" {
		t.Errorf("consent page headers: %v", h)
	}
	var session *http.Cookie
	u, _ := url.Parse(e.base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "__Host-plumbline-session" {
			session = ck
		}
	}
	if session == nil {
		t.Fatal("no __Host- session cookie")
	}

	back := e.approve(t, c, consent)
	q := back.Query()
	if back.Host != "127.0.0.1:4567" || back.Path != "/callback" || q.Get("state") != "st-123" || q.Get("iss") != e.base || len(q["code"]) != 1 {
		t.Fatalf("redirect back: %s", back)
	}
	tr := e.redeem(t, q.Get("code"), verifier, nil)
	if tr.status != 200 || tr.Type != "Bearer" || tr.Refresh != "" || tr.Scope != "reports:read people:read" ||
		tr.header.Get("Cache-Control") != "no-store" || tr.Expires < int64((89*24*time.Hour).Seconds()) || !strings.HasPrefix(tr.Access, "plb_") {
		t.Fatalf("token response: %+v", tr)
	}
	cs := e.connect(t, tr.Access)
	if out, isErr := callTool(t, cs, "sales", `{"who":{"team":"falcons"},"period":{"named":"last_week"}}`); isErr {
		t.Fatalf("sales with the token: %v", out)
	}
	if got := e.records.last().Caller; got.Person != dana.PersonID || got.Client != known.ID {
		t.Errorf("the call was recorded as %+v", got)
	}

	// Consent is remembered for this client and redirect URI.
	_, challenge2 := pkce("b")
	resp, _ = get(t, c, e.authorizeURL(authParams(challenge2)))
	if loc, _ := url.Parse(resp.Header.Get("Location")); resp.StatusCode != http.StatusFound || loc.Query().Get("code") == "" {
		t.Errorf("a second request did not skip consent: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// ... but not for another redirect URI.
	p := authParams(challenge2)
	p.Set("redirect_uri", "https://desk.example.com/cb")
	if resp, page := get(t, c, e.authorizeURL(p)); resp.StatusCode != 200 || !strings.Contains(page, `id="redirect-host">desk.example.com<`) ||
		strings.Contains(page, "localhost-warning") {
		t.Errorf("another redirect URI: %d\n%s", resp.StatusCode, page)
	}
}

// Declining sends access_denied back, with state and iss.
func TestDeny(t *testing.T) {
	e := newEnv(t, nil)
	_, challenge := pkce("a")
	c := e.browser()
	_, consent := e.signIn(t, c, e.authorizeURL(authParams(challenge)), dana.Email)
	f := fields(consent)
	resp, _ := postForm(t, c, e.base+"/authorize", url.Values{"csrf": {f.Get("csrf")}, "request": {f.Get("request")}, "decision": {"deny"}})
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || loc.Query().Get("error") != "access_denied" || loc.Query().Get("iss") != e.base || loc.Query().Get("code") != "" {
		t.Errorf("deny: %d %s", resp.StatusCode, loc)
	}
}

// The consent form needs the session's CSRF token and a same-origin post.
func TestConsentCSRF(t *testing.T) {
	e := newEnv(t, nil)
	_, challenge := pkce("a")
	c := e.browser()
	_, consent := e.signIn(t, c, e.authorizeURL(authParams(challenge)), dana.Email)
	f := fields(consent)
	resp, page := postForm(t, c, e.base+"/authorize", url.Values{"csrf": {"forged"}, "request": {f.Get("request")}, "decision": {"approve"}})
	if resp.StatusCode != 403 || resp.Header.Get("Location") != "" || !strings.Contains(page, "did not come from the consent page") {
		t.Errorf("a forged CSRF token: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ := http.NewRequest(http.MethodPost, e.base+"/authorize",
		strings.NewReader(url.Values{"csrf": {f.Get("csrf")}, "request": {f.Get("request")}, "decision": {"approve"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example.com")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("Location") != "" {
		t.Errorf("a cross-site approval: %d", resp.StatusCode)
	}
}

// A bad client or redirect URI gets an error page and never a redirect;
// the port of a loopback redirect may differ from the registered one, and
// nothing else may.
func TestRedirectRules(t *testing.T) {
	e := newEnv(t, nil)
	_, challenge := pkce("a")
	c := e.browser()
	refused := map[string]func(url.Values){
		"unknown client":           func(p url.Values) { p.Set("client_id", "nobody") },
		"no client":                func(p url.Values) { p.Del("client_id") },
		"unregistered redirect":    func(p url.Values) { p.Set("redirect_uri", "https://evil.example.com/callback") },
		"another path":             func(p url.Values) { p.Set("redirect_uri", "http://127.0.0.1:4567/other") },
		"localhost for 127.0.0.1":  func(p url.Values) { p.Set("redirect_uri", "http://localhost:4567/callback") },
		"a query added":            func(p url.Values) { p.Set("redirect_uri", "http://127.0.0.1:4567/callback?x=1") },
		"https port changed":       func(p url.Values) { p.Set("redirect_uri", "https://desk.example.com:8443/cb") },
		"no redirect, two on file": func(p url.Values) { p.Del("redirect_uri") },
		"a repeated client_id":     func(p url.Values) { p.Add("client_id", "desk") },
		"a metadata URL over http": func(p url.Values) { p.Set("client_id", "http://desk.example.com/client.json") },
	}
	for name, change := range refused {
		p := authParams(challenge)
		change(p)
		resp, page := get(t, c, e.authorizeURL(p))
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(page, "This sign-in cannot go on") ||
			strings.Contains(page, "evil.example.com") {
			t.Errorf("%s: %d %q\n%s", name, resp.StatusCode, resp.Header.Get("Location"), page)
		}
	}
	// Another loopback port is the same redirect URI.
	p := authParams(challenge)
	p.Set("redirect_uri", "http://127.0.0.1:9999/callback")
	if resp, page := get(t, c, e.authorizeURL(p)); resp.StatusCode != 200 || !strings.Contains(page, "Development sign-in") {
		t.Errorf("another loopback port: %d", resp.StatusCode)
	}
}

// Once the client and redirect URI are good, a bad request goes back to
// the client as an error with state and iss: PKCE S256 is required, and
// the resource must be this server's.
func TestRequestErrorsGoBack(t *testing.T) {
	e := newEnv(t, nil)
	_, challenge := pkce("a")
	c := e.browser()
	cases := map[string]struct {
		change func(url.Values)
		error  string
	}{
		"no PKCE":             {func(p url.Values) { p.Del("code_challenge"); p.Del("code_challenge_method") }, "invalid_request"},
		"plain PKCE":          {func(p url.Values) { p.Set("code_challenge_method", "plain") }, "invalid_request"},
		"no method":           {func(p url.Values) { p.Del("code_challenge_method") }, "invalid_request"},
		"token response type": {func(p url.Values) { p.Set("response_type", "token") }, "unsupported_response_type"},
		"another resource":    {func(p url.Values) { p.Set("resource", "https://other.example.com/mcp") }, "invalid_target"},
		"a resource fragment": {func(p url.Values) { p.Set("resource", e.base+"/mcp#x") }, "invalid_target"},
	}
	for name, tc := range cases {
		p := authParams(challenge)
		tc.change(p)
		resp, _ := get(t, c, e.authorizeURL(p))
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != 302 || loc.Host != "127.0.0.1:4567" || loc.Query().Get("error") != tc.error ||
			loc.Query().Get("state") != "st-123" || loc.Query().Get("iss") != e.base {
			t.Errorf("%s: %d %s", name, resp.StatusCode, loc)
		}
	}
	// Without a resource, the token is for this server's.
	verifier, challenge := pkce("r")
	p := authParams(challenge)
	p.Del("resource")
	_, consent := e.signIn(t, c, e.base+"/authorize?"+p.Encode(), dana.Email)
	back := e.approve(t, c, consent)
	tr := e.redeem(t, back.Query().Get("code"), verifier, nil)
	if tr.status != 200 || e.mcpStatus(t, tr.Access, nil).StatusCode != 200 {
		t.Errorf("no resource parameter: %+v", tr)
	}
}

// The token endpoint checks the grant, the verifier's form, the client and
// the resource before it reads the code, and a request refused for those
// leaves the code as it was (a wrong verifier or redirect URI spends it:
// TestAFailedRedemptionSpendsTheCode); a code works once: a second
// redemption fails and revokes what the first issued.
func TestTokenEndpoint(t *testing.T) {
	e := newEnv(t, nil)
	code, verifier := e.code(t)
	for name, tc := range map[string]struct {
		verifier string
		extra    url.Values
		error    string
	}{
		"no verifier":      {"", nil, "invalid_grant"},
		"another client":   {verifier, url.Values{"client_id": {"nobody"}}, "invalid_client"},
		"another resource": {verifier, url.Values{"resource": {"https://other.example.com/mcp"}}, "invalid_target"},
		"a refresh grant":  {verifier, url.Values{"grant_type": {"refresh_token"}}, "unsupported_grant_type"},
	} {
		if tr := e.redeem(t, code, tc.verifier, tc.extra); tr.status/100 != 4 || tr.Error != tc.error {
			t.Errorf("%s: %d %s", name, tr.status, tr.Error)
		}
	}
	first := e.redeem(t, code, verifier, nil)
	if first.status != 200 || e.mcpStatus(t, first.Access, nil).StatusCode != 200 {
		t.Fatalf("the good redemption: %+v", first)
	}
	if again := e.redeem(t, code, verifier, nil); again.status != 400 || again.Error != "invalid_grant" {
		t.Errorf("a second redemption: %+v", again)
	}
	if resp := e.mcpStatus(t, first.Access, nil); resp.StatusCode != 401 {
		t.Errorf("the first token after the code was replayed: %d", resp.StatusCode)
	}

	// Codes live five minutes.
	code, verifier = e.code(t)
	e.exec("UPDATE plumbline.oauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL")
	if tr := e.redeem(t, code, verifier, nil); tr.status != 400 || tr.Error != "invalid_grant" {
		t.Errorf("an expired code: %+v", tr)
	}
	var minutes float64
	e.sql.QueryRow(t.Context(), "SELECT extract(epoch FROM max(expires_at - created_at)) / 60 FROM plumbline.oauth_codes").Scan(&minutes)
	if minutes != 5 {
		t.Errorf("codes live %v minutes", minutes)
	}
}

// A code is spent by the first redemption that names it, even one that
// fails: after a wrong verifier, or another redirect URI, the right
// verifier gets nothing for it.
func TestAFailedRedemptionSpendsTheCode(t *testing.T) {
	e := newEnv(t, nil)
	wrong, _ := pkce("wrong")
	for name, tc := range map[string]struct {
		verifier func(right string) string
		extra    url.Values
	}{
		"a wrong verifier":     {func(string) string { return wrong }, nil},
		"another redirect URI": {func(right string) string { return right }, url.Values{"redirect_uri": {"http://127.0.0.1:4567/other"}}},
	} {
		code, verifier := e.code(t)
		if tr := e.redeem(t, code, tc.verifier(verifier), tc.extra); tr.status != 400 || tr.Error != "invalid_grant" {
			t.Errorf("%s: %d %s", name, tr.status, tr.Error)
		}
		if tr := e.redeem(t, code, verifier, nil); tr.status != 400 || tr.Error != "invalid_grant" || tr.Access != "" {
			t.Errorf("the right verifier after %s: %d %s, a token: %v", name, tr.status, tr.Error, tr.Access != "")
		}
	}
}

// Two racing redemptions of one code: exactly one wins, every time, and
// the loser's attempt revokes the winner's token.
func TestRacingRedemptions(t *testing.T) {
	e := newEnv(t, nil)
	for round := range 25 {
		code, verifier := e.code(t)
		var wg sync.WaitGroup
		results := make([]tokenResponse, 2)
		for i := range results {
			wg.Go(func() { results[i] = e.redeem(t, code, verifier, nil) })
		}
		wg.Wait()
		var won, lost int
		var winner string
		for _, r := range results {
			switch {
			case r.status == 200:
				won++
				winner = r.Access
			case r.status == 400 && r.Error == "invalid_grant":
				lost++
			}
		}
		if won != 1 || lost != 1 {
			t.Fatalf("round %d: %d won, %d lost: %+v", round, won, lost, results)
		}
		if resp := e.mcpStatus(t, winner, nil); resp.StatusCode != 401 {
			t.Fatalf("round %d: the winner's token survived the replay: %d", round, resp.StatusCode)
		}
	}
}

// The revocation endpoint revokes a client's own token, answers 200 for
// anything, and reveals nothing.
func TestRevocationEndpoint(t *testing.T) {
	e := newEnv(t, nil)
	code, verifier := e.code(t)
	tr := e.redeem(t, code, verifier, nil)
	revoke := func(form url.Values) int {
		resp, _ := postForm(t, http.DefaultClient, e.base+"/revoke", form)
		return resp.StatusCode
	}
	if s := revoke(url.Values{"token": {"plb_unknown"}, "client_id": {known.ID}}); s != 200 {
		t.Errorf("an unknown token: %d", s)
	}
	if s := revoke(url.Values{"token": {tr.Access}, "client_id": {"nobody"}}); s != 401 {
		t.Errorf("an unknown client: %d", s)
	}
	if e.mcpStatus(t, tr.Access, nil).StatusCode != 200 {
		t.Fatal("the token stopped working before it was revoked")
	}
	if s := revoke(url.Values{"token": {tr.Access}, "client_id": {known.ID}, "token_type_hint": {"access_token"}}); s != 200 {
		t.Errorf("revoke: %d", s)
	}
	if resp := e.mcpStatus(t, tr.Access, nil); resp.StatusCode != 401 {
		t.Errorf("a revoked token: %d", resp.StatusCode)
	}
}

// Only active members sign in, and membership is read fresh at consent.
func TestMembershipAtSignIn(t *testing.T) {
	e := newEnv(t, nil)
	_, challenge := pkce("a")
	c := e.browser()
	resp, page := get(t, c, e.authorizeURL(authParams(challenge)))
	if resp.StatusCode != 200 || strings.Contains(page, gone.Email) || !strings.Contains(page, dana.Email) {
		t.Errorf("the development sign-in lists: %s", page)
	}
	resp, page = postForm(t, c, e.base+"/signin/dev", url.Values{"email": {gone.Email}, "return_to": {fields(page).Get("return_to")}})
	if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
		t.Errorf("a removed member signing in: %d %s", resp.StatusCode, page)
	}
	_, consent := e.signIn(t, c, e.authorizeURL(authParams(challenge)), ravi.Email)
	e.exec("UPDATE plumbline.members SET status = 'locked' WHERE person_id = $1", ravi.PersonID)
	f := fields(consent)
	resp, _ = postForm(t, c, e.base+"/authorize", url.Values{"csrf": {f.Get("csrf")}, "request": {f.Get("request")}, "decision": {"approve"}})
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != 302 || loc.Query().Get("error") != "access_denied" || loc.Query().Get("code") != "" {
		t.Errorf("approval by a member locked meanwhile: %d %s", resp.StatusCode, loc)
	}
}

// A Host the server does not serve is refused before anything runs (421);
// a browser Origin that is not allowed is refused on /mcp (403); an
// allowed origin gets CORS that exposes the MCP and auth headers.
func TestHostAndOrigin(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.Origins = []string{"https://console.example.com"} })
	for _, path := range []string{"/mcp", "/authorize", "/token", "/.well-known/oauth-authorization-server", "/signin/dev"} {
		req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
		req.Host = "evil.example.com"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host evil.example.com on %s: %d", path, resp.StatusCode)
		}
	}
	if resp := e.mcpStatus(t, "", func(r *http.Request) { r.Host = "localhost" }); resp.StatusCode != 401 {
		t.Errorf("Host localhost on a loopback server: %d", resp.StatusCode)
	}
	if resp := e.mcpStatus(t, "", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example.com") }); resp.StatusCode != 403 {
		t.Errorf("Origin evil.example.com: %d", resp.StatusCode)
	}
	resp := e.mcpStatus(t, "", func(r *http.Request) { r.Header.Set("Origin", "https://console.example.com") })
	if resp.StatusCode != 401 || resp.Header.Get("Access-Control-Allow-Origin") != "https://console.example.com" ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Protocol-Version") {
		t.Errorf("an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ := http.NewRequest(http.MethodOptions, e.base+"/mcp", nil)
	req.Header.Set("Origin", "https://console.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version, mcp-param-region")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	allowed := resp.Header.Get("Access-Control-Allow-Headers")
	if resp.StatusCode != 204 || !strings.Contains(allowed, "Authorization") || !strings.Contains(allowed, "Mcp-Protocol-Version") ||
		!strings.Contains(allowed, "mcp-param-region") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

// Deployed behind a proxy on the same machine, the server is reached on
// loopback under its public host name: the allow-list serves that host
// (where the go-sdk's loopback-only check would refuse it) and still
// refuses others.
func TestHostBehindProxy(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.BaseURL = "https://reports.example.com" })
	token, _, err := e.store.CreateServiceToken(t.Context(), e.server.Config(), "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if resp := e.mcpStatus(t, token, func(r *http.Request) { r.Host = "reports.example.com" }); resp.StatusCode != 200 {
		t.Errorf("the public host through the proxy: %d", resp.StatusCode)
	}
	for _, host := range []string{"evil.example.com", "127.0.0.1"} {
		if resp := e.mcpStatus(t, token, func(r *http.Request) { r.Host = host }); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %s on a deployed server: %d", host, resp.StatusCode)
		}
	}
}
