package main

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// explained is explain's output, read back.
type explained struct {
	Resolved struct {
		Request struct {
			Who struct{ Kind, Key, Name string }
		}
		Period struct{ Start, End string }
	}
	SQL    string
	Params []any
}

var paramLine = regexp.MustCompile(`^  \$(\d+) = (?:'(.*)' \((date|text|timestamptz)\)|(\d+) \(int\))$`)

func readExplain(t *testing.T, out string) explained {
	t.Helper()
	var e explained
	head, rest, ok := strings.Cut(out, "\nSQL:\n")
	if !ok {
		t.Fatalf("no SQL in:\n%s", out)
	}
	_, resolved, _ := strings.Cut(head, "\n")
	if err := json.Unmarshal([]byte(resolved), &e.Resolved); err != nil {
		t.Fatalf("the resolved request is not JSON: %v\n%s", err, resolved)
	}
	sql, params, _ := strings.Cut(rest, "\n\nParameters:\n")
	e.SQL = sql
	for _, l := range strings.Split(params, "\n") {
		m := paramLine.FindStringSubmatch(l)
		if m == nil {
			break
		}
		if m[4] != "" {
			n, _ := strconv.Atoi(m[4])
			e.Params = append(e.Params, n)
		} else {
			e.Params = append(e.Params, strings.ReplaceAll(m[2], "''", "'"))
		}
	}
	return e
}

// explain prints the resolved request and the exact SQL with its bound
// parameters: run as printed, the statement gives the raw tables' figures.
func TestExplain(t *testing.T) {
	t.Chdir("../..")
	call := `{"who":{"team":"falcons"},"period":{"named":"last_week"},"metrics":["submitted_sales","close_rate"]}`
	code, out, errOut := runCLI(t, "explain", "--now", nowFlag, "sales", call)
	if code != 0 {
		t.Fatalf("explain without a database: exit %d: %s", code, errOut)
	}
	e := readExplain(t, out)
	if w := e.Resolved.Request.Who; w.Kind != "team" || w.Key != "falcons" || e.Resolved.Period.Start != "2026-11-09" || e.Resolved.Period.End != "2026-11-15" {
		t.Errorf("resolved %+v", e.Resolved)
	}
	if !strings.Contains(out, "taken as given") {
		t.Errorf("without a database, explain does not say the key was not checked:\n%s", out)
	}
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	hint := regexp.MustCompile(`first run: (SELECT set_config\('plumbline.default_reach', 'floor', false\));`).FindStringSubmatch(out)
	if hint == nil {
		t.Fatalf("explain does not say how to run the SQL by hand:\n%s", out)
	}
	if _, err := conn.Exec(context.Background(), hint[1]); err != nil {
		t.Fatal(err)
	}
	var sums [3]*float64
	var counts [6]*int64 // each metric's kept and left-out agent-days, then its left-out total
	if err := conn.QueryRow(context.Background(), e.SQL, e.Params...).Scan(&sums[0], &sums[1], &sums[2],
		&counts[0], &counts[1], &counts[2], &counts[3], &counts[4], &counts[5]); err != nil {
		t.Fatalf("the printed SQL does not run with the printed parameters: %v\n%s\n%v", err, e.SQL, e.Params)
	}
	var submitted, conversations float64
	if err := conn.QueryRow(context.Background(), `SELECT sum(submitted)::float8, sum(submitted + lost)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'falcons'`).Scan(&submitted, &conversations); err != nil {
		t.Fatal(err)
	}
	if sums[0] == nil || *sums[0] != submitted || *sums[1] != submitted || *sums[2] != conversations {
		t.Errorf("the printed SQL sums %v %v %v, want %v %v %v", sums[0], sums[1], sums[2], submitted, submitted, conversations)
	}

	// With a database, names resolve against the directory as on the
	// server, and --run adds PostgreSQL's plan.
	var key string
	if err := conn.QueryRow(context.Background(), `SELECT agent_key FROM analytics.dim_agent WHERE full_name = 'Maria Lopez'`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "explain", "--run", db.DSN, "--now", nowFlag, "hours",
		`{"who":{"agent":"maria lopez"},"period":{"named":"yesterday"},"group_by":"day"}`)
	if code != 0 {
		t.Fatalf("explain --run: exit %d: %s", code, errOut)
	}
	e = readExplain(t, out)
	if w := e.Resolved.Request.Who; w.Key != key || w.Name != "Maria Lopez" || e.Resolved.Period.Start != "2026-11-17" {
		t.Errorf("resolved %+v, want agent %s on 2026-11-17", e.Resolved, key)
	}
	if !slices.Contains(e.Params, any(key)) {
		t.Errorf("the agent key is not a bound parameter: %v", e.Params)
	}
	if !strings.Contains(out, "EXPLAIN (ANALYZE, BUFFERS):") || !strings.Contains(out, "Execution Time:") {
		t.Errorf("explain --run prints no plan:\n%s", out)
	}

	// Several matches: the candidates, and nothing to explain.
	code, _, errOut = runCLI(t, "explain", "--db", db.DSN, "--now", nowFlag, "sales", `{"who":{"agent":"Maria"},"period":{"named":"last_week"}}`)
	if code != 1 || !strings.Contains(errOut, "Maria Lopes") || !strings.Contains(errOut, "Maria Lopez") {
		t.Errorf("an ambiguous name: exit %d: %s", code, errOut)
	}
	// Without a database a name cannot be matched: the error says so, and
	// does not repeat it.
	code, _, errOut = runCLI(t, "explain", "sales", `{"who":{"agent":"Maria Lopez"},"period":{"named":"last_week"}}`)
	if code != 2 || !strings.Contains(errOut, "who.agent: without a database explain takes only a key") || strings.Contains(errOut, "Maria") {
		t.Errorf("a name without a database: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "explain", "--now", nowFlag, "sales", `{"who":{"floor":true},"period":{"named":"last_decade"}}`)
	if code != 1 || !strings.Contains(errOut, "refused (invalid_argument): period.named must be one of the choices") {
		t.Errorf("a bad period: exit %d: %s", code, errOut)
	}
	// Another catalogue compiles its own definitions; a broken one is
	// refused with its problems.
	code, out, errOut = runCLI(t, "explain", "--catalog", "testdata/diff/new", "--now", nowFlag, "hours",
		`{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["talk_share"]}`)
	if e := readExplain(t, out); code != 0 || !strings.Contains(e.SQL, `THEN (s."talk_hours") END AS p0`) ||
		!strings.Contains(e.SQL, `THEN (s."available_hours") END AS p1`) {
		t.Errorf("explain over the changed catalogue: exit %d %s\n%s", code, errOut, out)
	}
	if code, _, errOut := runCLI(t, "explain", "--catalog", "testdata/check/broken", "sales", "{}"); code != 1 || !strings.Contains(errOut, "load catalogue") {
		t.Errorf("explain over a broken catalogue: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "explain", "health", "{}"); code != 2 || !strings.Contains(errOut, "report tools (hours, quality, sales)") {
		t.Errorf("a tool that is not a report, without a database: exit %d: %s", code, errOut)
	}
}
