package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/reqlog"
	"plumbline/internal/servetest"
	"plumbline/internal/signin"
	"plumbline/reports/ask"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The test directory: an active manager, and people who must not get in.
var (
	dana  = oauth.Member{PersonID: "p-dana", Email: "dana.okafor@floor.example", Name: "Dana Okafor", Status: oauth.StatusActive}
	ravi  = oauth.Member{PersonID: "p-ravi", Email: "ravi.shah@floor.example", Name: "Ravi Shah", Status: oauth.StatusActive}
	gone  = oauth.Member{PersonID: "p-gone", Email: "gone@floor.example", Name: "Gone Person", Status: oauth.StatusRemoved}
	known = oauth.Client{ID: "desk", Name: "Reports desk", RedirectURIs: []string{"http://127.0.0.1/callback", "https://desk.example.com/cb"}}
)

// env is plumbline's HTTP surface over a test's own database: the MCP
// endpoint behind the authorization server, served on loopback.
type env struct {
	t       testing.TB
	db      *pgtest.DB
	sql     *pgx.Conn
	store   *oauth.Store
	server  *oauth.Server
	ts      *httptest.Server
	base    string
	records *recorder
}

// recorder reads the request log, to see whom each call was recorded as.
type recorder struct {
	log *reqlog.Log
	sql *pgx.Conn
}

// last is the newest call on record, with its outcome.
func (r *recorder) last() ask.Record {
	r.log.Flush(context.Background())
	var rec ask.Record
	var outcome *string
	err := r.sql.QueryRow(context.Background(), `SELECT person, client, tool, outcome FROM plumbline.calls
		ORDER BY started_at DESC LIMIT 1`).Scan(&rec.Caller.Person, &rec.Caller.Client, &rec.Tool, &outcome)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		panic(err)
	}
	if outcome != nil {
		rec.Outcome = *outcome
	}
	return rec
}

func newEnv(t testing.TB, adjust func(*oauth.Config)) *env {
	t.Helper()
	return newEnvWith(t, envOptions{adjust: adjust})
}

// envOptions vary a test's server.
type envOptions struct {
	adjust func(*oauth.Config)
	// asApp has the token store sign in as plumbline's login and run its
	// statements as the auth role, holding the real grants.
	asApp bool
	// signIn returns the sign-in method for a server at base; if nil, the
	// development sign-in.
	signIn func(base string) signin.Method
}

func newEnvWith(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	served := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, f *servetest.Floor) {
		o.Caller = oauth.Caller(f.Engine.ToolNames())
	}})
	rl, mcpSrv := served.Log, served.Server

	pool, err := pgxpool.New(ctx, db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &env{t: t, db: db, sql: db.Conn(t), store: oauth.NewStore(pool, ""), records: &recorder{log: rl, sql: db.Conn(t)}}
	if o.asApp {
		app, err := pgxpool.New(ctx, db.AppDSN)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(app.Close)
		e.store = oauth.NewStore(app, pgtest.Roles.Auth)
	}
	directory := oauth.NewStore(pool, "") // the directory
	for _, m := range []oauth.Member{dana, ravi, gone} {
		if err := directory.PutMember(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	// The server's address names its issuer, so the listener opens first;
	// it serves only once the handler is set.
	e.ts = httptest.NewUnstartedServer(nil)
	t.Cleanup(e.ts.Close)
	e.base = "http://" + e.ts.Listener.Addr().String()
	cfg := oauth.Config{BaseURL: e.base, Clients: []oauth.Client{known}, Logger: servetest.Quiet}
	if o.adjust != nil {
		o.adjust(&cfg)
	}
	var method signin.Method = signin.NewDev(e.store)
	if o.signIn != nil {
		method = o.signIn(e.base)
	}
	e.server, err = oauth.New(cfg, e.store, method)
	if err != nil {
		t.Fatal(err)
	}
	// As serve wires it: every answer timed (Server-Timing) from its arrival.
	e.ts.Config.Handler = mcpserver.Timed(e.server.Handler(mcpserver.StreamableHTTP(mcpSrv)))
	e.ts.Start()
	return e
}

// exec runs SQL as the superuser, for what the directory or time
// would do.
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.sql.Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatal(err)
	}
}

// browser is an HTTP client with cookies that follows redirects on the
// server but stops at a redirect anywhere else (to the client's callback).
func (e *env) browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	host := strings.TrimPrefix(e.base, "http://")
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != host || len(via) > 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat("v", 43) + seed
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authParams are the parameters of an authorization request from the
// pre-registered client, which a test may change.
func authParams(challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {known.ID}, "redirect_uri": {"http://127.0.0.1:4567/callback"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-123"},
		"resource": {""}, "scope": {"reports:read people:read"}}
}

func (e *env) authorizeURL(p url.Values) string {
	if p.Get("resource") == "" {
		p.Set("resource", e.base+"/mcp")
	}
	return e.base + "/authorize?" + p.Encode()
}

func get(t testing.TB, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func postForm(t testing.TB, c *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var hiddenField = regexp.MustCompile(`name="(\w+)" value="([^"]*)"`)

// fields reads a page's hidden form fields.
func fields(page string) url.Values {
	v := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		v.Set(m[1], html.UnescapeString(m[2]))
	}
	return v
}

// signIn signs a person in through the development sign-in, starting from
// an authorization request, and returns the page that follows (the
// consent page, or the redirect back to the client).
func (e *env) signIn(t testing.TB, c *http.Client, authURL, email string) (*http.Response, string) {
	t.Helper()
	resp, page := get(t, c, authURL)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Development sign-in") {
		t.Fatalf("the authorization request did not lead to the sign-in: %d\n%s", resp.StatusCode, page)
	}
	return postForm(t, c, e.base+"/signin/dev", url.Values{"email": {email}, "return_to": {fields(page).Get("return_to")}})
}

// approve submits the consent page and returns the redirect to the client.
func (e *env) approve(t testing.TB, c *http.Client, consent string) *url.URL {
	t.Helper()
	f := fields(consent)
	resp, body := postForm(t, c, e.base+"/authorize", url.Values{"csrf": {f.Get("csrf")}, "request": {f.Get("request")}, "decision": {"approve"}})
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("approving: %d\n%s", resp.StatusCode, body)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// code runs the whole flow for the pre-registered client as dana, in a
// fresh browser, and returns the code and the verifier.
func (e *env) code(t testing.TB) (code, verifier string) {
	t.Helper()
	verifier, challenge := pkce("flow")
	c := e.browser()
	resp, consent := e.signIn(t, c, e.authorizeURL(authParams(challenge)), dana.Email)
	var back *url.URL
	if resp.StatusCode == http.StatusFound { // consent was remembered
		back, _ = url.Parse(resp.Header.Get("Location"))
	} else {
		back = e.approve(t, c, consent)
	}
	if back.Query().Get("code") == "" {
		t.Fatalf("no code came back: %s", back)
	}
	return back.Query().Get("code"), verifier
}

// tokenResponse is the token endpoint's answer.
type tokenResponse struct {
	status  int
	header  http.Header
	Access  string `json:"access_token"`
	Type    string `json:"token_type"`
	Expires int64  `json:"expires_in"`
	Scope   string `json:"scope"`
	Refresh string `json:"refresh_token"`
	Error   string `json:"error"`
}

func (e *env) redeem(t testing.TB, code, verifier string, extra url.Values) tokenResponse {
	t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier},
		"client_id": {known.ID}, "redirect_uri": {"http://127.0.0.1:4567/callback"}}
	for k, v := range extra {
		form[k] = v
	}
	resp, err := http.PostForm(e.base+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	tr := tokenResponse{status: resp.StatusCode, header: resp.Header}
	json.NewDecoder(resp.Body).Decode(&tr)
	return tr
}

// mcpStatus posts a tools/list to /mcp with a token (if any) and returns
// the response.
func (e *env) mcpStatus(t testing.TB, token string, adjust func(*http.Request)) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if adjust != nil {
		adjust(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// bearer sends a token on every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a go-sdk client session to /mcp with a token.
func (e *env) connect(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer(token)}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect with a token: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its structured answer and isError.
func callTool(t testing.TB, cs *mcp.ClientSession, tool, args string) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return out, res.IsError
}
