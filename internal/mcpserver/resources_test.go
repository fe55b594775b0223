//lint:file-ignore SA1019 MCP logging is deprecated as of the 2026-07-28 revision, but clients of the earlier revisions still read it.

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/reports/ask"
)

// The metric definitions are resources too, one per metric and one for all,
// with the same texts as the metric_definitions tool.
func TestMetricDefinitionResources(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byURI := map[string]*mcp.Resource{}
	for _, r := range list.Resources {
		byURI[r.URI] = r
	}
	cat := f.engine.Catalog()
	for _, m := range cat.Metrics() {
		r := byURI["plumbline://metrics/"+m.ID]
		if r == nil || r.Title != m.Label || r.Description != m.Definition() || r.MIMEType != "application/json" {
			t.Errorf("metric %s is listed as %+v", m.ID, r)
		}
	}
	if byURI["plumbline://metrics"] == nil {
		t.Error("the resource of every definition is not listed")
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, tpl := range templates.ResourceTemplates {
		uris = append(uris, tpl.URITemplate)
	}
	if !slices.Equal(uris, []string{"plumbline://metrics/{metric}", "plumbline://teams/{team}"}) {
		t.Errorf("templates %v", uris)
	}

	one := readJSON(t, cs, "plumbline://metrics/approved_sales")
	tool, _ := call(t, cs, "metric_definitions", `{"metrics":["approved_sales"]}`)
	metrics := one["metrics"].(map[string]any)
	if len(metrics) != 1 || !equalJSON(metrics["approved_sales"], tool["metrics"].(map[string]any)["approved_sales"]) ||
		!equalJSON(one["bases"], tool["bases"]) || one["catalog_version"] != cat.Version() {
		t.Errorf("approved_sales as a resource: %v\nas the tool says: %v", one, tool)
	}
	if all := readJSON(t, cs, "plumbline://metrics"); len(all["metrics"].(map[string]any)) != len(cat.Metrics()) {
		t.Errorf("the resource of every definition holds %d", len(all["metrics"].(map[string]any)))
	}
}

// A team's roster is a resource by key or name: the agents plain SQL finds
// on the team today, and the read is on record as the roster call it is.
func TestTeamRosterResource(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	roster := readJSON(t, cs, "plumbline://teams/Hawks")
	var got []string
	for _, r := range roster["rows"].([]any) {
		got = append(got, r.([]any)[0].(string))
	}
	slices.Sort(got)
	want := f.sqlStrings(t, `SELECT a.agent_key FROM analytics.dim_agent a
		WHERE a.hired_on <= $1 AND (a.left_on IS NULL OR a.left_on >= $1)
		  AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.effective_from <= $1
		       ORDER BY h.effective_from DESC LIMIT 1) = 'hawks'
		ORDER BY 1`, dateOf(f.db.Now))
	if len(want) < 5 || !slices.Equal(got, want) {
		t.Errorf("the Hawks' roster: %v, want %v", got, want)
	}
	var tool string
	if err := f.sql.QueryRow(context.Background(), "SELECT tool FROM plumbline.request_log WHERE request_id = $1",
		roster["request_id"]).Scan(&tool); err != nil || tool != "roster" {
		t.Errorf("the read is on record as %q: %v", tool, err)
	}
}

// A read is allowed or refused as the call it stands for: a caller whose
// token allows the definitions but not the people directory reads a metric
// and is refused a roster.
func TestResourceReadsAreScoped(t *testing.T) {
	f := newFloor(t)
	f.server = mcpserver.New(f.engine, &mcpserver.Options{Caller: func(*mcp.CallToolRequest) ask.Caller {
		return ask.Caller{Person: "service:digest", Tools: []string{"metric_definitions", "sales"}}
	}})
	cs := f.client(t)
	if def := readJSON(t, cs, "plumbline://metrics/close_rate"); def["metrics"] == nil {
		t.Errorf("the definition was not read: %v", def)
	}
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "plumbline://teams/hawks"})
	var jerr *jsonrpc.Error
	if !errors.As(err, &jerr) || !strings.Contains(string(jerr.Data), `"code":"forbidden"`) {
		t.Errorf("a roster without the people directory: %v", err)
	}
	f.log.Flush(context.Background())
	var outcome string
	if err := f.sql.QueryRow(context.Background(), `SELECT outcome FROM plumbline.calls
		WHERE tool = 'roster' AND person = 'service:digest'`).Scan(&outcome); err != nil || outcome != "forbidden" {
		t.Errorf("the refused read is on record as %q: %v", outcome, err)
	}
}

// A read of anything that is not there is refused with a teaching error that
// names the argument, the rule and the choices, and never repeats the URI.
func TestResourceRefusals(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for uri, argument := range map[string]string{
		"plumbline://metrics/zq9MARKERzq9": "metric",
		"plumbline://teams/zq9MARKERzq9":   "team",
		"zq9MARKERzq9://nothing/here":      "uri",
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var jerr *jsonrpc.Error
		if !errors.As(err, &jerr) {
			t.Fatalf("%s: %v", uri, err)
		}
		var refusal struct {
			Code, Argument, Rule string
			Choices              []string
		}
		json.Unmarshal(jerr.Data, &refusal)
		if jerr.Code != jsonrpc.CodeInvalidParams || refusal.Argument != argument || refusal.Rule == "" || len(refusal.Choices) == 0 {
			t.Errorf("%s: %d %s %s", uri, jerr.Code, jerr.Message, jerr.Data)
		}
		if strings.Contains(jerr.Message+string(jerr.Data), "zq9MARKERzq9") {
			t.Errorf("%s: the refusal repeats the URI: %s %s", uri, jerr.Message, jerr.Data)
		}
	}
}

// Completion offers metric ids and team keys as a person types, and nothing
// for what plumbline does not have.
func TestCompletion(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	complete := func(ref *mcp.CompleteReference, argument, typed string) mcp.CompletionResultDetails {
		t.Helper()
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: argument, Value: typed}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion
	}
	metric := &mcp.CompleteReference{Type: "ref/resource", URI: "plumbline://metrics/{metric}"}
	if got := complete(metric, "metric", "Close").Values; !slices.Equal(got, []string{"close_rate"}) {
		t.Errorf("metric ids from Close: %v", got)
	}
	var want []string
	for _, m := range f.engine.Catalog().Metrics() {
		if strings.HasPrefix(m.ID, "a") {
			want = append(want, m.ID)
		}
	}
	slices.Sort(want)
	if got := complete(metric, "metric", "a"); !slices.Equal(got.Values, want) || got.Total != len(want) || len(want) < 3 {
		t.Errorf("metric ids from a: %+v, want %v", got, want)
	}
	team := &mcp.CompleteReference{Type: "ref/resource", URI: "plumbline://teams/{team}"}
	for _, typed := range []string{"h", "Ret", ""} {
		want := f.sqlStrings(t, `SELECT team_key FROM analytics.dim_team
			WHERE team_key ILIKE $1 || '%' OR team_name ~* ('(^|\s)' || $1) ORDER BY 1`, typed)
		if got := complete(team, "team", typed); !slices.Equal(got.Values, want) || got.Total != len(want) || len(want) == 0 {
			t.Errorf("teams from %q: %+v, want %v", typed, got, want)
		}
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "anything"}, "x", "a"); len(got.Values) != 0 {
		t.Errorf("a prompt plumbline does not have completes to %v", got.Values)
	}
}

// A client that sets a logging level hears how each call went, and never
// its arguments.
func TestLoggingToTheClient(t *testing.T) {
	f := newFloor(t)
	ctx := context.Background()
	logs := make(chan *mcp.LoggingMessageParams, 10)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logs <- req.Params },
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Fatal("the server does not declare logging")
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	next := func() (mcp.LoggingLevel, map[string]any) {
		t.Helper()
		select {
		case m := <-logs:
			data, _ := m.Data.(map[string]any)
			return m.Level, data
		case <-time.After(10 * time.Second):
			t.Fatal("no log message came")
			return "", nil
		}
	}
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"group_by":"day"}`)
	level, data := next()
	if level != "info" || data["request_id"] != a["request_id"] || data["tool"] != "sales" || data["outcome"] != "ok" || data["rows"] != 7.0 {
		t.Errorf("the call was logged at %s as %v", level, data)
	}
	refused, _ := call(t, cs, "sales", `{"who":{"agent":"zq9MARKERzq9"},"period":{"named":"last_week"}}`)
	level, data = next()
	if level != "warning" || data["request_id"] != refused["request_id"] || data["outcome"] != "invalid_argument" || data["argument"] != "who.agent" {
		t.Errorf("the refusal was logged at %s as %v", level, data)
	}
	if b, _ := json.Marshal(data); strings.Contains(string(b), "zq9MARKERzq9") {
		t.Errorf("the log repeats the caller's text: %s", b)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "sales", `{"who":{"agent":"zq9MARKERzq9"},"period":{"named":"last_week"}}`)
	call(t, cs, "health", `{}`)
	select {
	case m := <-logs:
		t.Errorf("a %s message came below the level the client set", m.Level)
	case <-time.After(200 * time.Millisecond):
	}
}

// Over HTTP the server declares what it answers: tools, resources,
// completion, logging, and prompts (of which there are none).
func TestCapabilitiesOverHTTP(t *testing.T) {
	f := newFloor(t)
	cs, _ := f.httpClient(t, "2025-11-25")
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Resources == nil || caps.Completions == nil || caps.Logging == nil || caps.Prompts == nil {
		t.Errorf("capabilities %+v", caps)
	}
	if caps.Tools.ListChanged || caps.Resources.ListChanged || caps.Resources.Subscribe {
		t.Errorf("the tools and resources never change, but the server says they may: %+v %+v", caps.Tools, caps.Resources)
	}
	prompts, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(prompts.Prompts) != 0 {
		t.Errorf("prompts: %v %v", prompts, err)
	}
	if roster := readJSON(t, cs, "plumbline://teams/hawks"); roster["rows"] == nil {
		t.Errorf("reading a roster over HTTP: %v", roster)
	}
}

// readJSON reads a resource whose one content is JSON.
func readJSON(t *testing.T, cs *mcp.ClientSession, uri string) answer {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	var a answer
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// sqlStrings runs an expected-figure query that returns one text per row.
func (f *floor) sqlStrings(t *testing.T, query string, args ...any) []string {
	t.Helper()
	rows, err := f.sql.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// logging/setLevel takes one of the eight levels of MCP logging and
// nothing else: any other is refused with plumbline's teaching error,
// which names the levels and not what was sent.
func TestLoggingLevelIsOneOfTheLevels(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	for _, level := range []mcp.LoggingLevel{"verbose", "", "WARNING", marker} {
		err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("level %q: %v, want an invalid-params error", level, err)
			continue
		}
		var r ask.Refusal
		json.Unmarshal(je.Data, &r)
		want := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
		if r.Code != ask.CodeInvalidArgument || r.Argument != "level" || !slices.Equal(r.Choices, want) || strings.Contains(je.Error(), marker) {
			t.Errorf("level %q: refused with %s", level, je.Data)
		}
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Errorf("level warning: %v", err)
	}
}
