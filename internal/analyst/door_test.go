package analyst_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2/clientcredentials"

	"plumbline/internal/analyst"
	"plumbline/internal/clienttest"
	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck/hostile"
	"plumbline/reports/ask"
)

// tools lists the tools a client sees.
func tools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

const weekSQL = `SELECT agent_key, day, submitted, lost FROM metrics.agent_sales_daily
	WHERE day BETWEEN date '2026-11-09' AND date '2026-11-15' ORDER BY agent_key, day`

// The door is for contained agents only: a person's token, and a service
// token without the analyst scope, do not see the sql tool, and calling it
// by name gets a teaching refusal that points to the reports, on record in
// the audit log under who tried. A service token with the scope sees it
// and is answered.
func TestTheDoorIsOnlyForContainedAgents(t *testing.T) {
	f := newFloor(t, setup{})
	personToken, person := f.personToken(t)
	person_ := f.client(t, personToken)
	reporter := f.client(t, f.serviceToken(t, "nightly-digest", "reports:read", "people:read"))
	agent := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))

	for _, c := range []struct {
		name string
		cs   *mcp.ClientSession
	}{{"person", person_}, {"service without analyst:sql", reporter}} {
		name, cs := c.name, c.cs
		listed := tools(t, cs)
		if slices.Contains(listed, analyst.ToolName) || !slices.Contains(listed, "sales") {
			t.Errorf("%s sees %v", name, listed)
		}
		a, isError := sqlCall(t, cs, map[string]any{"sql": "SELECT 1"})
		if !isError || a.Error == nil || a.Error.Code != "forbidden" || a.Error.Argument != "tool" ||
			!strings.Contains(a.Error.Rule, "analyst:sql") || !slices.Contains(a.Error.Choices, "sales") || slices.Contains(a.Error.Choices, "sql") {
			t.Errorf("%s calling sql: %+v", name, a.Error)
		}
	}
	listed := tools(t, agent)
	if !slices.Contains(listed, analyst.ToolName) || !slices.Contains(listed, "sales") {
		t.Errorf("the contained agent sees %v; want the reports and sql", listed)
	}
	a, isError := sqlCall(t, agent, map[string]any{"sql": "SELECT count(*) AS agents FROM analytics.dim_agent"})
	var want int64
	if err := f.sql.QueryRow(context.Background(), "SELECT count(*) FROM analytics.dim_agent").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if isError || len(a.Rows) != 1 || a.Rows[0][0] != float64(want) || a.Verified == nil || *a.Verified {
		t.Errorf("the agent's count: %+v, want %d agents, unverified", a, want)
	}
	if got := f.audit(t); !slices.Equal(got, []string{
		person + " plumbline-cli forbidden - true",
		"service:nightly-digest plumbline-cli forbidden - true",
		"service:floor-analyst plumbline-cli ok - true",
	}) {
		t.Errorf("audit log:\n%s", strings.Join(got, "\n"))
	}
}

// A good SELECT pages: 50 rows a call at most (a bigger page_size is
// clamped), next_offset until has_more is false, and every row, typed, as
// the same SQL run directly gives it.
func TestAGoodSelectPagesAsTheSameSQLRunDirectly(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	rows, err := f.sql.Query(context.Background(), weekSQL)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var key string
	var day time.Time
	var submitted, lost int
	_, err = pgx.ForEachRow(rows, []any{&key, &day, &submitted, &lost}, func() error {
		want = append(want, fmt.Sprintf("%s %s %d %d", key, day.Format(time.DateOnly), submitted, lost))
		return nil
	})
	if err != nil || len(want) < 200 {
		t.Fatalf("%d rows directly (%v): the week should hold hundreds", len(want), err)
	}

	var got []string
	offset, calls := 0, 0
	for {
		a, isError := sqlCall(t, cs, map[string]any{"sql": weekSQL, "page_size": 500, "offset": offset})
		calls++
		if isError {
			t.Fatalf("page at %d: %+v", offset, a.Error)
		}
		if a.PageSize != 50 || len(a.Rows) > 50 || a.Offset != offset || !strings.Contains(strings.Join(a.Notes, " "), "at most 50") {
			t.Fatalf("page at %d: page_size %d, %d rows, notes %v", offset, a.PageSize, len(a.Rows), a.Notes)
		}
		if calls == 1 {
			wantCols := []string{"agent_key text", "day date", "submitted int4", "lost int4"}
			var cols []string
			for i, c := range a.Columns {
				cols = append(cols, c+" "+a.Types[i])
			}
			if !slices.Equal(cols, wantCols) || !strings.HasPrefix(a.Notes[0], "Not verified") ||
				!slices.Equal(a.Relations, []string{"metrics.agent_sales_daily"}) {
				t.Errorf("columns %v, notes %v, relations %v", cols, a.Notes, a.Relations)
			}
		}
		for _, r := range a.Rows {
			got = append(got, fmt.Sprintf("%s %s %v %v", r[0], r[1], r[2], r[3]))
		}
		if !a.HasMore {
			if a.Next != nil {
				t.Errorf("the last page has next_offset %d", *a.Next)
			}
			break
		}
		if a.Next == nil || *a.Next != offset+50 {
			t.Fatalf("page at %d has more but next_offset %v", offset, a.Next)
		}
		offset = *a.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged rows differ from the same SQL run directly: %d rows against %d", len(got), len(want))
	}
	if calls != (len(want)+49)/50 {
		t.Errorf("%d calls for %d rows", calls, len(want))
	}

	// Numbers stay exact: a numeric ratio as PostgreSQL computes it, NULL as
	// null, and a page of a statement without ORDER BY is told how its rows
	// are ordered.
	ratio := `SELECT sum(submitted)::numeric / nullif(sum(submitted + lost), 0) AS close_rate, NULL::int AS nothing
		FROM metrics.agent_sales_daily WHERE day BETWEEN date '2026-11-09' AND date '2026-11-15'`
	var exact string
	if err := f.sql.QueryRow(context.Background(), "SELECT close_rate::text FROM ("+ratio+") q").Scan(&exact); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: analyst.ToolName, Arguments: map[string]any{"sql": ratio}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"rows":[[`+exact+`,null]]`) {
		t.Errorf("the ratio came back as %s, want %s and null", text, exact)
	}
	unordered, _ := sqlCall(t, cs, map[string]any{"sql": "SELECT agent_key FROM metrics.agent_sales_daily", "page_size": 5})
	if !unordered.HasMore || !strings.Contains(strings.Join(unordered.Notes, " "), "then by every column") {
		t.Errorf("an unordered page: has_more %v, notes %v", unordered.HasMore, unordered.Notes)
	}
}

// Every hostile statement is refused over MCP by the check it breaks,
// before it reaches the database, each on record with its rule, and the
// server answers throughout.
func TestHostileStatementsAreRefusedOverMCP(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	corpus := hostile.Load(t)
	var wantAudit []string
	for _, h := range corpus {
		a, isError := sqlCall(t, cs, map[string]any{"sql": h.SQL})
		if !isError || a.Error == nil || a.Error.Code != "invalid_argument" || a.Error.Argument != "sql" || a.Error.Check != h.Check {
			t.Errorf("%s: %+v, want refused by %s", h.Name, a.Error, h.Check)
			continue
		}
		fingerprinted := "false" // a refused statement has no fingerprint
		wantAudit = append(wantAudit, "service:floor-analyst plumbline-cli invalid_argument "+h.Check+" "+fingerprinted)
	}
	if got := f.audit(t); !slices.Equal(got, wantAudit) {
		t.Errorf("the audit log holds %d rows, want %d with their rules", len(got), len(wantAudit))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "health", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Errorf("the server after the corpus: %v %v", err, res)
	}
}

// The audit row is written before the statement runs: in the database's
// own statement log, the INSERT into plumbline.analyst_log comes before the
// page's SELECT. And when that write fails, the call is refused and the
// statement never runs.
func TestTheAuditPrecedesTheStatement(t *testing.T) {
	f := newFloor(t, setup{before: func(db *pgtest.DB, conn *pgx.Conn) {
		if _, err := conn.Exec(context.Background(), "ALTER DATABASE "+db.Name+" SET log_statement = 'all'"); err != nil {
			t.Fatal(err)
		}
	}})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	marker := fmt.Sprintf("audit-first-%d", time.Now().UnixNano())
	a, isError := sqlCall(t, cs, map[string]any{"sql": "SELECT '" + marker + "' AS marker, count(*) FROM metrics.agent_time_daily"})
	if isError {
		t.Fatalf("%+v", a.Error)
	}
	insert, run := -1, -1
	for i, line := range statementLog(t, f.sql) {
		switch {
		case insert < 0 && strings.Contains(line, "INSERT INTO plumbline.analyst_log"):
			insert = i // its parameters, with the marker, follow on the DETAIL line
		case run < 0 && strings.Contains(line, marker) && strings.Contains(line, "AS page LIMIT"):
			run = i
		}
	}
	if insert < 0 || run < 0 || insert > run {
		t.Errorf("in the statement log the audit insert is at line %d and the statement at line %d", insert, run)
	}

	if _, err := f.sql.Exec(context.Background(), "REVOKE INSERT ON plumbline.analyst_log FROM "+pgtest.Roles.Logger); err != nil {
		t.Fatal(err)
	}
	unrecorded := marker + "-unrecorded"
	a, isError = sqlCall(t, cs, map[string]any{"sql": "SELECT '" + unrecorded + "' AS marker FROM metrics.agent_time_daily"})
	if !isError || a.Error.Code != "unavailable" || !strings.Contains(a.Error.Rule, "not run") {
		t.Errorf("with the audit log unwritable: %+v", a.Error)
	}
	for _, line := range statementLog(t, f.sql) {
		if strings.Contains(line, unrecorded) && strings.Contains(line, "AS page") {
			t.Errorf("a statement that could not be put on record ran: %s", line)
		}
	}
}

// Refusals by the database teach too: a column the analyst's grant leaves
// out (the agent's email) lists the columns it may read; a statement past
// the door's timeout is ended and said so; the per-service limit holds.
func TestTheDatabaseRefusalsTeach(t *testing.T) {
	f := newFloor(t, setup{perMinute: 4, timeout: 300 * time.Millisecond})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	a, _ := sqlCall(t, cs, map[string]any{"sql": "SELECT email FROM analytics.dim_agent"})
	if a.Error == nil || a.Error.SQLState != "42501" || !slices.Contains(a.Error.Choices, "analytics.dim_agent.full_name") ||
		slices.Contains(a.Error.Choices, "analytics.dim_agent.email") {
		t.Errorf("reading the email: %+v", a.Error)
	}
	a, _ = sqlCall(t, cs, map[string]any{"sql": "SELECT count(*) FROM generate_series(1, 10000000000) g"})
	if a.Error == nil || a.Error.Code != "timeout" || !strings.Contains(a.Error.Rule, "300ms") {
		t.Errorf("a statement past the timeout: %+v", a.Error)
	}
	a, _ = sqlCall(t, cs, map[string]any{"sql": "SELECT nosuch FROM metrics.agent_quality_daily"})
	if a.Error == nil || a.Error.SQLState != "42703" || !slices.Contains(a.Error.Choices, "metrics.agent_quality_daily.audits_passed") ||
		strings.Contains(a.Error.Rule, "nosuch") {
		t.Errorf("a column that is not there: %+v", a.Error)
	}
	// Bad arguments are refused without echoing them.
	a, _ = sqlCall(t, cs, map[string]any{"sql": "SELECT 1", "page_size": 0, "secret_field": "x"})
	if a.Error == nil || a.Error.Code != "invalid_argument" || strings.Contains(fmt.Sprint(a.Error), "secret_field") {
		t.Errorf("bad arguments: %+v", a.Error)
	}
	a, _ = sqlCall(t, cs, map[string]any{"sql": "SELECT 1"})
	if a.Error == nil || a.Error.Code != "rate_limited" {
		t.Errorf("a fifth statement this minute: %+v", a.Error)
	}
}

// A contained agent's machine, pre-registered as a machine client, gets its
// token by the client credentials grant (the MCP oauth-client-credentials
// extension) with a real OAuth client library, finds the grant and the
// token endpoint in the authorization server's metadata, and then sees and
// uses the sql tool as its service, bound to this resource. A wrong secret,
// a scope the client may not have and another server's resource get no
// token.
func TestAMachineClientGetsItsTokenByClientCredentials(t *testing.T) {
	f := newFloor(t, setup{})
	ctx := context.Background()
	res, err := http.Get(f.cfg.Issuer() + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		TokenEndpoint string   `json:"token_endpoint"`
		Grants        []string `json:"grant_types_supported"`
		AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
		Scopes        []string `json:"scopes_supported"`
	}
	err = json.NewDecoder(res.Body).Decode(&meta)
	res.Body.Close()
	if err != nil || !slices.Contains(meta.Grants, "client_credentials") || !slices.Contains(meta.AuthMethods, "client_secret_basic") ||
		!slices.Contains(meta.Scopes, "analyst:sql") {
		t.Fatalf("metadata: %+v (%v)", meta, err)
	}
	cc := clientcredentials.Config{ClientID: machineID, ClientSecret: machineSecret, TokenURL: meta.TokenEndpoint,
		Scopes: []string{"reports:read", "analyst:sql"}, EndpointParams: url.Values{"resource": {f.url}}}
	token, err := cc.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if token.TokenType != "Bearer" || token.RefreshToken != "" || time.Until(token.Expiry) > time.Hour+time.Minute || time.Until(token.Expiry) < 50*time.Minute {
		t.Errorf("token: type %q, refresh %q, expires in %s", token.TokenType, token.RefreshToken, time.Until(token.Expiry))
	}
	cs := connect(t, f.url, cc.Client(ctx))
	if listed := tools(t, cs); !slices.Contains(listed, analyst.ToolName) {
		t.Errorf("the machine client sees %v", listed)
	}
	a, isError := sqlCall(t, cs, map[string]any{"sql": "SELECT team_key FROM analytics.dim_team ORDER BY 1"})
	if isError || len(a.Rows) < 5 {
		t.Errorf("the machine client's statement: %+v", a)
	}
	if got := f.audit(t); !slices.Equal(got, []string{"service:floor-analyst " + machineID + " ok - true"}) {
		t.Errorf("audit log: %v", got)
	}

	// Asking for less gets less: a token without analyst:sql sees no door.
	narrow := cc
	narrow.Scopes = []string{"reports:read"}
	if listed := tools(t, connect(t, f.url, narrow.Client(ctx))); slices.Contains(listed, analyst.ToolName) {
		t.Errorf("a token without analyst:sql sees %v", listed)
	}
	for name, bad := range map[string]clientcredentials.Config{
		"a wrong secret":        {ClientID: machineID, ClientSecret: "guess", TokenURL: meta.TokenEndpoint},
		"a scope it may not":    {ClientID: machineID, ClientSecret: machineSecret, TokenURL: meta.TokenEndpoint, Scopes: []string{"people:read"}},
		"another resource":      {ClientID: machineID, ClientSecret: machineSecret, TokenURL: meta.TokenEndpoint, EndpointParams: url.Values{"resource": {"https://elsewhere.example.com/mcp"}}},
		"an unknown client":     {ClientID: "stranger", ClientSecret: machineSecret, TokenURL: meta.TokenEndpoint},
		"the secret in the URL": {ClientID: machineID, ClientSecret: machineSecret, TokenURL: meta.TokenEndpoint + "?client_secret=" + url.QueryEscape(machineSecret)},
	} {
		if _, err := bad.Token(ctx); err == nil {
			t.Errorf("%s got a token", name)
		}
	}
}

// A client on the official TypeScript SDK, as a contained agent would run
// it, pages through a statement and is refused one, and the SDK finds every
// structured answer valid against the sql tool's output schema. With a
// person's token the same client finds no sql tool and is refused.
func TestTypeScriptAgent(t *testing.T) {
	f := newFloor(t, setup{})
	const teams = "SELECT team_key, team_name FROM analytics.dim_team ORDER BY team_key"
	var want []string
	rows, err := f.sql.Query(context.Background(), "SELECT team_key || ' ' || team_name FROM analytics.dim_team ORDER BY team_key")
	if err != nil {
		t.Fatal(err)
	}
	if want, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(want) < 5 {
		t.Fatalf("teams: %v %v", want, err)
	}
	type page struct {
		IsError bool
		Answer  answer
	}
	var seen struct {
		Tools []string
		Door  struct {
			ReadOnly, Closed, OutputSchema bool
			Required                       []string
			Description                    string
		}
		Pages   []page
		Refusal page
	}
	run := func(token string) {
		t.Helper()
		res := clienttest.Run(t, time.Minute, "analyst-client.mjs", f.url, token, teams)
		if res.Code != 0 {
			t.Fatalf("analyst-client.mjs exited %d:\n%s", res.Code, res.Stderr)
		}
		seen.Pages = nil
		if err := json.Unmarshal([]byte(res.Stdout), &seen); err != nil {
			t.Fatalf("analyst-client.mjs printed no JSON: %v\n%s", err, res.Stdout)
		}
	}
	run(f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	d := seen.Door
	if !slices.Contains(seen.Tools, "sql") || !d.ReadOnly || !d.Closed || !d.OutputSchema || !slices.Equal(d.Required, []string{"sql"}) ||
		!strings.Contains(d.Description, "Use the reports first") || !strings.Contains(d.Description, "metrics.agent_sales_daily (one row per agent") {
		t.Errorf("the sql tool as the TypeScript SDK lists it: %+v", d)
	}
	var got []string
	for _, p := range seen.Pages {
		if p.IsError {
			t.Fatalf("a page was refused: %+v", p.Answer.Error)
		}
		for _, r := range p.Answer.Rows {
			got = append(got, fmt.Sprint(r[0], " ", r[1]))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("teams through the TypeScript SDK: %v, want %v", got, want)
	}
	if r := seen.Refusal; !r.IsError || r.Answer.Error == nil || r.Answer.Error.Check != "relation" {
		t.Errorf("member data through the TypeScript SDK: %+v", r)
	}

	person, _ := f.personToken(t)
	run(person)
	if slices.Contains(seen.Tools, "sql") || len(seen.Pages) != 0 || !seen.Refusal.IsError || seen.Refusal.Answer.Error.Code != "forbidden" {
		t.Errorf("a person's TypeScript client: tools %v, refusal %+v", seen.Tools, seen.Refusal)
	}
}

// A token revoked after the server has seen it stops the next statement:
// its row is read with the statement's audit row, before the statement
// runs, and the client gets the 401 challenge, not an answer. The refused
// call stays on record.
func TestARevokedTokenRunsNoStatement(t *testing.T) {
	f := newFloor(t, setup{})
	ctx := context.Background()
	token, info, err := f.tokens.CreateServiceToken(ctx, f.cfg, "floor-analyst", []string{oauth.ScopeReports, oauth.ScopeAnalyst}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cs := f.client(t, token)
	if a, isErr := sqlCall(t, cs, map[string]any{"sql": "SELECT team_key FROM analytics.dim_team"}); isErr || len(a.Rows) == 0 {
		t.Fatalf("before revocation: %+v", a.Error)
	}
	if n, err := f.tokens.RevokeTokens(ctx, []int64{info.ID}, "", ""); err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: analyst.ToolName, Arguments: map[string]any{"sql": "SELECT agent_key FROM analytics.dim_agent"}})
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a statement with a revoked token: %v, want the 401 challenge", err)
	}
	if got := f.audit(t); len(got) != 2 || !strings.HasPrefix(got[1], "service:floor-analyst ") || !strings.Contains(got[1], " "+ask.CodeUnauthenticated+" ") {
		t.Errorf("the audit log reads %q; want the second statement on record, refused as %s", got, ask.CodeUnauthenticated)
	}
}
