package scim_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/members"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/scim"
	"plumbline/internal/servetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// env is plumbline's HTTP surface over a test's own database, as serve
// wires it: /mcp behind the authorization server, and the SCIM endpoint on
// the same origin. Every store signs in as plumbline's login and runs as
// the auth role, with the real grants.
type env struct {
	t      *testing.T
	db     *pgtest.DB
	oauth  *oauth.Store
	dir    *members.Store
	server *oauth.Server
	base   string
	token  string // a SCIM token
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	floor := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, f *servetest.Floor) {
		o.Caller = oauth.Caller(f.Engine.ToolNames())
	}})
	pool, err := pgxpool.New(ctx, db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &env{t: t, db: db, oauth: oauth.NewStore(pool, pgtest.Roles.Auth), dir: members.NewStore(pool, pgtest.Roles.Auth)}
	ts := httptest.NewUnstartedServer(nil)
	t.Cleanup(ts.Close)
	e.base = "http://" + ts.Listener.Addr().String()
	directory, err := scim.Handler(e.dir, scim.Options{BaseURL: e.base, PerMinute: scim.DefaultPerMinute, Logger: servetest.Quiet})
	if err != nil {
		t.Fatal(err)
	}
	e.server, err = oauth.New(oauth.Config{BaseURL: e.base, Logger: servetest.Quiet, Mount: map[string]http.Handler{scim.Path + "/": directory}},
		e.oauth, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = e.server.Handler(mcpserver.StreamableHTTP(floor.Server))
	ts.Start()
	if e.token, _, err = e.dir.CreateToken(ctx, "idp", time.Hour); err != nil {
		t.Fatal(err)
	}
	return e
}

// answer is a SCIM response: its status, header and body.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// str reads a string at a dotted path of the body.
func (a answer) str(path string) string {
	var v any = a.body
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// scim sends a SCIM request with the env's token, as a provider does.
func (e *env) scim(method, path, body string) answer {
	e.t.Helper()
	return e.send(method, path, body, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+e.token) })
}

func (e *env) send(method, path, body string, adjust func(*http.Request)) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+scim.Path+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/scim+json")
	req.Header.Set("Accept", "application/scim+json")
	if adjust != nil {
		adjust(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	json.Unmarshal(b, &a.body)
	return a
}

// count counts the rows a query finds, as the superuser.
func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Conn(e.t).QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// connect signs the member with a person id in, as a person's client
// would: it gets them a real access token and opens a go-sdk client
// session to /mcp with it.
func (e *env) connect(personID string) *mcp.ClientSession {
	e.t.Helper()
	token, _, err := e.oauth.CreatePersonToken(context.Background(), e.server.Config(), personID, time.Hour)
	if err != nil {
		e.t.Fatalf("a token for %s: %v", personID, err)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: e.base + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: oauth.BearerTransport(token, http.DefaultTransport)}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		e.t.Fatalf("connect with a token: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a report and returns the error the client gets, if any.
func call(cs *mcp.ClientSession) error {
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "metric_definitions", Arguments: json.RawMessage(`{}`)})
	return err
}
