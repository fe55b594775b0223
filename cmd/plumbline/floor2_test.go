package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// The second floor: a company's own export (testdata/floor2), mapped by
// its own views, catalogue and grant files.
const floor2 = "../../testdata/floor2"

// floor2Now is the moment the second floor's export was taken: a Tuesday
// morning in New York, after both nightly runs.
var floor2Now = time.Date(2026, 3, 10, 9, 30, 0, 0, mustLoad("America/New_York"))

func mustLoad(zone string) *time.Location {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		panic(err)
	}
	return loc
}

// floor2Args are setup's, check's and guard's flags for the second floor.
func floor2Args(r grants.Roles) []string {
	return append([]string{"--grants", floor2 + "/grants", "--analyst-grants", floor2 + "/analyst"}, roleArgs(r)...)
}

// A company sets plumbline up on its own database, which holds its
// warehouse and nothing of plumbline's. With the demo's defaults setup
// refuses before it changes anything and names the flags to pass; with the
// company's grant files, catalogue and SQL it applies plumbline's
// migrations and the company's views, creates the roles and grants, and
// the login passes the startup guard and check --db; run again, it applies
// nothing and changes no privilege. The engine then answers from the
// company's views what plain SQL over its raw tables says.
func TestSecondFloorFromEmpty(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewEmptyDB(t)
	r := grants.Roles{Reader: "f2_reader_" + db.Name, Logger: "f2_logger_" + db.Name, Auth: "f2_auth_" + db.Name, App: "f2_app_" + db.Name,
		Analyst: "f2_analyst_" + db.Name, Agent: "f2_agent_" + db.Name}
	admin := db.Conn(t)
	names := []string{r.App, r.Agent, r.Reader, r.Logger, r.Auth, r.Analyst}
	t.Cleanup(func() {
		for _, role := range names {
			admin.Exec(ctx, fmt.Sprintf("DROP OWNED BY %s; DROP ROLE %s", role, role))
		}
	})
	db.LoadExport(t, floor2)
	logins := []string{"--app-login", r.App, "--agent-login", r.Agent}

	before := privileges(t, admin)
	code, out, errOut := runCLI(t, append(append([]string{"setup", "--db", db.DSN}, logins...), roleArgs(r)...)...)
	for _, want := range []string{"setup changed nothing", "analytics.dim_agent (named by grant file analytics.dim_agent.sql; analyst grant file analytics.dim_agent.sql; the catalogue at ",
		"Without --grants, --analyst-grants and --catalog, setup provisions the demo floor's relations", "--sql DIR"} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("setup with the demo's defaults: exit %d, want 1 and %q\n%s%s", code, want, out, errOut)
		}
	}
	var made int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = ANY($1)", names).Scan(&made); err != nil {
		t.Fatal(err)
	}
	if after := privileges(t, admin); after != before || made != 0 {
		t.Errorf("the refused setup changed the database (%d roles made):\nbefore:\n%s\nafter:\n%s", made, before, after)
	}

	setup := append(append([]string{"setup", "--db", db.DSN, "--catalog", floor2 + "/catalog", "--sql", floor2 + "/sql"}, logins...), floor2Args(r)...)
	code, out, errOut = runCLI(t, setup...)
	migrations, err := filepath.Glob("../../sql/migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	applied := fmt.Sprintf("Applied %d of plumbline's migrations and 1 of your SQL files.", len(migrations))
	if code != 0 || !strings.Contains(out, applied) || !strings.Contains(out, "The reader may read 8 relations") {
		t.Fatalf("setup with the floor's files: exit %d, want %q\n%s%s", code, applied, out, errOut)
	}
	if readme, err := os.ReadFile("../../README.md"); err != nil || !strings.Contains(string(readme), applied) {
		t.Errorf("the README does not say what setup says on an empty database: %q", applied)
	}
	first := privileges(t, admin)
	code, out, errOut = runCLI(t, setup...)
	if code != 0 || !strings.Contains(out, "Applied 0 of plumbline's migrations and 0 of your SQL files.") {
		t.Errorf("setup run again: exit %d\n%s%s", code, out, errOut)
	}
	if again := privileges(t, admin); again != first {
		t.Errorf("setup run again changed privileges:\nbefore:\n%s\nafter:\n%s", first, again)
	}

	if _, err := admin.Exec(ctx, "ALTER ROLE "+r.App+" PASSWORD 'pgtest-login'; ALTER ROLE "+r.Agent+" PASSWORD 'pgtest-login'"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, append([]string{"guard", "--db", db.LoginDSN(r.App), "--analyst-db", db.LoginDSN(r.Agent), "--catalog", floor2 + "/catalog"}, floor2Args(r)...)...)
	if code != 0 || strings.Contains(out, "missing") || strings.Count(out, "nothing extra") != 2 {
		t.Errorf("the login setup made does not pass the guard: exit %d\n%s", code, out)
	}
	code, out, errOut = runCLI(t, "check", "--db", db.LoginDSN(r.App), "--grants", floor2+"/grants", "--analyst-grants", floor2+"/analyst",
		"--reader-role", r.Reader, "--analyst-role", r.Analyst, floor2+"/catalog")
	if code != 0 || !strings.Contains(out, "database: ok") {
		t.Errorf("check --db on the second floor: exit %d\n%s%s", code, out, errOut)
	}
	// HR's ranges overlapping: an annotation at the catalogue's line.
	if _, err := admin.Exec(ctx, "UPDATE hr.team_assignments SET valid_to = '2026-02-26' WHERE valid_to = '2026-02-24'"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "check", "--format", "github", "--db", db.LoginDSN(r.App), "--grants", floor2+"/grants", "--analyst-grants", floor2+"/analyst",
		"--reader-role", r.Reader, "--analyst-role", r.Analyst, floor2+"/catalog")
	if want := "::error file=" + floor2 + "/catalog/floor.yaml,line=20,col=3,title=plumbline check::reporting.team_history has 1 range(s)"; code != 1 || !strings.Contains(out, want) {
		t.Errorf("check --db with overlapping team ranges: exit %d, want 1 and %q\n%s", code, want, out)
	}
	if _, err := admin.Exec(ctx, "UPDATE hr.team_assignments SET valid_to = '2026-02-24' WHERE valid_to = '2026-02-26'"); err != nil {
		t.Fatal(err)
	}

	cat, err := catalog.LoadDir(floor2 + "/catalog")
	if err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(ctx, db.LoginDSN(r.App), cat, &pgstore.Options{Role: r.Reader})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	e := reports.New(cat, st, &reports.Options{Now: func() time.Time { return floor2Now }, Logger: slog.New(slog.DiscardHandler)})
	t.Run("hours not in yet", func(t *testing.T) {
		body := call(t, e, "hours", `{"who":{"floor":true},"period":{"named":"yesterday"},"metrics":["logged_hours"]}`)
		var want float64
		err := admin.QueryRow(ctx, `SELECT count(DISTINCT employee_id)::float8 FROM telephony.shifts
			WHERE clock_out IS NULL AND (clock_in AT TIME ZONE 'America/New_York')::date = '2026-03-09'`).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		m := body["metrics"].(map[string]any)["logged_hours"].(map[string]any)
		if want == 0 || m["left_out"] != want || m["partial"] != true || body["partial"] != true {
			t.Errorf("yesterday's hours leave out %v agent-days (partial %v), want %v:\n%v", m["left_out"], m["partial"], want, body)
		}
	})
	t.Run("a goal revised mid-week", func(t *testing.T) {
		body := call(t, e, "sales", `{"who":{"team":"Atlantic"},"period":{"named":"last_week"},"metrics":["submitted_sales"],"compare_to":"target"}`)
		var want float64
		err := admin.QueryRow(ctx, `SELECT goal::float8 FROM crm.team_goals WHERE team_code = 'ATL' AND goal_kind = 'APPS' AND period = 'W'
			AND period_start = '2026-03-01' ORDER BY set_at DESC LIMIT 1`).Scan(&want)
		if err != nil {
			t.Fatal(err)
		}
		row := body["rows"].([]any)[0].([]any)
		if i := slices.Index(toStrings(body["columns"]), "submitted_sales_target"); i < 0 || row[i] != want {
			t.Errorf("Atlantic's target last week, want %v:\n%v", want, body)
		}
	})
	for _, tc := range floor2Figures {
		t.Run(tc.name, func(t *testing.T) {
			got := answerRows(t, e, tc.tool, tc.args, tc.columns)
			want := expectedRows(t, admin, tc.want)
			if diff := differ(got, want); diff != "" {
				t.Error(diff)
			}
			if tc.naive != "" && differ(got, expectedRows(t, admin, tc.naive)) == "" {
				t.Errorf("a naive reading of the raw tables gets the same figures; the case shows no trap")
			}
		})
	}
}

// Raw SQL over the company's own tables, never its views: the team of an
// agent's day from HR's ranges, and whether that team counted as sales.
const (
	rawTeam = `(SELECT a.team_code FROM hr.team_assignments a
	  WHERE a.employee_id = x.employee_id AND x.day BETWEEN a.valid_from AND coalesce(a.valid_to, 'infinity'))`
	rawOnFloor = `(SELECT s.counts_as_sales FROM hr.team_sales_status s
	  WHERE s.team_code = ` + rawTeam + ` AND x.day BETWEEN s.valid_from AND coalesce(s.valid_to, 'infinity'))`
	// rawSales is one row per application submitted and per conversation
	// lost, with the New York day.
	rawSales = `(SELECT employee_id, (submitted_at AT TIME ZONE 'America/New_York')::date AS day, 1 AS submitted, 0 AS lost
	  FROM crm.applications
	  UNION ALL SELECT employee_id, (started_at AT TIME ZONE 'America/New_York')::date, 0, 1 FROM crm.calls WHERE disposition = 'no_sale') x`
	rawShifts = `(SELECT employee_id, (clock_in AT TIME ZONE 'America/New_York')::date AS day,
	  extract(epoch FROM clock_out - clock_in) / 3600 AS logged, talk_seconds / 3600.0 AS talk FROM telephony.shifts) x`
)

// floor2Figures are the second floor's checked figures: each a call and the
// plain SQL that must give the same rows, keyed by the first column.
var floor2Figures = []struct {
	name, tool, args string
	columns          []string
	want             string
	naive            string // what a naive reading gets, which must differ
}{{
	// Six weeks across the floor's changes: Mountain leaves it on 1
	// February, Gulf joins on 16 February, Omar Haddad moves from Pacific to
	// Atlantic on Wednesday 25 February, Tom Birch leaves on 13 February.
	name: "sales by team", tool: "sales",
	args:    `{"who":{"floor":true},"period":{"start":"2026-01-25","end":"2026-03-07"},"group_by":"team","metrics":["submitted_sales","close_rate"]}`,
	columns: []string{"submitted_sales", "close_rate"},
	want: `SELECT ` + rawTeam + `, sum(submitted)::float8, sum(submitted)::float8 / sum(submitted + lost) FROM ` + rawSales + `
	  WHERE day BETWEEN '2026-01-25' AND '2026-03-07' AND ` + rawOnFloor + ` GROUP BY 1`,
}, {
	// The week of the shift that spans midnight in New York (Friday 20
	// February), and of Gulf's first days on the floor. Hours are stated to
	// the hundredth.
	name: "hours by team", tool: "hours",
	args:    `{"who":{"floor":true},"period":{"week":"2026-02-18"},"group_by":"team","metrics":["logged_hours","talk_hours"]}`,
	columns: []string{"logged_hours", "talk_hours"},
	want: `SELECT ` + rawTeam + `, round(sum(logged), 2)::float8, round(sum(talk), 2)::float8 FROM ` + rawShifts + `
	  WHERE day BETWEEN '2026-02-15' AND '2026-02-21' AND ` + rawOnFloor + ` GROUP BY 1`,
}, {
	// Atlantic's week by day: Omar Haddad counts for it from Wednesday.
	name: "a team's week", tool: "sales",
	args:    `{"who":{"team":"Atlantic"},"period":{"week":"2026-02-25"},"group_by":"day","metrics":["submitted_sales"]}`,
	columns: []string{"submitted_sales"},
	want: `SELECT to_char(d, 'YYYY-MM-DD'), coalesce((SELECT sum(submitted)::float8 FROM ` + rawSales + `
	  WHERE x.day = d AND ` + rawTeam + ` = 'ATL'), 0) FROM generate_series('2026-02-22'::date, '2026-02-28', '1 day') d`,
	// Each agent on their team of today, every day a UTC date.
	naive: `SELECT to_char(d, 'YYYY-MM-DD'), coalesce((SELECT count(*)::float8 FROM crm.applications p JOIN hr.team_assignments a USING (employee_id)
	  WHERE (p.submitted_at AT TIME ZONE 'UTC')::date = d AND a.valid_to IS NULL AND a.team_code = 'ATL'), 0)
	  FROM generate_series('2026-02-22'::date, '2026-02-28', '1 day') d`,
}, {
	// The floor day by day as Mountain leaves and Gulf joins it.
	name: "the floor", tool: "sales",
	args:    `{"who":{"floor":true},"period":{"start":"2026-01-29","end":"2026-02-18"},"group_by":"day","metrics":["submitted_sales"]}`,
	columns: []string{"submitted_sales"},
	want: `SELECT to_char(d, 'YYYY-MM-DD'), coalesce((SELECT sum(submitted)::float8 FROM ` + rawSales + `
	  WHERE x.day = d AND ` + rawOnFloor + `), 0) FROM generate_series('2026-01-29'::date, '2026-02-18', '1 day') d`,
	// The floor as it is today, every day.
	naive: `SELECT to_char(d, 'YYYY-MM-DD'), coalesce((SELECT sum(submitted)::float8 FROM ` + rawSales + `
	  WHERE x.day = d AND ` + rawTeam + ` IN (SELECT team_code FROM hr.team_sales_status WHERE valid_to IS NULL AND counts_as_sales)), 0)
	  FROM generate_series('2026-01-29'::date, '2026-02-18', '1 day') d`,
}}

// differ says how two sets of rows by key differ, or "" if they do not.
func differ(got, want map[string][]float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for key, w := range want {
		g, ok := got[key]
		for i := range w {
			if !ok || math.Abs(g[i]-w[i]) > 1e-6 {
				return fmt.Sprintf("%s: %v, want %v", key, g, w)
			}
		}
	}
	return ""
}

// call calls a tool and returns its answer's JSON.
func call(t *testing.T, e *reports.Engine, tool, args string) map[string]any {
	t.Helper()
	body := callJSON(t, e, tool, args)
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func callJSON(t *testing.T, e *reports.Engine, tool, args string) []byte {
	t.Helper()
	a := e.Call(context.Background(), ask.Caller{Person: "floor2-test"}, tool, json.RawMessage(args))
	body, err := json.Marshal(a.Body)
	if err != nil || a.Refusal != nil {
		t.Fatalf("%s %s: %v %s", tool, args, err, body)
	}
	return body
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// answerRows calls a tool and returns its rows by key, each the named
// columns' figures.
func answerRows(t *testing.T, e *reports.Engine, tool, args string, columns []string) map[string][]float64 {
	t.Helper()
	return answerBodyRows(t, tool, callJSON(t, e, tool, args), columns)
}

// answerBodyRows returns an answer's rows by key, each the named columns' figures.
func answerBodyRows(t *testing.T, tool string, body []byte, columns []string) map[string][]float64 {
	t.Helper()
	var ans struct {
		Columns []string
		Rows    [][]any
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, row := range ans.Rows {
		var figures []float64
		for _, c := range columns {
			i := slices.Index(ans.Columns, c)
			if i < 0 {
				t.Fatalf("%s: no column %s in %s", tool, c, body)
			}
			v, ok := row[i].(float64)
			if !ok {
				t.Fatalf("%s: no figure %s in %s", tool, c, body)
			}
			figures = append(figures, v)
		}
		out[fmt.Sprint(row[0])] = figures
	}
	return out
}

// expectedRows runs plain SQL whose rows are a key and figures.
func expectedRows(t *testing.T, conn *pgx.Conn, stmt string) map[string][]float64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), stmt)
	if err != nil {
		t.Fatalf("%v\n%s", err, stmt)
	}
	defer rows.Close()
	out := map[string][]float64{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		var figures []float64
		for _, v := range vals[1:] {
			f, ok := v.(float64)
			if !ok {
				t.Fatalf("expected figures are float8, got %T in\n%s", v, stmt)
			}
			figures = append(figures, f)
		}
		out[fmt.Sprint(vals[0])] = figures
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// privileges reads what setup changes in a database: its schemas, and every
// relation's, column's, function's and the database's privileges.
func privileges(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var s string
	err := conn.QueryRow(context.Background(), `SELECT string_agg(x, E'\n' ORDER BY x) FROM (
		SELECT 'schema ' || nspname || ' ' || coalesce(nspacl::text, '') FROM pg_namespace
		UNION ALL SELECT 'relation ' || c.oid::regclass::text || ' ' || coalesce(c.relacl::text, '') FROM pg_class c
		  WHERE c.relkind IN ('r', 'v', 'm', 'p', 'S', 'f')
		UNION ALL SELECT 'column ' || attrelid::regclass::text || '.' || attname || ' ' || attacl::text FROM pg_attribute WHERE attacl IS NOT NULL
		UNION ALL SELECT 'function ' || oid::regprocedure::text || ' ' || proacl::text FROM pg_proc WHERE proacl IS NOT NULL
		UNION ALL SELECT 'database ' || coalesce(datacl::text, '') FROM pg_database WHERE datname = current_database()
	) s(x)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
