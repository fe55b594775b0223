package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/pgtest"
)

// httpClient serves the floor over Streamable HTTP on loopback and connects
// the go-sdk client to it, speaking the given protocol revision (empty: the
// newest both sides know).
func (f *floor) httpClient(t *testing.T, revision string) (*mcp.ClientSession, string) {
	t.Helper()
	ts := httptest.NewServer(mcpserver.HTTPHandler(f.server))
	t.Cleanup(ts.Close)
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}
	var opts *mcp.ClientSessionOptions
	if revision != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: revision}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ts.URL
}

func TestToolsAndSchemasOverHTTP(t *testing.T) {
	f := newFloor(t)
	for _, revision := range []string{"", "2025-06-18", "2025-11-25"} {
		t.Run("revision="+revision, func(t *testing.T) {
			cs, _ := f.httpClient(t, revision)
			if revision != "" && cs.InitializeResult().ProtocolVersion != revision {
				t.Errorf("negotiated %s, want %s", cs.InitializeResult().ProtocolVersion, revision)
			}
			if !strings.Contains(cs.InitializeResult().Instructions, "Null means no data") {
				t.Error("the server's instructions do not say what null means")
			}
			lt, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
				if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || !tool.Annotations.IdempotentHint {
					t.Errorf("tool %s is not annotated read-only and idempotent", tool.Name)
				}
				if tool.OutputSchema == nil || tool.Description == "" {
					t.Errorf("tool %s lacks a description or an output schema", tool.Name)
				}
			}
			for _, want := range []string{"hours", "sales", "quality", "metric_definitions", "health"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools %v lack %s", names, want)
				}
			}
			sales := lt.Tools[slices.Index(names, "sales")]
			checkReportSchema(t, sales.InputSchema)
		})
	}
}

// The grammar is in the schema: closed objects, exactly one form of who and
// one shape of period, enums for metrics and groupings, bounds for top_n.
func checkReportSchema(t *testing.T, raw any) {
	t.Helper()
	b, _ := json.Marshal(raw)
	type object struct {
		AdditionalProperties *bool          `json:"additionalProperties"`
		Properties           map[string]any `json:"properties"`
		MinProperties        int            `json:"minProperties"`
		MaxProperties        int            `json:"maxProperties"`
		AnyOf                []object       `json:"anyOf"`
		Required             []string       `json:"required"`
		Description          string         `json:"description"`
		Enum                 []string       `json:"enum"`
		Items                struct{ Enum []string }
		Maximum              float64 `json:"maximum"`
	}
	var s struct {
		AdditionalProperties *bool             `json:"additionalProperties"`
		Required             []string          `json:"required"`
		Properties           map[string]object `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.AdditionalProperties == nil || *s.AdditionalProperties {
		t.Error("the sales schema accepts unknown fields")
	}
	if !slices.Equal(s.Required, []string{"period"}) {
		t.Errorf("required = %v", s.Required)
	}
	who, period := s.Properties["who"], s.Properties["period"]
	if len(who.Properties) != 3 || who.MinProperties != 1 || who.MaxProperties != 1 || who.AdditionalProperties == nil || *who.AdditionalProperties {
		t.Errorf("who is not exactly one of floor, team and agent: %+v", who)
	}
	var shapes [][]string
	for _, sh := range period.AnyOf {
		if sh.MaxProperties != len(sh.Required) {
			t.Errorf("period shape %v admits other fields", sh.Required)
		}
		shapes = append(shapes, sh.Required)
	}
	if fmt.Sprint(shapes) != "[[named] [day] [week] [start end]]" || len(period.Properties) != 5 ||
		period.AdditionalProperties == nil || *period.AdditionalProperties {
		t.Errorf("period shapes %v, fields %v", shapes, period.Properties)
	}
	if d := s.Properties["period"].Description; !strings.Contains(d, "24 months, 120 days by day") {
		t.Errorf("the period's description does not state the bounds of a range: %s", d)
	}
	if !slices.Contains(s.Properties["metrics"].Items.Enum, "close_rate") || len(s.Properties["metrics"].Items.Enum) != 6 {
		t.Errorf("metric enum = %v", s.Properties["metrics"].Items.Enum)
	}
	if !slices.Equal(s.Properties["group_by"].Enum, []string{"team", "agent", "day", "week", "month", "quarter"}) {
		t.Errorf("group_by enum = %v", s.Properties["group_by"].Enum)
	}
	if s.Properties["top_n"].Maximum != 50 {
		t.Errorf("top_n maximum = %v", s.Properties["top_n"].Maximum)
	}
}

// A call over HTTP answers in the contract's shape.
func TestSalesContractOverHTTP(t *testing.T) {
	f := newFloor(t)
	cs, _ := f.httpClient(t, "")
	a := report(t, cs, "sales", `{"who":{"team":"Hawks"},"period":{"named":"last_week"},"group_by":"day"}`)
	for _, key := range []string{"request_id", "request", "rows", "columns", "truncated", "metrics", "period",
		"data_through", "notes", "partial", "partial_metrics", "catalog_version"} {
		if _, ok := a[key]; !ok {
			t.Errorf("the answer lacks %s", key)
		}
	}
	m := a["metrics"].(map[string]any)["close_rate"].(map[string]any)
	for _, key := range []string{"label", "definition", "formula", "unit", "source", "sales_basis", "data_through"} {
		if _, ok := m[key]; !ok {
			t.Errorf("close_rate lacks %s", key)
		}
	}
	if m["sales_basis"] != "submitted" || m["formula"] != "sum(submitted) / sum(submitted + lost)" {
		t.Errorf("close_rate = %v", m)
	}
	if dt := m["data_through"].(map[string]any); dt["runs_to"] != "2026-11-17" || dt["complete_through"] != "2026-11-17" {
		t.Errorf("close_rate data_through = %v", dt)
	}
	p := a["period"].(map[string]any)
	if p["start"] != "2026-11-09" || p["end"] != "2026-11-15" || p["time_zone"] != "America/New_York" {
		t.Errorf("period = %v", p)
	}
	who := a["request"].(map[string]any)["who"].(map[string]any)
	if who["key"] != "hawks" || who["name"] != "Hawks" {
		t.Errorf("who understood as %v", who)
	}
	if n := len(a["rows"].([]any)); n != 7 {
		t.Errorf("%d day rows for a week", n)
	}
}

// Bad calls get plumbline's teaching errors over HTTP too.
func TestTeachingErrorsOverHTTP(t *testing.T) {
	f := newFloor(t)
	cs, _ := f.httpClient(t, "")
	for _, tc := range []struct{ args, argument string }{
		{`{"who":{"floor":true},"period":{"named":"last_week"},"zq9MARKERzq9":true}`, "arguments"},
		{`{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["zq9MARKERzq9"]}`, "metrics"},
		{`{"who":{"floor":true},"period":{"start":"2023-01-01","end":"2026-11-17"}}`, "period"},
		{`{"who":{"agent":"zq9MARKERzq9"},"period":{"named":"last_week"}}`, "who.agent"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sales", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if !res.IsError {
			t.Errorf("%s was answered", tc.args)
			continue
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.Contains(text, "zq9MARKERzq9") {
			t.Errorf("the refusal repeats the caller's text: %s", text)
		}
		var body struct {
			RequestID string `json:"request_id"`
			Error     struct {
				Code, Argument, Rule string
				Choices              []string
			}
		}
		structured, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(structured, &body); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, body.Error.Argument+" "+body.Error.Rule) {
			t.Errorf("%s: the text block does not teach: %s", tc.args, text)
		}
		if body.RequestID == "" || body.Error.Argument != tc.argument || body.Error.Rule == "" || body.Error.Code != "invalid_argument" {
			t.Errorf("%s: refusal %s", tc.args, text)
		}
	}
}

// Requests that could come from a page in a browser are refused: a Host
// that is not loopback (DNS rebinding) and a foreign Origin.
func TestHTTPRefusesRebindingAndForeignOrigins(t *testing.T) {
	f := newFloor(t)
	_, url := f.httpClient(t, "")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for name, set := range map[string]func(*http.Request){
		"evil host":   func(r *http.Request) { r.Host = "evil.example.com" },
		"evil origin": func(r *http.Request) { r.Header.Set("Origin", "https://evil.example.com") },
	} {
		req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, resp.StatusCode)
		}
	}
	resp, err := http.Get(url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("/healthz: %v %v", resp, err)
	}
}

func TestMetricDefinitionsAndHealth(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	defs, isError := call(t, cs, "metric_definitions", `{"metrics":["approved_sales","sales_per_hour"]}`)
	if isError {
		t.Fatal(defs)
	}
	metrics := defs["metrics"].(map[string]any)
	if len(metrics) != 2 {
		t.Errorf("asked for two definitions, got %d", len(metrics))
	}
	approved := metrics["approved_sales"].(map[string]any)
	if approved["sales_basis"] != "approved" || !strings.Contains(approved["settles"].(string), "14 days") ||
		!slices.Contains(approved["reports"].([]any), "sales") {
		t.Errorf("approved_sales = %v", approved)
	}
	if bases := defs["bases"].(map[string]any); len(bases) != 3 {
		t.Errorf("bases = %v", bases)
	}
	all, _ := call(t, cs, "metric_definitions", `{}`)
	if n := len(all["metrics"].(map[string]any)); n != 14 {
		t.Errorf("%d definitions, want all 14", n)
	}
	h, isError := call(t, cs, "health", `{}`)
	if isError || h["status"] != "ok" || h["database"] != "reachable" || h["catalog_version"] == "" {
		t.Errorf("health = %v", h)
	}
	if _, isError := call(t, cs, "health", `{"zq9MARKERzq9":1}`); !isError {
		t.Error("health accepted an unknown argument")
	}
}

// The backstop: a long digit run that reaches an answer (here a phone
// number typed into a team's name upstream) leaves as its last four digits,
// in the structured and the text content alike, while the request id and
// catalogue version survive whole and the figures are untouched.
func TestAnswersAreScrubbed(t *testing.T) {
	f := newFloor(t)
	ctx := context.Background()
	if _, err := f.sql.Exec(ctx, "UPDATE analytics.dim_team SET team_name = 'Hawks 5551234567' WHERE team_key = 'hawks'"); err != nil {
		t.Fatal(err)
	}
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"metrics":["submitted_sales"]}`)
	if name := a["request"].(map[string]any)["who"].(map[string]any)["name"]; name != "Hawks 4567" {
		t.Errorf("the team's name came through as %v", name)
	}
	var logged string
	if err := f.sql.QueryRow(ctx, "SELECT request_id FROM plumbline.request_log ORDER BY started_at DESC LIMIT 1").Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if a["request_id"] != logged || a["catalog_version"] != f.engine.Catalog().Version() {
		t.Errorf("identifiers changed: request_id %v (logged %s), catalog_version %v", a["request_id"], logged, a["catalog_version"])
	}
	want := f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'hawks'`)
	if got := a.total(t, "submitted_sales"); got != want["total"] {
		t.Errorf("submitted %v, want %v", got, want["total"])
	}
}

// The request log names the MCP client program each call came from, as it
// named itself on initialize, beside the token's client; a name that would
// change how a terminal or a page shows it is neutralised.
func TestTheLogNamesTheClientProgram(t *testing.T) {
	f := newFloor(t)
	ctx := context.Background()
	for _, c := range []struct{ name, version, want string }{
		{"test", "0", "test 0"},
		{"desk\u202Egpj.exe", "1.2\n", "desk\uFFFDgpj.exe 1.2"},
	} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := f.server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: c.name, Version: c.version}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"metrics":["submitted_sales"]}`)
		cs.Close()
		ss.Wait()
		var software string
		if err := f.sql.QueryRow(ctx, "SELECT software FROM plumbline.request_log WHERE request_id = $1", a["request_id"]).Scan(&software); err != nil {
			t.Fatal(err)
		}
		if software != c.want {
			t.Errorf("a client named %q %q was logged as %q, want %q", c.name, c.version, software, c.want)
		}
	}
}
