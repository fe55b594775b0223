package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"plumbline/catalog"
	"plumbline/internal/clienttest"
	"plumbline/internal/contract"
	"plumbline/internal/grants"
	"plumbline/internal/pgcluster"
	"plumbline/internal/pgtest"
	"plumbline/reports"
)

// ownFloor are the commands of the README's "On your own data", as written
// there, in its order: run from the repository's root by sh, with the
// variables the README sets ($ADMIN_DB, $APP_DB, $AGENT_DB, $ADDR,
// $PUBLIC_URL, $OIDC_ISSUER, $OIDC_CLIENT_ID and the secrets'
// PLUMBLINE_OIDC_CLIENT_SECRET and PLUMBLINE_LOG_SECRET).
var ownFloor = struct {
	warehouse, export, setup, guard, check, scimToken, serve string
}{
	warehouse: `psql "$ADMIN_DB" -v ON_ERROR_STOP=1 -f testdata/floor2/warehouse.sql`,
	export:    `for f in testdata/floor2/export/*.csv; do psql "$ADMIN_DB" -v ON_ERROR_STOP=1 -c "\copy $(basename "$f" .csv) FROM '$f' (FORMAT csv, HEADER)"; done`,
	setup: `plumbline setup --db "$ADMIN_DB" --grants testdata/floor2/grants --analyst-grants testdata/floor2/analyst ` +
		`--catalog testdata/floor2/catalog --sql testdata/floor2/sql`,
	guard:     `plumbline guard --db "$APP_DB" --catalog testdata/floor2/catalog --grants testdata/floor2/grants --analyst-db "$AGENT_DB" --analyst-grants testdata/floor2/analyst`,
	check:     `plumbline check --db "$APP_DB" --grants testdata/floor2/grants --analyst-grants testdata/floor2/analyst testdata/floor2/catalog`,
	scimToken: `plumbline scim token create --name okta --db "$APP_DB"`,
	serve: `plumbline serve --db "$APP_DB" --grants testdata/floor2/grants --catalog testdata/floor2/catalog ` +
		`--addr "$ADDR" --public-url "$PUBLIC_URL" --oidc-issuer "$OIDC_ISSUER" --oidc-client-id "$OIDC_CLIENT_ID" ` +
		`--clients testdata/floor2/clients.yaml`,
}

// The whole path on a company's own data, from an empty PostgreSQL to a
// manager's answers, with the README's commands run as written: the
// second floor's warehouse and export loaded with psql, plumbline setup
// with its grant files, catalogue and SQL, guard and check --db on the
// login setup made, a SCIM token, and plumbline serve (the built binary)
// with a real OpenID Connect provider. Two people are provisioned over
// HTTP as Okta sends them (a look-up by userName, then a create); each
// signs in through the provider in headless Chromium from a client on the
// official TypeScript SDK, which discovers the authorization server from
// the URL alone. One asks every tool the server lists, and every answer
// passes the SDK's check against the tool's listed output schema and the
// exact one; its figures are those plain SQL gives over the raw export
// tables, never plumbline's views. Okta's deactivation then refuses that
// person's next request with the same token, while the other's is still
// answered.
func TestOwnFloorEndToEnd(t *testing.T) {
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := pgtest.NewEmptyDB(t)
	admin := db.Conn(t)
	// Roles belong to the cluster, which other tests share: this test's
	// are its own, named in the environment, as the README's commands
	// leave them to their defaults.
	r := grants.Roles{Reader: "e2e_reader_" + db.Name, Logger: "e2e_logger_" + db.Name, Auth: "e2e_auth_" + db.Name,
		App: "e2e_app_" + db.Name, Analyst: "e2e_analyst_" + db.Name, Agent: "e2e_agent_" + db.Name}
	t.Cleanup(func() {
		for _, role := range []string{r.App, r.Agent, r.Reader, r.Logger, r.Auth, r.Analyst} {
			admin.Exec(ctx, fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", role, role))
		}
	})
	addr := freeAddr(t)
	base := "http://" + addr
	issuer := clienttest.OIDCProvider(t, base+"/signin/oidc/callback")
	// psql from the PostgreSQL the harness runs, whether or not it is on
	// the PATH.
	pgBin, err := pgcluster.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{filepath.Dir(bin), pgBin, os.Getenv("PATH")}, string(os.PathListSeparator))
	env := append(os.Environ(), "PATH="+path,
		"ADMIN_DB="+db.DSN, "APP_DB="+db.LoginDSN(r.App), "AGENT_DB="+db.LoginDSN(r.Agent),
		"ADDR="+addr, "PUBLIC_URL="+base, "OIDC_ISSUER="+issuer, "OIDC_CLIENT_ID=plumbline",
		"PLUMBLINE_OIDC_CLIENT_SECRET=op-secret", "PLUMBLINE_LOG_SECRET=own-floor-test-log-secret",
		"PLUMBLINE_READER_ROLE="+r.Reader, "PLUMBLINE_LOGGER_ROLE="+r.Logger, "PLUMBLINE_AUTH_ROLE="+r.Auth,
		"PLUMBLINE_ANALYST_ROLE="+r.Analyst, "PLUMBLINE_APP_LOGIN="+r.App, "PLUMBLINE_AGENT_LOGIN="+r.Agent,
		"PLUMBLINE_LOG_LEVEL=warn")
	shell := func(line string) *exec.Cmd {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = "../..", env
		return cmd
	}
	run := func(line string) string {
		t.Helper()
		out, err := shell(line).Output()
		if err != nil {
			var stderr []byte
			if e, ok := err.(*exec.ExitError); ok {
				stderr = e.Stderr
			}
			t.Fatalf("%s: %v\n%s%s", line, err, out, stderr)
		}
		return string(out)
	}

	// The company's own tables and export, as psql loads them.
	run(ownFloor.warehouse)
	run(ownFloor.export)
	files, _ := filepath.Glob(floor2 + "/export/*.csv")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		table := strings.TrimSuffix(filepath.Base(file), ".csv")
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != strings.Count(string(b), "\n")-1 {
			t.Fatalf("%s holds %d rows after the load (%v), want the export's", table, n, err)
		}
	}

	if out := run(ownFloor.setup); !strings.Contains(out, "of plumbline's migrations and 1 of your SQL files.") {
		t.Errorf("setup:\n%s", out)
	}
	// setup sets no password; the server here asks for one.
	if _, err := admin.Exec(ctx, "ALTER ROLE "+r.App+" PASSWORD 'pgtest-login'; ALTER ROLE "+r.Agent+" PASSWORD 'pgtest-login'"); err != nil {
		t.Fatal(err)
	}
	if out := run(ownFloor.guard); strings.Contains(out, "missing") || strings.Count(out, "nothing extra") != 2 {
		t.Errorf("guard:\n%s", out)
	}
	if out := run(ownFloor.check); !strings.Contains(out, "database: ok") {
		t.Errorf("check --db:\n%s", out)
	}
	scimToken := strings.TrimSpace(run(ownFloor.scimToken))
	if !strings.HasPrefix(scimToken, "plbscim_") {
		t.Fatalf("scim token create printed %q", scimToken)
	}

	// serve, until the test ends; interrupted as a service manager would.
	serve := shell(ownFloor.serve)
	var serveLog syncBuffer
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serve.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-serve.Process.Pid, syscall.SIGTERM)
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			syscall.Kill(-serve.Process.Pid, syscall.SIGKILL)
			t.Error("serve did not stop on SIGTERM")
		}
	})
	for i := 0; ; i++ {
		res, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-served:
			t.Fatalf("serve exited (%v):\n%s", err, serveLog.String())
		case <-time.After(100 * time.Millisecond):
		}
		if i > 300 {
			t.Fatalf("serve did not answer:\n%s", serveLog.String())
		}
	}

	// Okta provisions two people: each looked up by userName, then created.
	scim := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, base+"/scim/v2"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+scimToken)
		req.Header.Set("Content-Type", "application/scim+json; charset=utf-8")
		req.Header.Set("Accept", "application/scim+json")
		req.Header.Set("User-Agent", "Okta SCIM Client 1.0.0")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	type person struct{ email, given, family, oktaID, id string }
	manager := &person{email: "maya.brooks@lakeshore-benefits.example", given: "Maya", family: "Brooks", oktaID: "00u1a2b3c4MayaBrook"}
	lead := &person{email: "dev.patel@lakeshore-benefits.example", given: "Dev", family: "Patel", oktaID: "00u1a2b3c4DevPatel1"}
	for _, p := range []*person{manager, lead} {
		filter := "/Users?filter=" + strings.ReplaceAll(fmt.Sprintf("userName eq %q", p.email), " ", "%20") + "&startIndex=1&count=100"
		if code, body := scim("GET", filter, ""); code != 200 || body["totalResults"] != 0.0 {
			t.Fatalf("Okta's look-up of %s: %d %v", p.email, code, body)
		}
		code, body := scim("POST", "/Users", fmt.Sprintf(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
			"userName":%[1]q,"name":{"givenName":%[2]q,"familyName":%[3]q},
			"emails":[{"primary":true,"value":%[1]q,"type":"work"}],"displayName":"%[2]s %[3]s",
			"locale":"en-US","externalId":%[4]q,"groups":[],"password":"5aLtEd-n0t-kept","active":true}`, p.email, p.given, p.family, p.oktaID))
		if code != 201 || body["active"] != true {
			t.Fatalf("Okta's create of %s: %d %v", p.email, code, body)
		}
		p.id, _ = body["id"].(string)
	}

	// The manager asks every tool, through the TypeScript SDK's client.
	cat, err := catalog.LoadDir(floor2 + "/catalog")
	if err != nil {
		t.Fatal(err)
	}
	exact := map[string]any{}
	for _, tool := range contract.Tools(reports.New(cat, nil, nil)) {
		exact[tool.Name] = tool.OutputSchema
	}
	contract := writeJSON(t, "contract.json", exact)
	type call struct {
		Label     string          `json:"label"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	calls := []call{}
	for _, f := range floor2Figures {
		calls = append(calls, call{f.name, f.tool, json.RawMessage(f.args)})
	}
	const (
		goal    = `{"who":{"team":"Atlantic"},"period":{"week":"2026-03-04"},"metrics":["submitted_sales"],"compare_to":"target"}`
		notIn   = `{"who":{"floor":true},"period":{"day":"2026-03-09"},"metrics":["logged_hours"]}`
		league  = `{"period":{"start":"2026-02-01","end":"2026-02-28"},"metrics":["submitted_sales"]}`
		roster  = `{"who":{"team":"Atlantic"},"day":"2026-02-26"}`
		teamDay = `{"who":{"team":"Pacific"},"period":{"day":"2026-03-06"}}`
	)
	calls = append(calls, []call{
		{"a goal revised mid-week", "sales", json.RawMessage(goal)},
		{"hours not in yet", "hours", json.RawMessage(notIn)},
		{"league", "league", json.RawMessage(league)},
		{"roster", "roster", json.RawMessage(roster)},
		{"team_day", "team_day", json.RawMessage(teamDay)},
		{"team_weeks", "team_weeks", json.RawMessage(`{"who":{"team":"Gulf"},"weeks":4}`)},
		{"find_people", "find_people", json.RawMessage(`{"query":"Ana"}`)},
		{"freshness", "freshness", json.RawMessage(`{}`)},
		{"metric_definitions", "metric_definitions", json.RawMessage(`{}`)},
		{"health", "health", json.RawMessage(`{}`)},
	}...)
	mcpURL := base + "/mcp"
	token, seen := signInAndAsk(t, mcpURL, manager.email, writeJSON(t, "matrix.json", calls), contract)
	called := map[string]bool{}
	answers := map[string][]byte{}
	for _, c := range calls {
		called[c.Tool] = true
		res, ok := seen.Results[c.Label]
		switch {
		case !ok:
			t.Errorf("%s: no result", c.Label)
		case !res.Accepted:
			t.Errorf("%s: the TypeScript SDK refused the answer: %s", c.Label, res.Error)
		case res.ExactError != "":
			t.Errorf("%s: the answer does not fit its exact output schema: %s", c.Label, res.ExactError)
		case res.IsError:
			t.Errorf("%s: refused: %s", c.Label, res.Structured)
		default:
			answers[c.Label] = res.Structured
		}
	}
	for _, tool := range seen.Tools {
		if !called[tool] {
			t.Errorf("the manager's calls leave out %s, which the server lists", tool)
		}
	}
	if len(seen.Tools) != len(exact) {
		t.Errorf("the server lists %v to a person, want the %d tools of the catalogue", seen.Tools, len(exact))
	}

	// Each figure is what plain SQL over the raw export tables gives.
	for _, f := range floor2Figures {
		if body, ok := answers[f.name]; ok {
			if diff := differ(answerBodyRows(t, f.tool, body, f.columns), expectedRows(t, admin, f.want)); diff != "" {
				t.Errorf("%s: %s", f.name, diff)
			}
		}
	}
	if body, ok := answers["a goal revised mid-week"]; ok {
		got := answerBodyRows(t, "sales", body, []string{"submitted_sales_target"})
		want := expectedRows(t, admin, `SELECT 'all', goal::float8 FROM crm.team_goals WHERE team_code = 'ATL' AND goal_kind = 'APPS' AND period = 'W'
			AND period_start = '2026-03-01' ORDER BY set_at DESC LIMIT 1`)
		if len(got) != 1 || len(want) != 1 || firstOf(got)[0] != want["all"][0] {
			t.Errorf("Atlantic's target for the week of 1 March: %v, want %v", got, want)
		}
	}
	if body, ok := answers["hours not in yet"]; ok {
		var a struct {
			Metrics map[string]struct {
				LeftOut float64 `json:"left_out"`
			}
		}
		json.Unmarshal(body, &a)
		want := expectedRows(t, admin, `SELECT 'all', count(DISTINCT employee_id)::float8 FROM telephony.shifts
			WHERE clock_out IS NULL AND (clock_in AT TIME ZONE 'America/New_York')::date = '2026-03-09'`)
		if got := a.Metrics["logged_hours"].LeftOut; got == 0 || got != want["all"][0] {
			t.Errorf("9 March's hours leave out %v agent-days, want %v:\n%s", got, want["all"][0], body)
		}
	}
	var leagueLines []string
	if body, ok := answers["league"]; ok {
		var a struct {
			Sections []struct {
				Columns []string
				Rows    [][]any
				Total   []any
			}
		}
		json.Unmarshal(body, &a)
		got := map[string][]float64{}
		if len(a.Sections) == 1 {
			sec := a.Sections[0]
			team, name, figure := slices.Index(sec.Columns, "team"), slices.Index(sec.Columns, "team_name"), slices.Index(sec.Columns, "submitted_sales")
			for _, row := range sec.Rows {
				if team >= 0 && name >= 0 && figure >= 0 {
					v, _ := row[figure].(float64)
					got[fmt.Sprint(row[team])] = []float64{v}
					// The README shows the manager this answer.
					leagueLines = append(leagueLines, fmt.Sprintf("| %v | %v | %v |", row[0], row[name], v))
				}
			}
			if name >= 0 && figure >= 0 && len(sec.Total) == len(sec.Columns) {
				leagueLines = append(leagueLines, fmt.Sprintf("| | %v | %v |", sec.Total[name], sec.Total[figure]))
			}
		}
		want := expectedRows(t, admin, `SELECT `+rawTeam+`, sum(submitted)::float8 FROM `+rawSales+`
			WHERE day BETWEEN '2026-02-01' AND '2026-02-28' AND `+rawOnFloor+` GROUP BY 1`)
		if diff := differ(got, want); diff != "" {
			t.Errorf("the league of February: %s", diff)
		}
	}
	if body, ok := answers["roster"]; ok {
		want := expectedRows(t, admin, `SELECT e.given_name || ' ' || e.family_name, 1::float8 FROM hr.team_assignments a
			JOIN hr.employees e USING (employee_id)
			WHERE a.team_code = 'ATL' AND '2026-02-26' BETWEEN a.valid_from AND coalesce(a.valid_to, 'infinity')`)
		for name := range want {
			if !strings.Contains(string(body), `"`+name+`"`) {
				t.Errorf("the roster of Atlantic on 26 February leaves out %s:\n%s", name, body)
			}
		}
	}

	// The team lead signs in too, and asks one question.
	one := writeJSON(t, "one.json", []call{{"the floor", "sales", json.RawMessage(floor2Figures[3].args)}})
	leadToken, leadSeen := signInAndAsk(t, mcpURL, lead.email, one, contract)
	if res := leadSeen.Results["the floor"]; !res.Accepted || res.IsError {
		t.Errorf("the team lead's question: %+v", res)
	}
	var asked int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM plumbline.request_log WHERE person = $1`, manager.id).Scan(&asked); err != nil ||
		asked < len(calls) {
		t.Errorf("%d of the manager's calls on record (%v), want %d", asked, err, len(calls))
	}

	// Okta deactivates the manager: the next request with their token is
	// refused; the team lead's is still answered.
	deactivate := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]}`
	if code, body := scim("PATCH", "/Users/"+manager.id, deactivate); code != 200 || body["active"] != false {
		t.Fatalf("Okta's deactivation: %d %v", code, body)
	}
	if res := clienttest.Run(t, time.Minute, "matrix.mjs", mcpURL, token, one); res.Code == 0 || !strings.Contains(res.Stderr, "invalid_token") {
		t.Errorf("the deactivated manager's next request: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	res := clienttest.Run(t, time.Minute, "matrix.mjs", mcpURL, leadToken, one)
	var after struct {
		Results map[string]struct{ Accepted, IsError bool }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &after); err != nil || !after.Results["the floor"].Accepted || after.Results["the floor"].IsError {
		t.Errorf("the team lead's next request: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}

	// The README's section runs these commands, as written.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "\n## On your own data\n"); i >= 0 {
		section = section[i+1:]
		if j := strings.Index(section[1:], "\n## "); j >= 0 {
			section = section[:j+1]
		}
	} else {
		t.Fatal(`the README has no section "On your own data"`)
	}
	section = regexp.MustCompile(`\\\n\s*`).ReplaceAllString(section, "")
	for _, line := range []string{ownFloor.warehouse, ownFloor.export, ownFloor.setup, ownFloor.guard, ownFloor.check, ownFloor.scimToken, ownFloor.serve} {
		if !strings.Contains(section, "\n"+line+"\n") {
			t.Errorf("the README's section does not give the command the test runs:\n%s", line)
		}
	}
	if len(leagueLines) == 0 {
		t.Error("no league to look for in the README")
	}
	for _, line := range leagueLines {
		if !strings.Contains(section, line+"\n") {
			t.Errorf("the README's section does not show the league's line %q", line)
		}
	}
	if t.Failed() {
		t.Logf("serve's log:\n%s", serveLog.String())
	}
}

// firstOf returns the figures of one row of many.
func firstOf(rows map[string][]float64) []float64 {
	for _, r := range rows {
		return r
	}
	return nil
}

// writeJSON writes v to a file of the test's and returns its path.
func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// seenCalls is what calls.mjs reports of a client's calls.
type seenCalls struct {
	Tools   []string
	Results map[string]struct {
		Accepted, IsError bool
		Error, ExactError string
		Structured        json.RawMessage
	}
}

// signInAndAsk runs the TypeScript SDK's client (signin-client.mjs, as
// the pre-registered lakeshore-desk) against the MCP URL: the person
// whose email it is signs in through the OpenID Connect provider and
// approves on plumbline's consent page in headless Chromium, and the
// client makes the matrix's calls. It returns the client's access token
// and what it saw.
func signInAndAsk(t *testing.T, mcpURL, email, matrix, contract string) (string, seenCalls) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, clienttest.Node(t), "signin-client.mjs", mcpURL, fmt.Sprint(port), "--client-id", "lakeshore-desk", matrix, contract)
	cmd.Dir = clienttest.Dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var token, matrixOut string
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "AUTHORIZE "):
			signInAtProvider(t, strings.TrimPrefix(line, "AUTHORIZE "), email)
		case strings.HasPrefix(line, "TOKEN "):
			token = strings.TrimPrefix(line, "TOKEN ")
		case strings.HasPrefix(line, "MATRIX "):
			matrixOut = strings.TrimPrefix(line, "MATRIX ")
		default:
			lines = append(lines, line)
		}
	}
	if err := cmd.Wait(); err != nil || token == "" {
		t.Fatalf("the TypeScript SDK client signing in as %s: %v\n%s\n%s", email, err, strings.Join(lines, "\n"), stderr.String())
	}
	var seen seenCalls
	if err := json.Unmarshal([]byte(matrixOut), &seen); err != nil {
		t.Fatalf("the client's calls: %v\n%s", err, matrixOut)
	}
	return token, seen
}

// signInAtProvider takes a fresh headless Chromium from plumbline's
// authorization URL through the provider's login (its development login:
// any password) and consent, back to plumbline's consent page, and
// approves, which sends the code to the client's loopback callback.
func signInAtProvider(t *testing.T, authURL, email string) {
	t.Helper()
	ctx := clienttest.Chromium(t)
	submit := chromedp.CSS(`button.login-submit`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.CSS(`input[name="login"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="login"]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "any"),
		chromedp.Click(submit),
		chromedp.WaitReady(chromedp.CSS(`input[name="prompt"][value="consent"]`)),
		chromedp.Click(submit),
		chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.Click(chromedp.ID("approve")),
	)
	if err != nil {
		page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
		t.Fatalf("sign in as %s: %v\n%s", email, err, page)
	}
	// The browser reaches the client's callback page.
	for range 100 {
		if page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body"))); strings.Contains(page, "signed in") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the browser of %s never reached the client's callback", email)
}
