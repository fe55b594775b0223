package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/clienttest"
	"plumbline/internal/contract"
	"plumbline/reports"
)

// Tests with clients nobody on plumbline wrote (package clienttest): the
// official conformance suite, the TypeScript SDK's client and the MCP
// Inspector, each against `plumbline demo` run as a newcomer runs it, at the
// test floor's moment (Wednesday 18 November 2026, 14:30 New York), with
// the access token the demo prints for its floor manager (--as
// floor-manager), who sees every team, as the questions ask across the floor.

// clientsNow is the moment the demo answers as of.
const clientsNow = "2026-11-18T14:30:00-05:00"

// clientsDemo runs the demo, with any extra flags, and returns its MCP
// endpoint, the floor manager's access token it prints for clients, and a
// superuser connection to its database for expected figures.
func clientsDemo(t *testing.T, flags ...string) (endpoint, token string, db *pgx.Conn) {
	t.Helper()
	// The cluster runs as the postgres user when tests run as root, so its
	// directory must not sit inside the test's private temporary directory.
	dir, err := os.MkdirTemp("", "plumbline-clients-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- runWith(ctx, append([]string{"demo", "--dir", dir, "--addr", "127.0.0.1:0", "--now", clientsNow, "--as", "floor-manager"}, flags...), &out, &logs)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the demo did not stop on interrupt")
		}
		os.RemoveAll(dir)
	})
	endpoint = waitFor(t, &out, regexp.MustCompile(`MCP endpoint \(Streamable HTTP\): (\S+)`), done)
	token = waitFor(t, &out, regexp.MustCompile(`Authorization: Bearer ([^"\s]+)`), done)
	dsn := waitFor(t, &out, regexp.MustCompile(`Database, for psql: +(\S+)`), done)
	db, err = pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return endpoint, token, db
}

// The official MCP conformance suite, for both revisions plumbline serves:
// every scenario and check passes but those that do not apply to plumbline,
// which internal/clienttest/conformance-baseline.yml lists with the reason,
// as the README does. Run verbose (make conformance) to see each scenario.
func TestConformance(t *testing.T) {
	endpoint, token, _ := clientsDemo(t)
	// The suite cannot send a token, and sign-in stays on: a proxy in front
	// adds the demo's token.
	res, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the demo's endpoint answered a request without a token with %s", res.Status)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	proxied := clienttest.TokenProxy(t, u.Scheme+"://"+u.Host, token) + u.Path
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) { clienttest.Conformance(t, proxied, revision) })
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var unlisted []string
	for _, ex := range clienttest.Exclusions(t) {
		names := slices.Clone(ex.Scenarios)
		for scenario, checks := range ex.Checks {
			names = append(names, append(checks, scenario)...)
		}
		for _, name := range names {
			if !strings.Contains(string(readme), "`"+name+"`") {
				unlisted = append(unlisted, name)
			}
		}
	}
	if unlisted != nil {
		t.Errorf("the README does not list these, which conformance-baseline.yml says do not apply: %v", unlisted)
	}
}

// Expected figures come from plain SQL over the demo floor's raw tables. An
// agent's day counts for the team the agent was on that day; the floor on a
// day is the teams whose latest decision by then says they count.
const (
	teamOnDay = `(SELECT h.team_key FROM analytics.agent_team_history h
	  WHERE h.agent_key = s.agent_key AND h.effective_from <= s.day ORDER BY h.effective_from DESC LIMIT 1)`
	teamOnFloor = `(SELECT f.counts_as_sales FROM analytics.team_floor_history f
	  WHERE f.team_key = s.team AND f.effective_from <= s.day ORDER BY f.effective_from DESC LIMIT 1)`
)

// A manager's questions, asked by a client on the official TypeScript SDK
// over Streamable HTTP, come back with the figures plain SQL gives, in
// answers that pass the SDK's checks against each tool's output schema.
func TestTypeScriptClient(t *testing.T) {
	endpoint, token, db := clientsDemo(t)
	res := clienttest.Run(t, 2*time.Minute, "questions.mjs", endpoint, token)
	if res.Code != 0 {
		t.Fatalf("questions.mjs exited %d:\n%s", res.Code, res.Stderr)
	}
	var seen struct {
		Server       struct{ Name string }
		Protocol     string
		Capabilities map[string]any
		Tools        map[string]struct {
			ReadOnly, Closed, OutputSchema bool
			Required                       []string
		}
		Answers map[string]struct {
			Tool    string
			IsError bool
			Answer  json.RawMessage
		}
		Refusal struct {
			IsError bool
			Text    string
		}
		Resources, Templates []string
		CloseRateResource    json.RawMessage
		TeamCompletion       struct {
			Values []string
			Total  int
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &seen); err != nil {
		t.Fatalf("questions.mjs printed no JSON: %v\n%s", err, res.Stdout)
	}
	if seen.Server.Name != "plumbline" || seen.Protocol != "2025-11-25" {
		t.Errorf("connected to %q over %q", seen.Server.Name, seen.Protocol)
	}
	for _, c := range []string{"tools", "resources", "completions", "logging"} {
		if seen.Capabilities[c] == nil {
			t.Errorf("the server does not declare %s: %v", c, seen.Capabilities)
		}
	}
	if len(seen.Tools) != 11 {
		t.Errorf("%d tools, want 11", len(seen.Tools))
	}
	for name, tool := range seen.Tools {
		if !tool.ReadOnly || !tool.Closed || !tool.OutputSchema {
			t.Errorf("tool %s: %+v; want read-only, closed to unknown fields, with an output schema", name, tool)
		}
	}
	if r := seen.Tools["sales"].Required; !slices.Equal(r, []string{"period"}) {
		t.Errorf("sales requires %v", r)
	}
	answer := func(question string, into any) {
		t.Helper()
		a, ok := seen.Answers[question]
		if !ok || a.IsError {
			t.Fatalf("%q was not answered: %s", question, a.Answer)
		}
		if err := json.Unmarshal(a.Answer, into); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()

	// How did the Hawks do last week? Monday 9 to Sunday 15 November.
	var hawks figures
	answer("How did the Hawks do last week?", &hawks)
	var submitted, conversations float64
	if err := db.QueryRow(ctx, `SELECT sum(submitted), sum(submitted + lost) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+teamOnDay+` = 'hawks'`).Scan(&submitted, &conversations); err != nil {
		t.Fatal(err)
	}
	if hawks.Period.Start != "2026-11-09" || hawks.Period.End != "2026-11-15" || len(hawks.Rows) != 1 {
		t.Fatalf("the Hawks last week: %+v", hawks)
	}
	row := hawks.row(t, 0)
	if row["submitted_sales"] != submitted || row["close_rate_numerator"] != submitted || row["close_rate_denominator"] != conversations ||
		!near(row["close_rate"], submitted/conversations) {
		t.Errorf("the Hawks last week: %v; want %v submitted of %v conversations", row, submitted, conversations)
	}

	// Who are the Marias? Every agent with a name that starts with Maria.
	var marias struct {
		People []struct {
			AgentKey string `json:"agent_key"`
			Name     string `json:"name"`
		} `json:"people"`
	}
	answer("Who are the Marias?", &marias)
	want := sqlStrings(t, db, `SELECT agent_key || ' ' || full_name FROM analytics.dim_agent WHERE full_name ~* '(^|\s)maria' ORDER BY 1`)
	var got []string
	for _, p := range marias.People {
		got = append(got, p.AgentKey+" "+p.Name)
	}
	slices.Sort(got)
	if len(want) < 2 || !slices.Equal(got, want) {
		t.Errorf("the Marias: %v, want %v", got, want)
	}

	// How do the teams stand over the last 28 days? 21 October to 17
	// November, each team over its days on the floor, by submissions.
	var league struct {
		Sections []struct {
			Rows  [][]any
			Total []any
		}
	}
	answer("How do the teams stand over the last 28 days?", &league)
	want = sqlStrings(t, db, `SELECT team || ' ' || sum(submitted) || ' ' || sum(submitted + lost) FROM
		(SELECT s.*, `+teamOnDay+` AS team FROM metrics.agent_sales_daily s WHERE day BETWEEN '2026-10-21' AND '2026-11-17') s
		WHERE `+teamOnFloor+` GROUP BY team ORDER BY sum(submitted) DESC`)
	// A row is rank, team, name, submitted, close rate, its numerator and
	// denominator.
	got = nil
	floor := 0.0
	for i, r := range league.Sections[0].Rows {
		if r[0] != float64(i+1) || r[5] != r[3] {
			t.Errorf("league row %d: %v", i, r)
		}
		got = append(got, fmt.Sprint(r[1], " ", jsonNumber(r[3]), " ", jsonNumber(r[6])))
		floor += r[3].(float64)
	}
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Errorf("the league: %v, want %v", got, want)
	}
	if total := league.Sections[0].Total; total[2] != "the floor" || total[3] != floor {
		t.Errorf("the floor's line in the league: %v, want %v submitted", total, floor)
	}

	// What is on today's board? The live board since midnight in New York,
	// by team, for the teams on the floor, partial.
	var board figures
	answer("What is on today's board?", &board)
	want = sqlStrings(t, db, `SELECT team || ' ' || sum(sales) FROM
		(SELECT s.*, `+teamOnDay+` AS team FROM
		  (SELECT agent_key, (entered_at AT TIME ZONE 'America/New_York')::date AS day, sales FROM live.sales_board) s
		 WHERE day = '2026-11-18') s
		WHERE `+teamOnFloor+` GROUP BY team ORDER BY team`)
	got = nil
	for i := range board.Rows {
		r := board.row(t, i)
		got = append(got, r["team"].(string)+" "+jsonNumber(r["board_sales"]))
	}
	if len(want) < 3 || !slices.Equal(got, want) || !board.Partial || !slices.Contains(board.PartialMetrics, "board_sales") {
		t.Errorf("today's board: %v (partial %v %v), want %v, partial", got, board.Partial, board.PartialMetrics, want)
	}

	// What does close rate mean? The catalogue's definition, the same in the
	// tool's answer and in the metric's resource.
	var fromTool, fromResource struct {
		Metrics map[string]json.RawMessage `json:"metrics"`
	}
	answer("What does close rate mean?", &fromTool)
	if err := json.Unmarshal(seen.CloseRateResource, &fromResource); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	closeRate, _ := cat.Metric("close_rate")
	var def struct{ Definition, Formula string }
	json.Unmarshal(fromResource.Metrics["close_rate"], &def)
	if def.Definition != closeRate.Definition() || def.Formula != "sum(submitted) / sum(submitted + lost)" ||
		string(fromResource.Metrics["close_rate"]) != string(fromTool.Metrics["close_rate"]) {
		t.Errorf("close_rate as a resource: %s\nas the tool says: %s", fromResource.Metrics["close_rate"], fromTool.Metrics["close_rate"])
	}
	if !slices.Contains(seen.Resources, "plumbline://metrics/close_rate") ||
		!slices.Equal(seen.Templates, []string{"plumbline://metrics/{metric}", "plumbline://teams/{team}"}) {
		t.Errorf("resources %v, templates %v", seen.Resources, seen.Templates)
	}

	// Completing a team as a person types "h": teams whose key or a word of
	// whose name starts so.
	want = sqlStrings(t, db, `SELECT team_key FROM analytics.dim_team WHERE team_key ILIKE 'h%' OR team_name ~* '(^|\s)h' ORDER BY 1`)
	if !slices.Equal(seen.TeamCompletion.Values, want) || seen.TeamCompletion.Total != len(want) {
		t.Errorf("completing a team from h: %+v, want %v", seen.TeamCompletion, want)
	}

	// A bad call is refused with plumbline's teaching error, which does not
	// repeat what the client sent.
	if !seen.Refusal.IsError || !strings.Contains(seen.Refusal.Text, "arguments has a field this tool does not take") ||
		strings.Contains(seen.Refusal.Text, "zq9MARKERzq9") {
		t.Errorf("the bad call: %+v", seen.Refusal)
	}
}

// The MCP Inspector's command line asks for sign-in without the token, and
// with it lists the tools (its --strict schema portability check finds
// nothing, not even a warning), calls a report, reads a resource and
// reports a refused call as a tool error.
func TestInspectorCLI(t *testing.T) {
	endpoint, token, db := clientsDemo(t)
	const cli = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
	var findings []json.RawMessage
	inspect := func(args ...string) (json.RawMessage, int) {
		t.Helper()
		res := clienttest.Run(t, time.Minute, cli, append([]string{"--cli", endpoint, "--header", "Authorization: Bearer " + token, "--format", "json"}, args...)...)
		var out struct {
			Result         json.RawMessage
			SchemaFindings []json.RawMessage
		}
		json.Unmarshal([]byte(res.Stdout), &out)
		if out.Result == nil {
			t.Fatalf("inspector %v exited %d with no result:\n%s\n%s", args, res.Code, res.Stdout, res.Stderr)
		}
		findings = out.SchemaFindings
		return out.Result, res.Code
	}

	// Without the token the Inspector is told to sign in, and, with no one
	// at a terminal, gives up.
	if res := clienttest.Run(t, time.Minute, cli, "--cli", endpoint, "--method", "tools/list", "--format", "json"); res.Code != 3 ||
		!strings.Contains(res.Stdout+res.Stderr, "auth_required") {
		t.Errorf("tools/list without the token: exit %d (want 3, auth_required)\n%s%s", res.Code, res.Stdout, res.Stderr)
	}

	result, code := inspect("--method", "tools/list", "--strict")
	var list struct{ Tools []struct{ Name string } }
	json.Unmarshal(result, &list)
	if code != 0 || len(list.Tools) != 11 {
		t.Errorf("tools/list: exit %d, %d tools", code, len(list.Tools))
	}
	for _, f := range findings {
		t.Errorf("the Inspector's --strict check: %s", f)
	}

	result, code = inspect("--method", "tools/call", "--tool-name", "team_day",
		"--tool-args-json", `{"who":{"team":"hawks"},"period":{"day":"2026-11-17"}}`)
	var day struct {
		StructuredContent struct {
			Sections []struct {
				ID      string
				Columns []string
				Total   []any
			}
		}
	}
	json.Unmarshal(result, &day)
	var submitted float64
	if err := db.QueryRow(context.Background(), `SELECT sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day = '2026-11-17' AND `+teamOnDay+` = 'hawks'`).Scan(&submitted); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range day.StructuredContent.Sections {
		if i := slices.Index(s.Columns, "submitted_sales"); s.ID == "sales" && i >= 0 {
			found = true
			if s.Total[i] != submitted {
				t.Errorf("the Hawks' submissions on 17 November: %v, want %v", s.Total[i], submitted)
			}
		}
	}
	if code != 0 || !found {
		t.Errorf("team_day: exit %d, %s", code, result)
	}

	result, code = inspect("--method", "resources/read", "--uri", "plumbline://teams/hawks")
	var read struct{ Contents []struct{ URI, Text string } }
	json.Unmarshal(result, &read)
	if code != 0 || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, `"on_floor":true`) {
		t.Errorf("reading the Hawks' roster: exit %d, %s", code, result)
	}

	result, code = inspect("--method", "tools/call", "--tool-name", "sales", "--tool-args-json", `{"who":{"team":"hawks"}}`)
	if code != 5 || !strings.Contains(string(result), `"isError":true`) || !strings.Contains(string(result), `"argument":"period"`) {
		t.Errorf("a call without a period: exit %d (want 5, a tool error), %s", code, result)
	}
}

func metricsJSON(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// figures is a report's answer, with its rows by column.
type figures struct {
	Columns        []string `json:"columns"`
	Rows           [][]any  `json:"rows"`
	Partial        bool     `json:"partial"`
	PartialMetrics []string `json:"partial_metrics"`
	Period         struct{ Start, End string }
}

func (f figures) row(t *testing.T, i int) map[string]any {
	t.Helper()
	if i >= len(f.Rows) || len(f.Rows[i]) != len(f.Columns) {
		t.Fatalf("no row %d of %d columns in %v", i, len(f.Columns), f.Rows)
	}
	m := map[string]any{}
	for j, c := range f.Columns {
		m[c] = f.Rows[i][j]
	}
	return m
}

func sqlStrings(t *testing.T, db *pgx.Conn, query string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// jsonNumber prints a number from JSON as SQL prints an integer.
func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func near(got any, want float64) bool {
	g, ok := got.(float64)
	return ok && math.Abs(g-want) <= 1e-6
}

// Every tool, in every mode, answers with structured content that the
// official TypeScript SDK's client accepts against the tool's own output
// schema: figures in full, compact and with definitions by reference (the
// right catalogue version and a wrong one), candidates, refusals, canned
// sections, compare_counts, rankings with ties, live figures for today.
func TestTypeScriptSDKAcceptsEveryAnswer(t *testing.T) {
	endpoint, token, _ := clientsDemo(t, "--calls-per-minute", "0")
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	version := cat.Version()
	floorWeek := `"who":{"floor":true},"period":{"named":"last_week"}`
	type call struct {
		Label     string          `json:"label"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	var calls []call
	add := func(label, tool, args string) {
		calls = append(calls, call{label, tool, json.RawMessage(args)})
	}
	for _, r := range cat.Reports() {
		tool := r.ID
		add(tool+" full", tool, `{`+floorWeek+`}`)
		for _, g := range r.GroupBy {
			add(tool+" by "+g, tool, `{`+floorWeek+`,"group_by":"`+g+`"}`)
		}
		add(tool+" compact", tool, `{`+floorWeek+`,"compact":true}`)
		add(tool+" compact by team", tool, `{`+floorWeek+`,"group_by":"team","compact":true}`)
		add(tool+" known_definitions", tool, `{`+floorWeek+`,"group_by":"week","known_definitions":"`+version+`"}`)
		add(tool+" known_definitions stale", tool, `{`+floorWeek+`,"known_definitions":"0123456789abcdef"}`)
		add(tool+" top_n", tool, `{`+floorWeek+`,"group_by":"agent","top_n":3}`)
		add(tool+" sorted ascending", tool, `{`+floorWeek+`,"group_by":"team","sort":{"metric":"`+r.Defaults[0].ID+`","direction":"asc"}}`)
		add(tool+" today by agent", tool, `{"who":{"team":"hawks"},"period":{"named":"today"},"group_by":"agent"}`)
		add(tool+" this month by team", tool, `{"who":{"floor":true},"period":{"named":"this_month"},"group_by":"team","compact":true}`)
		add(tool+" agent by day", tool, `{"who":{"agent":"a001"},"period":{"named":"last_28_days"},"group_by":"day"}`)
		add(tool+" a leaver", tool, `{"who":{"agent":"Priya Raman"},"period":{"named":"last_week"}}`)
		add(tool+" candidates", tool, `{"who":{"agent":"Maria Lop"},"period":{"named":"last_week"}}`)
		add(tool+" refusal unknown field", tool, `{`+floorWeek+`,"zq9":1}`)
		add(tool+" refusal top_n ungrouped", tool, `{`+floorWeek+`,"top_n":3}`)
		add(tool+" refusal ranking today", tool, `{"who":{"floor":true},"period":{"named":"today"},"group_by":"team","top_n":2}`)
		add(tool+" refusal before the data", tool, `{"who":{"floor":true},"period":{"day":"1900-01-01"}}`)
		add(tool+" compare_to", tool, `{`+floorWeek+`,"compare_to":"previous_period"}`)
		add(tool+" compare_to by team", tool, `{"who":{"floor":true},"period":{"named":"last_month"},"group_by":"team","compare_to":"previous_period","metrics":`+
			metricsJSON(r.MetricIDs())+`}`)
		add(tool+" compare_to by agent top_n", tool, `{"who":{"team":"hawks"},"period":{"named":"last_month"},"group_by":"agent","top_n":3,"compare_to":"previous_period"}`)
		add(tool+" compare_to compact", tool, `{`+floorWeek+`,"group_by":"team","compact":true,"compare_to":"previous_period"}`)
		add(tool+" compare_to known_definitions", tool, `{`+floorWeek+`,"known_definitions":"`+version+`","compare_to":"previous_period"}`)
		add(tool+" refusal compare_to today", tool, `{"who":{"floor":true},"period":{"named":"today"},"compare_to":"previous_period"}`)
		add(tool+" compare_to so far", tool, `{"who":{"team":"falcons"},"period":{"named":"month_to_date"},"compare_to":"previous_period","group_by":"agent"}`)
		add(tool+" refusal compare_to by day", tool, `{`+floorWeek+`,"group_by":"day","compare_to":"previous_period"}`)
		add(tool+" cumulative by day", tool, `{"who":{"team":"hawks"},"period":{"named":"month_to_date"},"group_by":"day","cumulative":true}`)
		add(tool+" cumulative agent by day compact", tool, `{"who":{"agent":"a001"},"period":{"named":"quarter_to_date"},"group_by":"day","cumulative":true,"compact":true}`)
		add(tool+" week_to_date", tool, `{"who":{"floor":true},"period":{"named":"week_to_date"},"group_by":"team"}`)
		add(tool+" refusal cumulative by team", tool, `{`+floorWeek+`,"group_by":"team","cumulative":true}`)
	}
	add("sales target", "sales", `{"who":{"team":"falcons"},"period":{"named":"last_month"},"compare_to":"target"}`)
	add("sales target floor by team", "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team","compare_to":"target"}`)
	add("sales target floor month_to_date compact", "sales", `{"who":{"floor":true},"period":{"named":"month_to_date"},"compare_to":"target","compact":true}`)
	add("sales target known_definitions", "sales", `{"who":{"team":"kestrels"},"period":{"named":"this_week"},"compare_to":"target","known_definitions":"`+version+`"}`)
	add("sales refusal target agent", "sales", `{"who":{"agent":"a001"},"period":{"named":"last_week"},"compare_to":"target"}`)
	add("sales refusal target period", "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"compare_to":"target"}`)
	add("sales refusal target by week of a monthly rate", "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["close_rate"],"compare_to":"target"}`)
	add("sales target harriers leaving the floor", "sales", `{"who":{"team":"harriers"},"period":{"start":"2026-10-01","end":"2026-10-31"},"compare_to":"target"}`)
	add("hours refusal target no metric", "hours", `{"who":{"floor":true},"period":{"named":"last_week"},"compare_to":"target"}`)
	add("sales compare_counts", "sales", `{`+floorWeek+`,"compare_counts":true,"group_by":"day"}`)
	add("sales compare_counts compact", "sales", `{`+floorWeek+`,"compare_counts":true,"compact":true}`)
	add("sales every metric", "sales", `{`+floorWeek+`,"group_by":"team","metrics":["submitted_sales","close_rate","board_sales","approved_sales","approval_rate","sales_per_hour"]}`)
	add("sales today live", "sales", `{"who":{"floor":true},"period":{"named":"today"},"group_by":"team"}`)
	add("sales last_quarter beside the one before", "sales", `{"who":{"floor":true},"period":{"named":"last_quarter"},"group_by":"team","compare_to":"previous_period"}`)
	add("sales this_quarter so far beside the one before", "sales", `{"who":{"team":"falcons"},"period":{"named":"this_quarter"},"compare_to":"previous_period"}`)
	add("hours this_year by week", "hours", `{"who":{"floor":true},"period":{"named":"this_year"},"group_by":"week"}`)
	add("sales refusal last_year by day", "sales", `{"who":{"floor":true},"period":{"named":"last_year"},"group_by":"day"}`)
	add("sales a range past 120 days by month", "sales", `{"who":{"team":"falcons"},"period":{"start":"2025-08-20","end":"2026-11-17"},"group_by":"month"}`)
	add("quality this_year by quarter, running", "quality", `{"who":{"floor":true},"period":{"named":"this_year"},"group_by":"quarter","cumulative":true}`)
	add("hours refusal a range past 120 days by day", "hours", `{"who":{"floor":true},"period":{"start":"2025-08-20","end":"2026-11-17"},"group_by":"day"}`)
	add("sales last_week beside a year earlier by team", "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team","compare_to":"previous_year"}`)
	add("hours this_month so far beside a year earlier", "hours", `{"who":{"team":"falcons"},"period":{"named":"this_month"},"compare_to":"previous_year"}`)
	add("sales refusal last_year beside a year earlier", "sales", `{"who":{"floor":true},"period":{"named":"last_year"},"compare_to":"previous_year"}`)
	add("sales over the enrollment season by week", "sales", `{"who":{"team":"hawks"},"period":{"named":"aep"},"group_by":"week"}`)
	add("sales the enrollment season beside the one before", "sales", `{"who":{"floor":true},"period":{"named":"aep"},"compare_to":"previous_year"}`)
	for _, who := range []string{`{"floor":true}`, `{"team":"falcons"}`} {
		add("team_day "+who, "team_day", `{"who":`+who+`}`)
		add("team_day today "+who, "team_day", `{"who":`+who+`,"period":{"named":"today"},"compact":true}`)
		add("team_weeks "+who, "team_weeks", `{"who":`+who+`,"weeks":3,"known_definitions":"`+version+`"}`)
	}
	add("team_weeks agent", "team_weeks", `{"who":{"agent":"a002"}}`)
	add("team_weeks compare_to", "team_weeks", `{"who":{"team":"hawks"},"weeks":8,"compare_to":"previous_period"}`)
	add("team_weeks compare_to floor compact", "team_weeks", `{"who":{"floor":true},"compare_to":"previous_period","compact":true}`)
	add("team_weeks target", "team_weeks", `{"who":{"team":"kestrels"},"compare_to":"target"}`)
	add("team_weeks target floor compact", "team_weeks", `{"who":{"floor":true},"weeks":6,"compare_to":"target","compact":true}`)
	add("team_weeks compare_to agent known_definitions", "team_weeks", `{"who":{"agent":"Tom Becker"},"compare_to":"previous_period","known_definitions":"`+version+`"}`)
	add("team_weeks refusal compare_to", "team_weeks", `{"who":{"team":"hawks"},"compare_to":"last_year"}`)
	add("team_weeks compact", "team_weeks", `{"who":{"team":"ospreys"},"compact":true}`)
	add("team_day candidates", "team_day", `{"who":{"team":"h"}}`)
	add("team_day refusal agent", "team_day", `{"who":{"agent":"a001"}}`)
	add("team_weeks candidates", "team_weeks", `{"who":{"agent":"Maria Lop"}}`)
	add("league", "league", `{"period":{"named":"last_week"}}`)
	add("league ascending", "league", `{"period":{"named":"last_month"},"metrics":["close_rate","logged_hours"],"sort":{"metric":"logged_hours","direction":"asc"}}`)
	add("league compact", "league", `{"period":{"named":"last_month"},"compact":true}`)
	add("league refusal today", "league", `{"period":{"named":"today"}}`)
	add("league by attainment", "league", `{"period":{"named":"last_week"},"rank_by":"attainment"}`)
	add("league by attainment of a rate", "league", `{"period":{"named":"last_month"},"sort":{"metric":"close_rate","direction":"asc"},"rank_by":"attainment"}`)
	add("league by attainment compact", "league", `{"period":{"named":"last_month"},"metrics":["submitted_sales","logged_hours"],"rank_by":"attainment","compact":true}`)
	add("league by figure", "league", `{"period":{"named":"last_week"},"rank_by":"figure"}`)
	add("league refusal attainment without targets", "league", `{"period":{"named":"last_week"},"metrics":["logged_hours"],"rank_by":"attainment"}`)
	add("league refusal attainment period", "league", `{"period":{"named":"last_28_days"},"rank_by":"attainment"}`)
	add("league refusal attainment this week", "league", `{"period":{"named":"this_week"},"rank_by":"attainment"}`)
	add("league refusal unknown field", "league", `{"period":{"named":"last_week"},"zq9":1}`)
	add("roster floor", "roster", `{"who":{"floor":true}}`)
	add("roster team on a day", "roster", `{"who":{"team":"kestrels"},"day":"2026-09-01"}`)
	add("roster agent", "roster", `{"who":{"agent":"Tom Becker"}}`)
	add("roster candidates", "roster", `{"who":{"agent":"Maria Lop"}}`)
	add("roster refusal", "roster", `{"who":{"floor":true},"day":"2999-01-01"}`)
	add("find_people", "find_people", `{"query":"Maria"}`)
	add("find_people nobody", "find_people", `{"query":"Zebediah"}`)
	add("find_people refusal", "find_people", `{}`)
	add("freshness", "freshness", `{}`)
	add("freshness refusal", "freshness", `{"zq9":1}`)
	add("metric_definitions", "metric_definitions", `{}`)
	add("metric_definitions some", "metric_definitions", `{"metrics":["close_rate","talk_share"]}`)
	add("metric_definitions refusal", "metric_definitions", `{"metrics":["zq9"]}`)
	add("health", "health", `{}`)
	add("health refusal", "health", `{"zq9":1}`)

	file := filepath.Join(t.TempDir(), "matrix.json")
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// tools/list offers each output schema as an object only; the exact
	// ones are the contract, which every answer is checked against.
	exact := map[string]any{}
	for _, tool := range contract.Tools(reports.New(cat, nil, nil)) {
		exact[tool.Name] = tool.OutputSchema
	}
	contract := filepath.Join(t.TempDir(), "contract.json")
	b, _ = json.Marshal(exact)
	if err := os.WriteFile(contract, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res := clienttest.Run(t, 3*time.Minute, "matrix.mjs", endpoint, token, file, contract)
	if res.Code != 0 {
		t.Fatalf("matrix.mjs exited %d:\n%s", res.Code, res.Stderr)
	}
	var seen struct {
		Tools   []string
		Results map[string]struct {
			Accepted, IsError bool
			Error, ExactError string
			Structured        map[string]any
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &seen); err != nil {
		t.Fatalf("matrix.mjs printed no JSON: %v\n%s", err, res.Stdout)
	}
	called := map[string]bool{}
	for _, c := range calls {
		called[c.Tool] = true
		r, ok := seen.Results[c.Label]
		switch {
		case !ok:
			t.Errorf("%s: no result", c.Label)
		case !r.Accepted:
			t.Errorf("%s: the TypeScript SDK refused the answer: %s", c.Label, r.Error)
		case r.ExactError != "":
			t.Errorf("%s: the answer does not fit its exact output schema: %s", c.Label, r.ExactError)
		case strings.Contains(c.Label, "refusal") != r.IsError:
			t.Errorf("%s: isError %v: %v", c.Label, r.IsError, r.Structured)
		case strings.Contains(c.Label, "candidates") && r.Structured["candidates"] == nil:
			t.Errorf("%s: no candidates: %v", c.Label, r.Structured)
		}
	}
	for _, tool := range seen.Tools {
		if !called[tool] {
			t.Errorf("the matrix does not call %s", tool)
		}
	}
	t.Logf("the TypeScript SDK checked %d answers from %d tools against their listed and exact output schemas", len(calls), len(seen.Tools))
}
