package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"plumbline/internal/pgtest"
	"slices"
	"strings"
	"testing"
	"time"
)

// Expected board figures count entries by their local day in New York.
const boardDay = `(entered_at AT TIME ZONE 'America/New_York')::date`

func TestANameMatchingTwoAgentsReturnsCandidates(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for _, tool := range []string{"sales", "hours", "team_weeks", "roster"} {
		a, isError := call(t, cs, tool, `{"who":{"agent":"Maria"},"period":{"named":"last_week"}}`)
		if tool == "team_weeks" || tool == "roster" {
			a, isError = call(t, cs, tool, `{"who":{"agent":"Maria"}}`)
		}
		if isError {
			t.Fatalf("%s: %v", tool, a)
		}
		if _, ok := a["rows"]; ok {
			t.Errorf("%s returned figures for an ambiguous name", tool)
		}
		if _, ok := a["sections"]; ok {
			t.Errorf("%s returned sections for an ambiguous name", tool)
		}
		var keys []string
		for _, c := range a["candidates"].([]any) {
			keys = append(keys, c.(map[string]any)["agent_key"].(string))
		}
		want := f.sqlKeys(t, `SELECT agent_key FROM analytics.dim_agent WHERE full_name LIKE 'Maria %' ORDER BY 1`)
		if !slices.Equal(keys, want) || len(want) != 2 {
			t.Errorf("%s: candidates %v, want %v", tool, keys, want)
		}
	}
	people, _ := call(t, cs, "find_people", `{"query":"maria lop"}`)
	if n := len(people["people"].([]any)); n != 2 {
		t.Errorf("find_people found %d for 'maria lop'", n)
	}
	one, _ := call(t, cs, "find_people", `{"query":"JOSE PENA"}`)
	if p := one["people"].([]any); len(p) != 1 || p[0].(map[string]any)["name"] != "José Peña" {
		t.Errorf("find_people for an accented name: %v", p)
	}
}

// A name or an email typed wrong, matching no one, returns the people whose
// names are close to it, closest first, and no figures, never the typed
// text; calling again with a candidate's key gives the figures plain SQL
// over the raw tables gives. An exact name still wins outright.
func TestANameTypedWrongReturnsTheCloseNames(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	keyOf := func(name string) string {
		t.Helper()
		keys := f.sqlKeys(t, `SELECT agent_key FROM analytics.dim_agent WHERE full_name = $1`, name)
		if len(keys) != 1 {
			t.Fatalf("the demo floor has %d agents named %s", len(keys), name)
		}
		return keys[0]
	}
	becker, lopez, lopes := keyOf("Tom Becker"), keyOf("Maria Lopez"), keyOf("Maria Lopes")
	email := f.sqlKeys(t, `SELECT email FROM analytics.dim_agent WHERE agent_key = $1`, becker)[0]
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"Tom Beker", []string{becker}},                                  // a missing letter
		{"tom bekcer", []string{becker}},                                 // swapped letters
		{"Mraia Lopez", []string{lopez, lopes}},                          // one edit from Lopez, two from Lopes
		{strings.Replace(email, "becker", "beker", 1), []string{becker}}, // an email
	} {
		for _, tool := range []string{"sales", "roster"} {
			args := fmt.Sprintf(`{"who":{"agent":%q},"period":{"named":"last_week"}}`, tc.typed)
			if tool == "roster" {
				args = fmt.Sprintf(`{"who":{"agent":%q}}`, tc.typed)
			}
			a, isError := call(t, cs, tool, args)
			if isError || a["rows"] != nil {
				t.Fatalf("%s %s: want candidates and no figures: %v", tool, tc.typed, a)
			}
			var keys []string
			for _, c := range a["candidates"].([]any) {
				keys = append(keys, c.(map[string]any)["agent_key"].(string))
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("%s %q: candidates %v, want %v", tool, tc.typed, keys, tc.want)
			}
			if b, _ := json.Marshal(a); strings.Contains(strings.ToLower(string(b)), strings.ToLower(tc.typed)) {
				t.Errorf("%s %q: the answer echoes the typed text: %s", tool, tc.typed, b)
			}
		}
	}
	falcons := f.sqlKeys(t, `SELECT team_key FROM analytics.dim_team WHERE team_name = 'Falcons'`)
	a, _ := call(t, cs, "sales", `{"who":{"team":"Falcns"},"period":{"named":"last_week"}}`)
	if cands, _ := a["candidates"].([]any); a["rows"] != nil || len(cands) != 1 || len(falcons) != 1 || cands[0].(map[string]any)["team_key"] != falcons[0] {
		t.Errorf("a team name typed wrong: %v, want the candidate %v", a, falcons)
	}
	people, _ := call(t, cs, "find_people", `{"query":"Tom Beker"}`)
	if p := people["people"].([]any); len(p) != 1 || p[0].(map[string]any)["agent_key"] != becker {
		t.Errorf("find_people for a name typed wrong: %v", p)
	}

	// The candidate's figures, asked for by key, are plain SQL's.
	right := f.sqlFloats(t, `SELECT agent_key, sum(submitted)::float8 FROM metrics.agent_sales_daily
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND agent_key = $1 GROUP BY 1`, becker)
	a = report(t, cs, "sales", fmt.Sprintf(`{"who":{"agent":%q},"period":{"named":"last_week"},"metrics":["submitted_sales"]}`, becker))
	if got, _ := a.total(t, "submitted_sales").(float64); !near(got, right[becker]) {
		t.Errorf("Tom Becker's submitted sales last week: %v, want %v", got, right[becker])
	}
	// An exact name answers with figures, however close others are.
	if a := report(t, cs, "sales", `{"who":{"agent":"Maria Lopez"},"period":{"named":"last_week"}}`); a["request"].(map[string]any)["who"].(map[string]any)["key"] != lopez {
		t.Errorf("an exact name did not win: %v", a["request"])
	}
}

// Today is not over: today's sales come from the live board, flagged
// partial, and match the board's own count.
func TestTodayIsPartialAndLive(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"today"}}`)
	if a["partial"] != true || !slices.Contains(a["partial_metrics"].([]any), "board_sales") {
		t.Errorf("today's sales are not flagged partial: partial=%v %v", a["partial"], a["partial_metrics"])
	}
	m := a["metrics"].(map[string]any)["board_sales"].(map[string]any)
	if m["sales_basis"] != "board" {
		t.Errorf("today's sales basis = %v", m["sales_basis"])
	}
	want := f.sqlFloats(t, `SELECT 'total', sum(sales) FROM live.sales_board b
		WHERE `+boardDay+` = $1::date AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f
		  WHERE f.team_key = (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = b.agent_key
		    AND h.effective_from <= $1::date ORDER BY h.effective_from DESC LIMIT 1)
		  AND f.effective_from <= $1::date ORDER BY f.effective_from DESC LIMIT 1)`, f.db.Now)
	if got := a.total(t, "board_sales"); got != want["total"] || want["total"] == 0 {
		t.Errorf("today's board sales %v, want %v", got, want["total"])
	}
	if !strings.Contains(strings.Join(notes(a), " "), "Today is not over") {
		t.Errorf("no note says today is not over: %v", a["notes"])
	}
	// Asked for by name, submitted sales for today are null: the nightly
	// build has not run; never zero.
	b := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"today"},"metrics":["submitted_sales"]}`)
	if b.total(t, "submitted_sales") != nil || b["partial"] != true {
		t.Errorf("submitted sales today = %v (partial %v), want null and partial", b.total(t, "submitted_sales"), b["partial"])
	}
}

func TestComparisonsOverUnfinishedDaysAreRefused(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for _, tc := range []struct{ tool, args string }{
		{"league", `{"period":{"named":"this_week"}}`},
		{"league", `{"period":{"named":"today"}}`},
		{"sales", `{"who":{"floor":true},"period":{"named":"this_week"},"group_by":"team","sort":{"metric":"close_rate"}}`},
		{"hours", `{"who":{"floor":true},"period":{"named":"yesterday"},"group_by":"agent","top_n":5,"sort":{"metric":"logged_hours"}}`},
		{"league", `{"period":{"named":"last_week"},"metrics":["approved_sales"]}`},
	} {
		a, isError := call(t, cs, tc.tool, tc.args)
		if !isError {
			t.Errorf("%s %s was answered", tc.tool, tc.args)
			continue
		}
		e := a["error"].(map[string]any)
		if e["code"] != "not_comparable" || e["argument"] != "period" || !strings.Contains(e["rule"].(string), "on or before") {
			t.Errorf("%s %s: refusal %v", tc.tool, tc.args, e)
		}
	}
	a, _ := call(t, cs, "league", `{"period":{"named":"this_week"}}`)
	if !slices.Contains(a["error"].(map[string]any)["choices"].([]any), "last_week") {
		t.Errorf("the refusal does not suggest last_week: %v", a["error"])
	}
}

// The league ranks the floor's teams over whole days, with the floor's
// figure; each team counts only its days on the floor.
func TestLeague(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a, isError := call(t, cs, "league", `{"period":{"named":"last_28_days"},"metrics":["close_rate","submitted_sales"]}`)
	if isError {
		t.Fatal(a)
	}
	s := a["sections"].([]any)[0].(map[string]any)
	want := f.sqlFloats(t, `SELECT team, sum(submitted)::float8 / sum(submitted + lost) FROM
		(SELECT `+pgtest.TeamOfDay+` AS team, submitted, lost FROM metrics.agent_sales_daily s
		 WHERE day BETWEEN $1::date - 28 AND $1::date - 1 AND `+pgtest.OnFloor+`) x GROUP BY team`, f.db.Now)
	rows := s["rows"].([]any)
	if len(rows) != len(want) {
		t.Fatalf("league has %d teams, want %d", len(rows), len(want))
	}
	last := 2.0
	for i, r := range rows {
		row := r.([]any)
		rate := row[3].(float64)
		if row[0] != float64(i+1) || rate > last || !near(rate, want[row[1].(string)]) {
			t.Errorf("row %v: rank or close rate wrong (want %v, ordered descending)", row, want[row[1].(string)])
		}
		last = rate
	}
	floor := f.sqlFloats(t, `SELECT 'floor', sum(submitted)::float8 / sum(submitted + lost) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date - 28 AND $1::date - 1 AND `+pgtest.OnFloor, f.db.Now)
	total := s["total"].([]any)
	if total[1] != "total" || !near(total[3].(float64), floor["floor"]) {
		t.Errorf("the floor's figure %v, want %v", total, floor["floor"])
	}
}

// compare_counts sets the three counting bases side by side, each labelled,
// and each matches its own raw table.
func TestCompareCounts(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"falcons"},"period":{"named":"last_week"},"compare_counts":true}`)
	metrics := a["metrics"].(map[string]any)
	for id, basis := range map[string]string{"submitted_sales": "submitted", "board_sales": "board", "approved_sales": "approved"} {
		m, ok := metrics[id].(map[string]any)
		if !ok || m["sales_basis"] != basis || m["label"] == "" {
			t.Errorf("%s is not labelled with basis %s: %v", id, basis, m)
		}
	}
	start := a["period"].(map[string]any)["start"]
	team := `(SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = s.agent_key
		AND h.effective_from <= ` + boardDay + ` ORDER BY h.effective_from DESC LIMIT 1)`
	want := f.sqlFloats(t, `SELECT 'submitted_sales', sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date AND $1::date + 6 AND `+pgtest.TeamOfDay+` = 'falcons'
		UNION ALL SELECT 'approved_sales', sum(approved) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date AND $1::date + 6 AND `+pgtest.TeamOfDay+` = 'falcons'
		UNION ALL SELECT 'board_sales', sum(sales) FROM live.sales_board s
		WHERE `+boardDay+` BETWEEN $1::date AND $1::date + 6 AND `+team+` = 'falcons'`, start)
	for id, w := range want {
		if got := a.total(t, id); got != w {
			t.Errorf("%s = %v, want %v", id, got, w)
		}
	}
	if want["board_sales"] == want["submitted_sales"] {
		t.Log("the board and the nightly count agree this week; the bases still stand apart")
	}
	if !slices.Contains(a["partial_metrics"].([]any), "approved_sales") || slices.Contains(a["partial_metrics"].([]any), "submitted_sales") {
		t.Errorf("last week's approvals are not final but submissions are: partial_metrics %v", a["partial_metrics"])
	}
	if !strings.Contains(strings.Join(notes(a), " "), "never add or compare figures across bases") {
		t.Error("no note warns against mixing bases")
	}
}

// A week that holds a clock change has seven days, each counted in New York.
func TestBoardByDayAcrossClockChanges(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for _, week := range []string{"2026-11-01", "2026-03-08"} {
		a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"floor":true},"period":{"week":%q},"group_by":"day","metrics":["board_sales"]}`, week))
		days := a.column(t, "board_sales")
		if len(days) != 7 {
			t.Fatalf("the week of %s has %d days", week, len(days))
		}
		want := f.sqlFloats(t, `SELECT to_char(`+boardDay+`, 'YYYY-MM-DD'), sum(sales) FROM live.sales_board b
			WHERE `+boardDay+` BETWEEN $1::date - 6 AND $1::date
			AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f
			  WHERE f.team_key = (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = b.agent_key
			    AND h.effective_from <= `+boardDay+` ORDER BY h.effective_from DESC LIMIT 1)
			  AND f.effective_from <= `+boardDay+` ORDER BY f.effective_from DESC LIMIT 1) GROUP BY 1`, week)
		for day, got := range days {
			if w, ok := want[day]; (ok && got != w) || (!ok && got != nil) {
				t.Errorf("board sales on %s = %v, want %v", day, got, want[day])
			}
		}
		if _, ok := days[week]; !ok {
			t.Errorf("the week of %s lacks its Sunday", week)
		}
	}
}

func TestRoster(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var team string
	var joined time.Time
	f.sql.QueryRow(context.Background(), `SELECT n.team_key, n.effective_from FROM analytics.team_floor_history n
		JOIN analytics.team_floor_history o ON o.team_key = n.team_key AND o.effective_from < n.effective_from
		WHERE n.counts_as_sales AND NOT o.counts_as_sales`).Scan(&team, &joined)
	teamsOnFloor := func(day time.Time) []string {
		a, _ := call(t, cs, "roster", fmt.Sprintf(`{"who":{"floor":true},"day":%q}`, dateOf(day)))
		var teams []string
		for _, x := range a["teams"].([]any) {
			teams = append(teams, x.(map[string]any)["team"].(string))
		}
		return teams
	}
	if slices.Contains(teamsOnFloor(joined.AddDate(0, 0, -1)), team) || !slices.Contains(teamsOnFloor(joined), team) {
		t.Errorf("%s should join the floor on %s", team, dateOf(joined))
	}
	a, _ := call(t, cs, "roster", fmt.Sprintf(`{"who":{"team":%q},"day":%q}`, team, dateOf(joined)))
	want := f.sqlKeys(t, `SELECT a.agent_key FROM analytics.dim_agent a WHERE a.hired_on <= $2 AND (a.left_on IS NULL OR a.left_on >= $2)
		AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.effective_from <= $2
		     ORDER BY h.effective_from DESC LIMIT 1) = $1 ORDER BY 1`, team, joined)
	var got []string
	for _, r := range a["rows"].([]any) {
		got = append(got, r.([]any)[0].(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s on %s: %v, want %v", team, dateOf(joined), got, want)
	}
	decision := a["teams"].([]any)[0].(map[string]any)
	if decision["on_floor"] != true || decision["decided_by"] == "" || decision["reason"] == "" || decision["decided_from"] != dateOf(joined) {
		t.Errorf("the floor decision is not shown: %v", decision)
	}
	history, _ := call(t, cs, "roster", `{"who":{"agent":"Tom Becker"}}`)
	wantMoves := f.sqlKeys(t, `SELECT team_key FROM analytics.agent_team_history h JOIN analytics.dim_agent a USING (agent_key)
		WHERE a.full_name = 'Tom Becker' ORDER BY effective_from`)
	var moves []string
	for _, r := range history["rows"].([]any) {
		moves = append(moves, r.([]any)[0].(string))
	}
	if !slices.Equal(moves, wantMoves) || len(moves) != 2 {
		t.Errorf("Tom Becker's teams %v, want %v", moves, wantMoves)
	}
}

func TestFreshness(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a, isError := call(t, cs, "freshness", `{}`)
	if isError {
		t.Fatal(a)
	}
	want := f.sqlKeys(t, `SELECT 'metrics.agent_time_daily=' || max(day) FROM metrics.agent_time_daily
		UNION ALL SELECT 'metrics.agent_sales_daily=' || max(day) FROM metrics.agent_sales_daily
		UNION ALL SELECT 'metrics.agent_quality_daily=' || max(day) FROM metrics.agent_quality_daily
		UNION ALL SELECT 'live.sales_board=' || max(`+boardDay+`) FROM live.sales_board`)
	sources := a["sources"].(map[string]any)
	for _, w := range want {
		rel, day, _ := strings.Cut(w, "=")
		s := sources[rel].(map[string]any)
		if got := s["data_through"].(map[string]any)["runs_to"]; got != day {
			t.Errorf("%s runs to %v, want %s", rel, got, day)
		}
		if s["today"] == "" {
			t.Errorf("%s has no status for today", rel)
		}
	}
	if got := sources["metrics.agent_time_daily"].(map[string]any)["data_through"].(map[string]any)["complete_through"]; got != "2026-11-16" {
		t.Errorf("hours are final through %v, want 2026-11-16 (they settle two days later)", got)
	}
	if a["today"] != "2026-11-18" {
		t.Errorf("today = %v", a["today"])
	}
}

// team_day answers "how did my team do yesterday" in one call: a section
// per report, a row per agent, the team's total from the same parts.
func TestTeamDay(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a, isError := call(t, cs, "team_day", `{"who":{"team":"Ospreys"}}`)
	if isError {
		t.Fatal(a)
	}
	sections := map[string]map[string]any{}
	for _, s := range a["sections"].([]any) {
		sections[s.(map[string]any)["id"].(string)] = s.(map[string]any)
	}
	if len(sections) != 3 || a["period"].(map[string]any)["start"] != "2026-11-17" {
		t.Fatalf("sections %v for period %v", len(sections), a["period"])
	}
	sales := sections["sales"]
	want := f.sqlFloats(t, `SELECT agent_key, submitted FROM metrics.agent_sales_daily s WHERE day = '2026-11-17' AND `+pgtest.TeamOfDay+` = 'ospreys'`)
	rows := sales["rows"].([]any)
	if len(rows) != len(want) {
		t.Fatalf("%d agent rows, want %d", len(rows), len(want))
	}
	sum := 0.0
	for _, r := range rows {
		row := r.([]any)
		if row[2] != want[row[0].(string)] {
			t.Errorf("agent %v submitted %v, want %v", row[0], row[2], want[row[0].(string)])
		}
		sum += want[row[0].(string)]
	}
	if total := sales["total"].([]any); total[0] != "total" || total[2] != sum {
		t.Errorf("team total %v, want %v", total, sum)
	}
	// Each definition is stated once, at the top.
	if _, ok := sales["metrics"]; ok {
		t.Error("a section repeats the definitions")
	}
	if def := a["metrics"].(map[string]any)["close_rate"].(map[string]any)["definition"]; def == "" {
		t.Error("close_rate has no definition")
	}
	if _, isError := call(t, cs, "team_day", `{"who":{"agent":"a001"}}`); !isError {
		t.Error("team_day answered for one agent")
	}
}

func TestTeamWeeks(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a, isError := call(t, cs, "team_weeks", `{"who":{"team":"hawks"},"weeks":3}`)
	if isError {
		t.Fatal(a)
	}
	p := a["period"].(map[string]any)
	if p["start"] != "2026-10-26" || p["end"] != "2026-11-15" || a["partial"] != false {
		t.Errorf("three whole weeks = %v, partial %v", p, a["partial"])
	}
	var hours map[string]any
	for _, s := range a["sections"].([]any) {
		if s.(map[string]any)["id"] == "hours" {
			hours = s.(map[string]any)
		}
	}
	want := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(logged_hours)::float8 FROM metrics.agent_time_daily s
		WHERE day BETWEEN '2026-10-26' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'hawks' GROUP BY 1`)
	rows := hours["rows"].([]any)
	if len(rows) != 3 {
		t.Fatalf("%d week rows", len(rows))
	}
	logged := slices.Index(hours["columns"].([]any), any("logged_hours"))
	for _, r := range rows {
		row := r.([]any)
		if row[1] != 7.0 {
			t.Errorf("week %v holds %v days, want 7", row[0], row[1])
		}
		if !near(row[logged].(float64), want[row[0].(string)]) {
			t.Errorf("week %v logged %v hours, want %v", row[0], row[logged], want[row[0].(string)])
		}
	}
}

// On an agent's days, no_activity is true for zero hours, false for some,
// and null when the hours are not in.
func TestNoActivity(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var agent string
	var day time.Time
	f.sql.QueryRow(context.Background(), `SELECT agent_key, day FROM metrics.agent_time_daily WHERE logged_hours = 0 AND day > $1::date - 100
		ORDER BY day DESC LIMIT 1`, f.db.Now).Scan(&agent, &day)
	a := report(t, cs, "hours", fmt.Sprintf(`{"who":{"agent":%q},"period":{"week":%q},"group_by":"day"}`, agent, dateOf(day)))
	hours := f.sqlFloats(t, `SELECT to_char(day, 'YYYY-MM-DD'), logged_hours FROM metrics.agent_time_daily WHERE agent_key = $1 AND logged_hours IS NOT NULL`, agent)
	activity := a.column(t, "no_activity")
	if activity[dateOf(day)] != true {
		t.Errorf("the zero-hour day %s has no_activity %v", dateOf(day), activity[dateOf(day)])
	}
	for d, v := range activity {
		h, known := hours[d]
		switch {
		case !known && v != nil:
			t.Errorf("%s has no hours but no_activity %v", d, v)
		case known && v != (h == 0):
			t.Errorf("%s has %v hours but no_activity %v", d, h, v)
		}
	}
}

// compact keeps figures, data_through and warnings and drops definitions
// and standing notes; known_definitions swaps definitions for references.
func TestCompactAndDefinitionReferences(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	args := `{"who":{"floor":true},"period":{"named":"this_week"},"group_by":"team"`
	full := report(t, cs, "sales", args+`}`)
	compact := report(t, cs, "sales", args+`,"compact":true}`)
	if fmt.Sprint(full["rows"]) != fmt.Sprint(compact["rows"]) || fmt.Sprint(full["data_through"]) != fmt.Sprint(compact["data_through"]) {
		t.Error("compact changed the figures or data_through")
	}
	m := compact["metrics"].(map[string]any)["close_rate"].(map[string]any)
	if _, ok := m["definition"]; ok || m["data_through"] == nil || m["sales_basis"] != "submitted" {
		t.Errorf("compact close_rate = %v", m)
	}
	if len(notes(compact)) >= len(notes(full)) || !strings.Contains(strings.Join(notes(compact), " "), "not final yet") {
		t.Errorf("compact notes %v", notes(compact))
	}
	version := full["catalog_version"].(string)
	byRef := report(t, cs, "sales", args+`,"known_definitions":"`+version+`"}`)
	m = byRef["metrics"].(map[string]any)["close_rate"].(map[string]any)
	if _, ok := m["definition"]; ok || m["definition_ref"] != "close_rate@"+version {
		t.Errorf("with known_definitions, close_rate = %v", m)
	}
	stale := report(t, cs, "sales", args+`,"known_definitions":"0000"}`)
	m = stale["metrics"].(map[string]any)["close_rate"].(map[string]any)
	if m["definition"] == nil || !strings.Contains(strings.Join(notes(stale), " "), "does not match this catalogue") {
		t.Errorf("a stale known_definitions did not bring the full text and a note: %v", m)
	}
}

func notes(a answer) []string {
	var out []string
	for _, n := range a["notes"].([]any) {
		out = append(out, n.(string))
	}
	return out
}

func (f *floor) sqlKeys(t testing.TB, query string, args ...any) []string {
	t.Helper()
	rows, err := f.sql.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
