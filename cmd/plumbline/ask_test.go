package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"plumbline/internal/pgtest"
	"plumbline/internal/servetest"
)

// nowFlag is the test floor's "now", for --now.
var nowFlag = pgtest.Now.Format(time.RFC3339)

// serveDemo serves a test's demo floor over Streamable HTTP behind a bearer
// check (the token is "s3cret"), and returns the MCP endpoint.
func serveDemo(t *testing.T, db *pgtest.DB) string {
	t.Helper()
	mcpHandler := servetest.New(t, db, nil).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// ask prints the figures as a table, with definitions, data_through and
// notes underneath, the same from a server and from the database; the
// figures are the raw tables' sums.
func TestAsk(t *testing.T) {
	db := pgtest.NewDB(t)
	url := serveDemo(t, db)
	call := `{"who":{"floor":true},"period":{"start":"2026-11-02","end":"2026-11-08"},"group_by":"team","metrics":["submitted_sales","close_rate"]}`

	code, fromDB, errOut := runCLI(t, "ask", "--db", db.DSN, "--now", nowFlag, "sales", call)
	if code != 0 {
		t.Fatalf("ask --db: exit %d: %s", code, errOut)
	}
	t.Setenv("PLUMBLINE_TOKEN", "s3cret")
	code, fromServer, errOut := runCLI(t, "ask", "--url", url, "sales", call)
	if code != 0 {
		t.Fatalf("ask --url: exit %d: %s", code, errOut)
	}
	if fromServer != fromDB {
		t.Errorf("the server's answer and the database's print differently:\n%s\n---\n%s", fromServer, fromDB)
	}

	lines := strings.Split(fromDB, "\n")
	header := strings.Fields(lines[0])
	if strings.Join(header, " ") != "team team_name submitted_sales close_rate close_rate_numerator close_rate_denominator" ||
		!strings.HasPrefix(lines[1], "-----") {
		t.Fatalf("not a table:\n%s", fromDB)
	}
	// Columns line up: every row's submitted figure ends where its heading does.
	end := strings.Index(lines[0], "submitted_sales") + len("submitted_sales")
	rows := rowsOf(t, db, `SELECT `+pgtest.TeamOfDay+`, sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-11-02' AND '2026-11-08' AND `+pgtest.OnFloor+` GROUP BY 1`)
	seen := 0
	for _, l := range lines[2:] {
		if l == "" {
			break
		}
		team := strings.Fields(l)[0]
		want, ok := rows[team]
		if !ok {
			t.Errorf("a row for %s, which was not on the floor that week", team)
			continue
		}
		seen++
		if got := strings.TrimSpace(l[:end]); !strings.HasSuffix(got, " "+strconv.FormatFloat(want, 'f', -1, 64)) || l[end-1] == ' ' {
			t.Errorf("team %s: row %q does not end its submitted column at %d with %v", team, l, end, want)
		}
	}
	if seen != len(rows) || seen < 3 {
		t.Errorf("%d team rows, want %d", seen, len(rows))
	}
	for _, want := range []string{
		"Period: 2026-11-02 to 2026-11-08 (7 days, America/New_York)",
		"Who: the floor",
		"Definitions:\n  submitted_sales: Applications submitted (count, submitted basis)",
		"  close_rate: Close rate (share, submitted basis)\n    Share of sales conversations that ended in a submitted application",
		"formula: sum(submitted) / sum(submitted + lost), from metrics.agent_sales_daily",
		"Data through:\n  metrics.agent_sales_daily: runs to 2026-11-17, complete through 2026-11-17",
		"Notes:\n  - Null means no data, never zero.",
		"catalog_version ",
	} {
		if !strings.Contains(fromDB, want) {
			t.Errorf("ask does not print %q:\n%s", want, fromDB)
		}
	}

	// --json is the contract itself.
	code, raw, _ := runCLI(t, "ask", "--url", url, "--json", "sales", call)
	var a struct {
		Rows    [][]any
		Metrics map[string]struct{ Definition string }
	}
	if err := json.Unmarshal([]byte(raw), &a); code != 0 || err != nil || len(a.Rows) != len(rows) || a.Metrics["close_rate"].Definition == "" {
		t.Errorf("ask --json: exit %d, %v:\n%s", code, err, raw)
	}

	// Null stays null; a refusal teaches and fails; a name that matches two
	// agents lists both and no figures.
	code, out, _ := runCLI(t, "ask", "--db", db.DSN, "--now", nowFlag, "hours",
		`{"who":{"floor":true},"period":{"named":"today"},"metrics":["logged_hours"],"group_by":"day"}`)
	if code != 0 || !strings.Contains(out, "2026-11-18  null\n") || !strings.Contains(out, "Partial: logged_hours") {
		t.Errorf("hours today: exit %d\n%s", code, out)
	}
	code, out, errOut = runCLI(t, "ask", "--url", url, "sales", `{"who":{"floor":true},"period":{"named":"fortnight"}}`)
	if code != 1 || out != "" || !strings.Contains(errOut, "refused (invalid_argument): period.named must be one of the choices") ||
		!strings.Contains(errOut, "choices: today, yesterday") || strings.Contains(errOut, "fortnight") {
		t.Errorf("a bad period: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "ask", "--db", db.DSN, "--now", nowFlag, "sales", `{"who":{"agent":"Maria"},"period":{"named":"last_week"}}`)
	if code != 0 || !strings.Contains(out, "Several match; no figures.") || !strings.Contains(out, "Maria Lopez") || !strings.Contains(out, "Maria Lopes") {
		t.Errorf("an ambiguous name: exit %d\n%s", code, out)
	}

	// Over another catalogue, the figures follow its definitions.
	t.Chdir("../..")
	code, out, errOut = runCLI(t, "ask", "--db", db.DSN, "--now", nowFlag, "--catalog", "testdata/diff/new", "hours",
		`{"who":{"floor":true},"period":{"week":"2026-11-09"},"metrics":["talk_share"]}`)
	want := rowsOf(t, db, `SELECT 'floor', sum(talk_hours)::float8 / sum(available_hours)::float8 FROM metrics.agent_time_daily s
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.OnFloor)["floor"]
	if code != 0 || !strings.Contains(out, strconv.FormatFloat(want, 'g', 6, 64)) || !strings.Contains(out, "sum(talk_hours) / sum(available_hours)") {
		t.Errorf("talk share over available hours, want %v: exit %d %s\n%s", want, code, errOut, out)
	}

	// The server wants a token; without one the command says how to get
	// one, and with a bad one that it was refused.
	t.Setenv("PLUMBLINE_TOKEN", "")
	if code, _, errOut := runCLI(t, "ask", "--url", url, "sales", call); code != 1 ||
		!strings.Contains(errOut, "needs an access token: pass --token or set $PLUMBLINE_TOKEN") || !strings.Contains(errOut, "plumbline token create") {
		t.Errorf("no token: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "ask", "--url", url, "--token", "plb_wrong", "sales", call); code != 1 || !strings.Contains(errOut, "refused the token") {
		t.Errorf("a wrong token: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "ask", "sales", call); code != 2 || !strings.Contains(errOut, "give one of --url") {
		t.Errorf("neither --url nor --db: exit %d: %s", code, errOut)
	}
}

// rowsOf runs an expected-figure query that returns one number per key.
func rowsOf(t *testing.T, db *pgtest.DB, query string, args ...any) map[string]float64 {
	t.Helper()
	rows, err := db.Conn(t).Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var k string
		var v float64
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", query, err))
	}
	return out
}
