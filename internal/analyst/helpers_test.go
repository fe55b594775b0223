package analyst_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/internal/grants"
	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/servetest"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The machine client the tests pre-register, and its secret.
const (
	machineID     = "floor-analyst-vm"
	machineSecret = "a secret only the contained agent's machine knows"
)

// floor is plumbline in front of a test's demo floor database, over real
// HTTP with its authorization server, as `plumbline serve --analyst-db`
// runs it: reports signed in as plumbline's login, the analyst's door
// signed in as the agent login.
type floor struct {
	db     *pgtest.DB
	sql    *pgx.Conn // a superuser, for expected figures and the audit log
	door   *analyst.Door
	cfg    *oauth.Config
	tokens *oauth.Store
	url    string // the MCP endpoint
}

// setup is what a test may change before plumbline starts.
type setup struct {
	perMinute int           // statements per service per minute; 0 for none
	timeout   time.Duration // the door's statement timeout
	before    func(db *pgtest.DB, conn *pgx.Conn)
}

func newFloor(t testing.TB, s setup) *floor {
	t.Helper()
	ctx := context.Background()
	db := pgtest.NewDB(t)
	f := &floor{db: db, sql: db.Conn(t)}
	if s.before != nil {
		s.before(db, f.sql)
	}
	gs, err := grants.LoadFor(sqlfiles.AnalystGrants(), grants.ToAnalyst)
	if err != nil {
		t.Fatal(err)
	}
	perMinute := s.perMinute
	if perMinute == 0 {
		perMinute = -1
	}
	served := servetest.New(t, db, &servetest.Options{Server: func(o *mcpserver.Options, sf *servetest.Floor) {
		st := sf.Store
		f.door, err = analyst.Open(ctx, db.AgentDSN, st, gs, &analyst.Options{Role: pgtest.Roles.Analyst, Logger: pgtest.Roles.Logger,
			StatementTimeout: s.timeout, PerMinute: perMinute, TimeZone: st.Catalog().Zone().String(), Reports: sf.Engine.Tools(),
			Log: servetest.Quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.door.Close)
		o.Analyst = f.door
		o.Caller = oauth.Caller(append(sf.Engine.ToolNames(), analyst.ToolName))
	}})
	srv := served.Server

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	f.tokens = oauth.NewStore(pool, pgtest.Roles.Auth)
	sum := sha256.Sum256([]byte(machineSecret))
	clients, err := loadClients(t, `- client_id: `+machineID+`
  client_name: The floor's analyst agent
  service: floor-analyst
  scope: reports:read analyst:sql
  client_secret_sha256: `+hex.EncodeToString(sum[:]))
	if err != nil {
		t.Fatal(err)
	}
	as, err := oauth.New(oauth.Config{BaseURL: "http://" + ln.Addr().String(), Clients: clients, Logger: servetest.Quiet}, f.tokens, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg = as.Config()
	hs := &http.Server{Handler: as.Handler(mcpserver.StreamableHTTP(srv))}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	f.url = f.cfg.Resource()
	return f
}

// loadClients reads pre-registered clients as `serve --clients` does.
func loadClients(t testing.TB, yaml string) ([]oauth.Client, error) {
	path := t.TempDir() + "/clients.yaml"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return oauth.LoadClients(path)
}

// serviceToken issues a token for a service with the scopes, as `plumbline
// token create --service` does.
func (f *floor) serviceToken(t testing.TB, service string, scope ...string) string {
	t.Helper()
	token, _, err := f.tokens.CreateServiceToken(context.Background(), f.cfg, service, scope, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// personToken makes a team lead an active member and issues their token,
// as signing in does.
func (f *floor) personToken(t *testing.T) (token, person string) {
	t.Helper()
	ctx := context.Background()
	err := f.sql.QueryRow(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status)
		SELECT a.agent_key, lower(a.email), a.full_name, 'active'
		FROM analytics.dim_team t JOIN analytics.dim_agent a ON a.agent_key = t.lead_agent_key
		ORDER BY a.agent_key LIMIT 1 RETURNING person_id`).Scan(&person)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err = f.tokens.CreatePersonToken(ctx, f.cfg, person, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return token, person
}

// client connects the go-sdk's client over Streamable HTTP with a token.
func (f *floor) client(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	return connect(t, f.url, &http.Client{Transport: oauth.BearerTransport(token, http.DefaultTransport)})
}

func connect(t testing.TB, url string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "analyst-test", Version: "0"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// answer is the sql tool's structured answer.
type answer struct {
	RequestID string `json:"request_id"`
	Verified  *bool  `json:"verified"`
	Columns   []string
	Types     []string `json:"column_types"`
	Rows      [][]any
	Offset    int  `json:"offset"`
	PageSize  int  `json:"page_size"`
	HasMore   bool `json:"has_more"`
	Next      *int `json:"next_offset"`
	Relations []string
	Notes     []string
	Error     *struct {
		Code, Argument, Rule, Check, SQLState string
		Choices                               []string
		Position                              int
	}
}

// sqlCall calls the sql tool with arguments and returns its answer and
// whether it was an error.
func sqlCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (answer, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: analyst.ToolName, Arguments: args})
	if err != nil {
		t.Fatalf("sql: %v", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != string(b) && !json.Valid([]byte(text)) {
		t.Errorf("the text content is not the answer's JSON: %s", text)
	}
	return a, res.IsError
}

// audit reads the audit log's rows, oldest first, as caller, outcome and
// rule (empty for none).
func (f *floor) audit(t *testing.T) []string {
	t.Helper()
	rows, err := f.sql.Query(context.Background(), `SELECT caller || ' ' || client || ' ' || coalesce(outcome, '-') || ' ' || coalesce(rule, '-')
		|| ' ' || (fingerprint IS NOT NULL) FROM plumbline.analyst_log ORDER BY started_at, statement_id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// statementLog reads the test cluster's server log, where the database
// logs every statement (log_statement = all) of a test that asks for it.
func statementLog(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	ctx := context.Background()
	var dataDir string
	var logFile *string
	if err := conn.QueryRow(ctx, "SELECT current_setting('data_directory'), pg_current_logfile()").Scan(&dataDir, &logFile); err != nil {
		t.Fatal(err)
	}
	// A collector's file, or the stderr file of the tests' own cluster
	// (package pgcluster), beside its data directory.
	path := dataDir + "/../postgres.log"
	if logFile != nil {
		path = *logFile
		if !strings.HasPrefix(path, "/") {
			path = dataDir + "/" + path
		}
	}
	var text string
	if err := conn.QueryRow(ctx, "SELECT pg_read_file($1)", path).Scan(&text); err != nil {
		t.Fatalf("the test needs the server's statement log (%s): %v", path, err)
	}
	return strings.Split(text, "\n")
}
