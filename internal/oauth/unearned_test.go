package oauth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/oauth"
	"plumbline/internal/oauth/cimd"
	"plumbline/internal/telemetry"
)

// from returns an HTTP client whose connections come from the loopback
// address local (any of 127.0.0.0/8), with cookies, stopping at redirects
// away from the server.
func (e *env) from(local string) *http.Client {
	c := e.browser()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c.Transport = &http.Transport{DialContext: dialer.DialContext}
	return c
}

// Junk registrations cost nothing, valid ones are limited per source
// address, and the limit lives in the database: a second replica on it
// refuses the same source, while another address still registers.
func TestRegistrationLimitPerSource(t *testing.T) {
	e := newEnvWith(t, envOptions{asApp: true, adjust: func(c *oauth.Config) { c.Registration = true }})
	register := func(c *http.Client, base, body string) (int, string) {
		resp, err := c.Post(base+"/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	const valid = `{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"native","token_endpoint_auth_method":"none"}`
	junk := []string{`{`, `[]`, `{"redirect_uris":["http://127.0.0.1/cb"]}`, `{"application_type":"native"}`,
		`{"redirect_uris":["ftp://x/cb"],"application_type":"native"}`}
	a, b := e.from("127.0.0.2"), e.from("127.0.0.1")
	for i := range 60 {
		if status, _ := register(a, e.base, junk[i%len(junk)]); status != 400 {
			t.Fatalf("junk registration %d: %d, want 400", i, status)
		}
	}
	for i := range oauth.RegistrationsPerHour {
		if status, _ := register(a, e.base, valid); status != 201 {
			t.Fatalf("after 60 junk requests, valid registration %d from the same address: %d, want 201", i+1, status)
		}
	}
	status, retry := register(a, e.base, valid)
	wait, _ := strconv.Atoi(retry)
	if status != 429 || wait < 1 || wait > 3600 {
		t.Errorf("registration %d from one address: %d, Retry-After %q", oauth.RegistrationsPerHour+1, status, retry)
	}
	// A second replica: its own server on the same database.
	replica, err := oauth.New(*e.server.Config(), e.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(replica.Handler(http.NotFoundHandler()))
	defer ts.Close()
	if status, _ := register(a, ts.URL, valid); status != 429 {
		t.Errorf("the same address on another replica: %d, want 429", status)
	}
	if status, _ := register(b, e.base, valid); status != 201 {
		t.Errorf("another address, once the first is limited: %d, want 201", status)
	}
	if status, _ := register(b, ts.URL, valid); status != 201 {
		t.Errorf("another address on the other replica: %d, want 201", status)
	}
	var fromA, fromB int
	e.sql.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE registered_from = '127.0.0.2'),
		count(*) FILTER (WHERE registered_from = '127.0.0.1') FROM plumbline.oauth_clients`).Scan(&fromA, &fromB)
	if fromA != oauth.RegistrationsPerHour || fromB != 2 {
		t.Errorf("clients registered: %d from the limited address, %d from the other; want %d and 2", fromA, fromB, oauth.RegistrationsPerHour)
	}
}

// A Client ID Metadata Document is fetched only for an authorization
// request that is otherwise valid (and, on POST, only after the CSRF
// check), once while it is cached, and each address may have only so many
// fetched a minute: counted at a real document server.
func TestNothingFetchedForABadRequest(t *testing.T) {
	d := newDocServer(t)
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	e := newEnv(t, func(c *oauth.Config) {
		c.CIMD = cimd.Options{AllowLoopback: true, RootCAs: pool, Timeout: 500 * time.Millisecond}
	})
	cached := http.Header{"Cache-Control": {"max-age=300"}}
	doc := d.set("/desk.json", jsonDoc(nil, cached))
	_, challenge := pkce("c")
	request := func(change func(url.Values)) url.Values {
		p := authParams(challenge)
		p.Set("client_id", doc)
		p.Set("redirect_uri", "http://127.0.0.1:7777/callback")
		if change != nil {
			change(p)
		}
		if p.Get("resource") == "" {
			p.Set("resource", e.base+"/mcp")
		}
		return p
	}
	bad := map[string]func(url.Values){
		"no PKCE":               func(p url.Values) { p.Del("code_challenge") },
		"plain PKCE":            func(p url.Values) { p.Set("code_challenge_method", "plain") },
		"a token response":      func(p url.Values) { p.Set("response_type", "token") },
		"another resource":      func(p url.Values) { p.Set("resource", "https://elsewhere.example.com/mcp") },
		"a repeated redirect":   func(p url.Values) { p.Add("redirect_uri", "http://127.0.0.1:7778/callback") },
		"a plain http redirect": func(p url.Values) { p.Set("redirect_uri", "http://desk.example.com/callback") },
	}
	for what, change := range bad {
		resp, page := get(t, e.browser(), e.base+"/authorize?"+request(change).Encode())
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !regexp.MustCompile(`not valid|repeats|not one any app may register`).MatchString(page) {
			t.Errorf("%s: %d\n%s", what, resp.StatusCode, page)
		}
	}
	// POST /authorize: without the session's CSRF token, nothing is
	// fetched, however good the request it names.
	resp, _ := postForm(t, e.browser(), e.base+"/authorize", url.Values{"csrf": {"forged"}, "request": {request(nil).Encode()}, "decision": {"approve"}})
	if resp.StatusCode != 403 {
		t.Errorf("a forged approval: %d", resp.StatusCode)
	}
	if n := d.count("/desk.json"); n != 0 {
		t.Fatalf("the document was fetched %d times for bad requests", n)
	}
	for range 3 {
		if resp, page := get(t, e.browser(), e.base+"/authorize?"+request(nil).Encode()); resp.StatusCode != 200 {
			t.Fatalf("a good request: %d\n%s", resp.StatusCode, page)
		}
	}
	if n := d.count("/desk.json"); n != 1 {
		t.Errorf("three good requests fetched the cached document %d times, want 1", n)
	}

	// Each address may have DefaultFetchesPerMinute documents fetched a
	// minute (one is spent above); another address is unaffected.
	a, b := e.from("127.0.0.1"), e.from("127.0.0.3")
	start := func(c *http.Client, path string) (int, string) {
		id := d.set(path, jsonDoc(nil, nil))
		resp, page := get(t, c, e.base+"/authorize?"+request(func(p url.Values) { p.Set("client_id", id) }).Encode())
		return resp.StatusCode, page
	}
	for i := range cimd.DefaultFetchesPerMinute - 1 {
		if status, page := start(a, fmt.Sprintf("/a%d.json", i)); status != 200 {
			t.Fatalf("fetch %d from one address: %d\n%s", i+2, status, page)
		}
	}
	status, page := start(a, "/over.json")
	if status != 400 || !strings.Contains(page, "Too many apps were looked up from your network") || d.count("/over.json") != 0 {
		t.Errorf("fetch %d from one address in a minute: %d, fetched %d times\n%s", cimd.DefaultFetchesPerMinute+1, status, d.count("/over.json"), page)
	}
	if status, page := start(b, "/other.json"); status != 200 || d.count("/other.json") != 1 {
		t.Errorf("a fetch from another address: %d\n%s", status, page)
	}
}

// When the database is out of reach, /mcp answers 503 with Retry-After
// and the Bearer challenge, for a token never seen and for one seen
// before; service comes back with the database.
func TestUnavailableSaysWhenToRetry(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	seen, _, err := e.store.CreateServiceToken(ctx, e.server.Config(), "seen", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, err := e.store.CreateServiceToken(ctx, e.server.Config(), "fresh", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, seen)
	if _, isErr := callTool(t, cs, "health", `{}`); isErr {
		t.Fatal("health before the outage")
	}
	// The outage: the test's database takes no connections, and those it
	// had are cut, from a connection to another database of the server.
	cc, err := pgx.ParseConfig(e.db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	database := cc.Database
	cc.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	adminExec := func(sql string) {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	adminExec(fmt.Sprintf("ALTER DATABASE %q WITH ALLOW_CONNECTIONS false", database))
	adminExec(fmt.Sprintf("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s'", database))
	restored := false
	restore := func() {
		if !restored {
			restored = true
			adminExec(fmt.Sprintf("ALTER DATABASE %q WITH ALLOW_CONNECTIONS true", database))
		}
	}
	defer restore()
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"health","arguments":{}}}`
	for what, token := range map[string]string{"a token never seen": fresh, "a token seen before": seen} {
		resp := e.mcpStatus(t, token, func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(call)), int64(len(call))
		})
		challenge := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" ||
			!strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, `resource_metadata="`+e.base+"/.well-known/oauth-protected-resource/mcp") {
			t.Errorf("%s during the outage: %d, Retry-After %q, WWW-Authenticate %q", what, resp.StatusCode, resp.Header.Get("Retry-After"), challenge)
		}
	}
	if resp, body := postForm(t, http.DefaultClient, e.base+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {"c"},
		"code_verifier": {strings.Repeat("v", 43)}, "client_id": {known.ID}}); resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" ||
		!strings.Contains(body, "temporarily_unavailable") {
		t.Errorf("the token endpoint during the outage: %d, Retry-After %q\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// Back: the server answers again once the database does, with no
	// restart; how long that took is logged, and a minute is a guard
	// against a server that never comes back.
	restore()
	back := time.Now()
	guard := time.After(time.Minute)
	for e.mcpStatus(t, fresh, nil).StatusCode != 200 {
		select {
		case <-guard:
			t.Fatal("not back a minute after the database")
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Logf("back %s after the database", time.Since(back).Round(time.Millisecond))
}

// Pruning deletes the sign-in state that can no longer be used and
// nothing else, on the server's schedule, as plumbline's own login, which
// can still delete nothing by itself; prune-log's administrator runs the
// same rules.
func TestPruneRemovesOnlySpentState(t *testing.T) {
	e := newEnvWith(t, envOptions{asApp: true})
	ctx := context.Background()
	code := func(name, expires string) {
		e.exec(`INSERT INTO plumbline.oauth_codes (code_hash, client_id, person_id, redirect_uri, code_challenge, scope, resource, expires_at)
			VALUES ($1, 'desk', 'p-dana', 'http://127.0.0.1/callback', 'x', 'reports:read', 'r', now() + $2::interval)`, []byte(name), expires)
	}
	session := func(name, expires string) {
		e.exec(`INSERT INTO plumbline.oauth_sessions (session_hash, person_id, csrf, expires_at) VALUES ($1, 'p-dana', 'c', now() + $2::interval)`,
			[]byte(name), expires)
	}
	token := func(name, expires string, revoked *string) {
		e.exec(`INSERT INTO plumbline.oauth_tokens (token_hash, kind, subject, client_id, scope, issuer, resource, expires_at, revoked_at)
			VALUES ($1, 'person', 'p-dana', 'desk', 'reports:read', 'i', 'r', now() + $2::interval, now() + $3::interval)`, []byte(name), expires, revoked)
	}
	failure := func(name, at string) {
		e.exec(`INSERT INTO plumbline.oauth_client_failures (client_id, source, failed_at) VALUES ($1, '127.0.0.2', now() + $2::interval)`, name, at)
	}
	ago := func(s string) *string { return &s }
	spend := func() {
		code("expired two days ago", "-2 days")
		session("expired a minute ago", "-1 minute")
		token("expired forty days ago", "-40 days", nil)
		token("revoked forty days ago", "50 days", ago("-40 days"))
		failure("failed two days ago", "-2 days")
	}
	code("live", "5 minutes")
	code("expired an hour ago", "-1 hour")
	session("live", "1 hour")
	token("live", "30 days", nil)
	token("expired ten days ago", "-10 days", nil)
	token("revoked a day ago", "30 days", ago("-1 day"))
	failure("failed an hour ago", "-1 hour")
	spend()

	app, err := pgx.Connect(ctx, e.db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	for _, table := range []string{"oauth_codes", "oauth_sessions", "oauth_tokens", "oauth_client_failures"} {
		if _, err := app.Exec(ctx, "DELETE FROM plumbline."+table); err == nil {
			t.Errorf("plumbline's login could delete from %s by itself", table)
		}
	}
	left := func(table, column string) []string {
		rows, err := e.sql.Query(ctx, "SELECT convert_from("+column+"::bytea, 'UTF8') FROM plumbline."+table+" ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	kept := []struct {
		table, column string
		left          []string
	}{
		{"oauth_codes", "code_hash", []string{"expired an hour ago", "live"}},
		{"oauth_sessions", "session_hash", []string{"live"}},
		{"oauth_tokens", "token_hash", []string{"expired ten days ago", "live", "revoked a day ago"}},
		{"oauth_client_failures", "client_id", []string{"failed an hour ago"}},
	}
	check := func(who string) {
		t.Helper()
		for _, want := range kept {
			if got := left(want.table, want.column); strings.Join(got, "|") != strings.Join(want.left, "|") {
				t.Errorf("%s: %s left after pruning: %q, want %q", who, want.table, got, want.left)
			}
		}
	}

	// The server's schedule, as its login: every spent row goes within a
	// few rounds, the metrics count them, and stopping ends the loop.
	metrics := telemetry.NewMetrics(telemetry.Build{})
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.store.PruneEvery(pctx, 20*time.Millisecond, slog.New(slog.DiscardHandler), metrics)
	}()
	for deadline := time.Now().Add(10 * time.Second); len(left("oauth_tokens", "token_hash")) > 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	check("the server's schedule")
	scrape := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(scrape, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{`plumbline_signin_pruned_total{kind="codes"} 1`, `plumbline_signin_pruned_total{kind="sessions"} 1`,
		`plumbline_signin_pruned_total{kind="tokens"} 2`, `plumbline_signin_pruned_total{kind="client_failures"} 1`} {
		if !strings.Contains(scrape.Body.String(), want) {
			t.Errorf("the metrics lack %s", want)
		}
	}

	// prune-log's administrator, with the same rules.
	spend()
	p, err := oauth.Prune(ctx, e.sql)
	if err != nil {
		t.Fatal(err)
	}
	if p != (oauth.Pruned{Codes: 1, Sessions: 1, Tokens: 2, ClientFailures: 1}) {
		t.Errorf("pruned %+v, want 1 code, 1 session, 2 tokens and 1 failed client authentication", p)
	}
	check("an administrator")
}
