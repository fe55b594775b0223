package mcpserver_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"plumbline/internal/pgtest"
)

// A figure and its yardstick cover the same days and the same people:
// targets over exactly the days a figure covers and a team's days on the
// floor, one attainment per team and period in every tool, comparisons
// that name who changed underneath them and compare periods so far through
// their last final day, and no column the contract says is absent. Over
// MCP, with every expected figure computed in plain SQL over the raw
// tables.

// yard is a floor at a moment, with the SQL that states the rules again.
type yard struct {
	*floor
	t *testing.T
}

func yardAt(t *testing.T, at string) yard {
	now, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	return yard{newFloorAt(t, now), t}
}

// watermark is the last day the nightly build has loaded sales for.
func (y yard) watermark() string {
	var d time.Time
	if err := y.sql.QueryRow(context.Background(), `SELECT max(covers_day) FROM metrics.load_runs
		WHERE relation = 'metrics.agent_sales_daily' AND finished_at IS NOT NULL`).Scan(&d); err != nil {
		y.t.Fatal(err)
	}
	return dateOf(d)
}

// floorDays counts the days from..to on which a team was on the floor.
func (y yard) floorDays(team, from, to string) int {
	var n int
	if err := y.sql.QueryRow(context.Background(), `SELECT count(*) FROM generate_series($2::date, $3::date, '1 day') g(day)
		WHERE (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = $1 AND f.effective_from <= g.day
		       ORDER BY f.effective_from DESC LIMIT 1)`, team, from, to).Scan(&n); err != nil {
		y.t.Fatal(err)
	}
	return n
}

// sales sums a team's submitted sales and conversations from..to on its
// days on the floor, by the team of each agent-day.
func (y yard) sales(team, from, to string) (submitted, conversations float64) {
	s := y.sqlFloats(y.t, `SELECT 'submitted', coalesce(sum(submitted), 0)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1 AND $2 AND `+pgtest.TeamOfDay+` = $3 AND `+pgtest.OnFloor+`
		UNION ALL SELECT 'conversations', coalesce(sum(submitted + lost), 0)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1 AND $2 AND `+pgtest.TeamOfDay+` = $3 AND `+pgtest.OnFloor, from, to, team)
	return s["submitted"], s["conversations"]
}

// target is a team's latest target, or false without one.
func (y yard) target(team, metric, kind, start string) (float64, bool) {
	var v float64
	err := y.sql.QueryRow(context.Background(), `SELECT value::float8 FROM analytics.targets
		WHERE team_key = $1 AND metric = $2 AND period_kind = $3 AND period_start = $4 ORDER BY set_at DESC LIMIT 1`,
		team, metric, kind, start).Scan(&v)
	return v, err == nil
}

// sectionRows reads a canned answer's section as rows by column name, and
// its total.
func sectionRows(a answer, id string) (rows []map[string]any, total map[string]any) {
	for _, s := range a["sections"].([]any) {
		sec := s.(map[string]any)
		if sec["id"] != id {
			continue
		}
		cols := toStrings(sec["columns"])
		named := func(r []any) map[string]any {
			out := map[string]any{}
			for i, c := range cols {
				out[c] = r[i]
			}
			return out
		}
		for _, r := range sec["rows"].([]any) {
			rows = append(rows, named(r.([]any)))
		}
		if tot, ok := sec["total"].([]any); ok {
			total = named(tot)
		}
	}
	return rows, total
}

// near4 compares a target as the answer rounds it, to four decimals.
func near4(a, b float64) bool { return a-b < 0.00006 && b-a < 0.00006 }

// Item 1. Attainment divides a figure by its target over the same days: a
// month or week so far, whose nightly figure stops at yesterday, is held
// to the target of the days loaded, not of the days asked; so is the last
// day of a month; and with no day loaded there is no attainment. The
// answer states the counted days.
func TestAttainmentOverTheDaysTheFigureCovers(t *testing.T) {
	for _, c := range []struct {
		at, period, who, kind string
		teams                 []string // the rows' teams; one for a team's total
	}{
		{"2026-12-02T14:30:00-05:00", `{"named":"month_to_date"}`, `{"team":"falcons"}`, "month", []string{"falcons"}},
		{"2026-12-02T14:30:00-05:00", `{"named":"this_month"}`, `{"team":"hawks"}`, "month", []string{"hawks"}},
		{"2026-12-02T14:30:00-05:00", `{"named":"week_to_date"}`, `{"team":"ospreys"}`, "week", []string{"ospreys"}},
		{"2026-11-30T14:30:00-05:00", `{"named":"this_month"}`, `{"team":"falcons"}`, "month", []string{"falcons"}},
		{"2026-11-18T14:30:00-05:00", `{"named":"month_to_date"}`, `{"floor":true},"group_by":"team"`, "month",
			[]string{"falcons", "hawks", "kestrels", "ospreys"}},
	} {
		y := yardAt(t, c.at)
		cs := y.client(t)
		a := report(t, cs, "sales", `{"who":`+c.who+`,"period":`+c.period+`,"compare_to":"target"}`)
		p := a["period"].(map[string]any)
		start, through := p["start"].(string), y.watermark()
		first, _ := time.Parse(time.DateOnly, start)
		days := first.AddDate(0, 1, -1).Day()
		if c.kind == "week" {
			days = 7
		}
		counted := len(dayList(start, through))
		for _, team := range c.teams {
			row := map[string]any{}
			if len(c.teams) == 1 {
				for _, col := range []string{"submitted_sales", "submitted_sales_target", "submitted_sales_attainment"} {
					row[col] = a.total(t, col)
				}
			} else {
				for _, col := range []string{"submitted_sales", "submitted_sales_target", "submitted_sales_attainment"} {
					row[col] = a.column(t, col)[team]
				}
			}
			submitted, _ := y.sales(team, start, through)
			value, ok := y.target(team, "submitted_sales", c.kind, start)
			on := y.floorDays(team, start, through)
			if !ok || on == 0 {
				if row["submitted_sales_target"] != nil || row["submitted_sales_attainment"] != nil {
					t.Errorf("at %s, %s %s: %s has no target over its days, yet %v", c.at, c.who, c.period, team, row)
				}
				continue
			}
			target := value * float64(on) / float64(days)
			g, _ := row["submitted_sales_attainment"].(float64)
			if row["submitted_sales"] != submitted || !near4(row["submitted_sales_target"].(float64), target) || !near(g, submitted/target) {
				t.Errorf("at %s, %s %s: %s sold %v against %v, attainment %v; want %v sold (%s..%s) against %v × %d/%d = %v, attainment %v",
					c.at, c.who, c.period, team, row["submitted_sales"], row["submitted_sales_target"], row["submitted_sales_attainment"],
					submitted, start, through, value, on, days, target, submitted/target)
			}
		}
		td, _ := a["metrics"].(map[string]any)["submitted_sales"].(map[string]any)["target"].(map[string]any)
		if td == nil || td["counted_from"] != start || td["counted_through"] != through || td["counted_days"] != float64(counted) ||
			td["days"] != float64(days) || td["period"] != c.kind {
			t.Errorf("at %s, %s %s: the answer states the target's days as %v; want %s..%s, %d of %d days of the %s",
				c.at, c.who, c.period, td, start, through, counted, days, c.kind)
		}
		if n := strings.Join(notes(a), " "); !strings.Contains(n, fmt.Sprintf("%d of the %d days", counted, days)) {
			t.Errorf("at %s, %s %s: no note says the figures cover %d of the %d days: %s", c.at, c.who, c.period, counted, days, n)
		}
	}
	// On the 1st before any day of the month is loaded, nothing is
	// counted: no target, no attainment, never a ratio of two spans.
	y := yardAt(t, "2026-12-01T10:00:00-05:00")
	a := report(t, y.client(t), "sales", `{"who":{"team":"falcons"},"period":{"named":"month_to_date"},"compare_to":"target"}`)
	td := a["metrics"].(map[string]any)["submitted_sales"].(map[string]any)["target"].(map[string]any)
	if a.total(t, "submitted_sales_target") != nil || a.total(t, "submitted_sales_attainment") != nil || td["counted_from"] != nil || td["counted_days"] != 0.0 {
		t.Errorf("no day of December loaded: target %v, attainment %v, counted %v; want nulls and no day counted",
			a.total(t, "submitted_sales_target"), a.total(t, "submitted_sales_attainment"), td)
	}
}

// dayList lists the days from..to.
func dayList(from, to string) []string {
	a, _ := time.Parse(time.DateOnly, from)
	b, _ := time.Parse(time.DateOnly, to)
	var out []string
	for d := a; !d.After(b); d = d.AddDate(0, 0, 1) {
		out = append(out, dateOf(d))
	}
	return out
}

// Item 2. One team, one period, one attainment: a team on the floor for
// part of a period (the Harriers leave it on a Tuesday) is held to its
// target over its days on the floor, in the league, in sales for the team
// and for the floor by team, and in team_weeks; ranks follow, and a note
// gives its dates.
func TestOneTeamOnePeriodOneAttainment(t *testing.T) {
	y := yardAt(t, "2026-12-02T14:30:00-05:00")
	cs := y.client(t)
	var left time.Time
	if err := y.sql.QueryRow(context.Background(), `SELECT effective_from FROM analytics.team_floor_history
		WHERE team_key = 'harriers' AND NOT counts_as_sales`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	week := left.AddDate(0, 0, 1-int(left.Weekday()))
	for _, c := range []struct{ kind, period, from, to string }{
		{"week", `{"week":"` + dateOf(week) + `"}`, dateOf(week), dateOf(week.AddDate(0, 0, 6))},
		{"month", `{"start":"2026-10-01","end":"2026-10-31"}`, "2026-10-01", "2026-10-31"},
	} {
		days := len(dayList(c.from, c.to))
		// Each team's attainment, from the raw tables.
		want := map[string]*float64{}
		league, _ := call(t, cs, "league", `{"period":`+c.period+`,"rank_by":"attainment","metrics":["submitted_sales"]}`)
		rows, _ := sectionRows(league, "league")
		for _, r := range rows {
			team := r["team"].(string)
			submitted, _ := y.sales(team, c.from, c.to)
			value, ok := y.target(team, "submitted_sales", c.kind, c.from)
			if on := y.floorDays(team, c.from, c.to); ok && on > 0 {
				v := submitted / (value * float64(on) / float64(days))
				want[team] = &v
			} else {
				want[team] = nil
			}
		}
		if _, ok := want["harriers"]; !ok || want["harriers"] == nil {
			t.Fatalf("%s: the league lists no attainment for the Harriers to check: %v", c.period, rows)
		}
		order, rank := expectedRanks(want)
		var got []string
		for _, r := range rows {
			team := r["team"].(string)
			got = append(got, team)
			g, _ := r["submitted_sales_attainment"].(float64)
			if w := want[team]; w == nil && r["submitted_sales_attainment"] != nil || w != nil && !near(g, *w) || r["rank"] != rank[team] {
				t.Errorf("league over %s: %s's attainment %v ranked %v, want %v ranked %v", c.period, team, r["submitted_sales_attainment"], r["rank"], deref(w), rank[team])
			}
		}
		if !slices.Equal(got, order) {
			t.Errorf("league over %s: teams in the order %v, want %v", c.period, got, order)
		}
		if n := strings.Join(notes(league), " "); !strings.Contains(n, "Harriers (harriers) was on the floor on") || !strings.Contains(n, "left the floor on "+dateOf(left)) {
			t.Errorf("league over %s: no note gives the Harriers' days on the floor: %s", c.period, n)
		}
		// The same attainment in sales, for the team and for the floor by team.
		team := report(t, cs, "sales", `{"who":{"team":"harriers"},"period":`+c.period+`,"metrics":["submitted_sales"],"compare_to":"target"}`)
		byTeam := report(t, cs, "sales", `{"who":{"floor":true},"group_by":"team","period":`+c.period+`,"metrics":["submitted_sales"],"compare_to":"target"}`)
		for tool, g := range map[string]any{"sales for the team": team.total(t, "submitted_sales_attainment"),
			"sales for the floor by team": byTeam.column(t, "submitted_sales_attainment")["harriers"]} {
			if v, _ := g.(float64); !near(v, *want["harriers"]) {
				t.Errorf("%s over %s: the Harriers' attainment %v, want %v as in the league", tool, c.period, g, *want["harriers"])
			}
		}
	}
	// And in team_weeks, the week's row.
	weeks := int(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Sub(week).Hours()/24) / 7
	tw, isError := call(t, cs, "team_weeks", fmt.Sprintf(`{"who":{"team":"harriers"},"weeks":%d,"compare_to":"target"}`, weeks))
	if isError {
		t.Fatalf("team_weeks: %v", tw)
	}
	rows, _ := sectionRows(tw, "sales")
	submitted, _ := y.sales("harriers", dateOf(week), dateOf(week.AddDate(0, 0, 6)))
	value, _ := y.target("harriers", "submitted_sales", "week", dateOf(week))
	want := submitted / (value * float64(y.floorDays("harriers", dateOf(week), dateOf(week.AddDate(0, 0, 6)))) / 7)
	if len(rows) == 0 || rows[0]["week"] != dateOf(week) {
		t.Fatalf("team_weeks does not start with the week of %s: %v", dateOf(week), rows)
	}
	if g, _ := rows[0]["submitted_sales_attainment"].(float64); !near(g, want) {
		t.Errorf("team_weeks: the Harriers' attainment in the week of %s is %v, want %v as in the league", dateOf(week), rows[0]["submitted_sales_attainment"], want)
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// Item 3. A comparison names what changed underneath it: for a team, the
// agents counted in one period and not every day of both (Tom Becker moves
// on a Wednesday); for the floor, the teams (the Harriers leave it on a
// Tuesday); each with its dates.
func TestAComparisonNamesWhoChanged(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	var moved, left time.Time
	f.sql.QueryRow(ctx, `SELECT max(h.effective_from) FROM analytics.agent_team_history h JOIN analytics.dim_agent a USING (agent_key)
		WHERE a.full_name = 'Tom Becker'`).Scan(&moved)
	f.sql.QueryRow(ctx, `SELECT effective_from FROM analytics.team_floor_history WHERE team_key = 'harriers' AND NOT counts_as_sales`).Scan(&left)
	for _, c := range []struct {
		who, team string // team: the team in scope, or none for the floor
		week      time.Time
		match     string // what the note must name, with its date
	}{
		{`{"team":"falcons"}`, "falcons", moved.AddDate(0, 0, 1-int(moved.Weekday())), "moved from Hawks to Falcons on " + dateOf(moved)},
		{`{"team":"hawks"},"group_by":"agent"`, "hawks", moved.AddDate(0, 0, 1-int(moved.Weekday())), "moved from Hawks to Falcons on " + dateOf(moved)},
		{`{"floor":true}`, "", left.AddDate(0, 0, 1-int(left.Weekday())), "left the floor on " + dateOf(left)},
		{`{"floor":true},"group_by":"team"`, "", left.AddDate(0, 0, 1-int(left.Weekday())).AddDate(0, 0, 7), "left the floor on " + dateOf(left)},
	} {
		a := report(t, cs, "sales", `{"who":`+c.who+`,"period":{"week":"`+dateOf(c.week)+`"},"compare_to":"previous_period"}`)
		from, to := dateOf(c.week.AddDate(0, 0, -7)), dateOf(c.week.AddDate(0, 0, 6))
		// Who differs, from the raw tables: for a team, agents whose days
		// on it are not every day of both weeks; for the floor, teams.
		var differ []string
		if c.team != "" {
			rows, err := f.sql.Query(ctx, `SELECT a.agent_key FROM analytics.dim_agent a
				CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE g.day < $2::date + 7) AS before, count(*) FILTER (WHERE g.day >= $2::date + 7) AS now
				  FROM generate_series($2::date, $3::date, '1 day') g(day)
				  WHERE g.day >= a.hired_on AND (a.left_on IS NULL OR g.day <= a.left_on)
				    AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.effective_from <= g.day
				         ORDER BY h.effective_from DESC LIMIT 1) = $1) n
				WHERE (n.before + n.now) > 0 AND (n.before < 7 OR n.now < 7) ORDER BY 1`, c.team, from, to)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var key string
				rows.Scan(&key)
				differ = append(differ, key)
			}
			rows.Close()
		} else {
			for _, team := range []string{"falcons", "harriers", "hawks", "kestrels", "ospreys", "retention"} {
				y := yard{f, t}
				before, now := y.floorDays(team, from, dateOf(c.week.AddDate(0, 0, -1))), y.floorDays(team, dateOf(c.week), to)
				if before+now > 0 && (before < 7 || now < 7) {
					differ = append(differ, team)
				}
			}
		}
		n := strings.Join(notes(a), " ")
		if len(differ) == 0 || !strings.Contains(n, "Not the same") || !strings.Contains(n, c.match) {
			t.Errorf("%s, the week of %s against the week before: %v differ, and the notes say: %s", c.who, dateOf(c.week), differ, n)
		}
		for _, key := range differ {
			if !regexp.MustCompile(`\(` + key + `\): `).MatchString(n) {
				t.Errorf("%s, the week of %s: %s is counted differently in the two weeks, and no note names it: %s", c.who, dateOf(c.week), key, n)
			}
		}
	}
}

// Item 4. "So far this month against last month" has an answer: a period
// so far is compared through its last final day with as many days of the
// previous week, month or quarter, and says so; the figures on both sides
// are the raw tables' over those days.
func TestSoFarAgainstTheSameDaysBefore(t *testing.T) {
	for _, c := range []struct {
		at, tool, period, metric       string
		start, end, prevStart, prevEnd string
	}{
		{"2026-12-02T14:30:00-05:00", "sales", "month_to_date", "submitted_sales", "2026-12-01", "2026-12-01", "2026-11-01", "2026-11-01"},
		{"2026-11-18T14:30:00-05:00", "sales", "week_to_date", "submitted_sales", "2026-11-16", "2026-11-17", "2026-11-09", "2026-11-10"},
		{"2026-11-18T14:30:00-05:00", "sales", "this_month", "submitted_sales", "2026-11-01", "2026-11-17", "2026-10-01", "2026-10-17"},
		{"2026-11-18T14:30:00-05:00", "sales", "quarter_to_date", "submitted_sales", "2026-10-01", "2026-11-17", "2026-07-01", "2026-08-17"},
		{"2026-11-18T14:30:00-05:00", "hours", "week_to_date", "logged_hours", "2026-11-16", "2026-11-16", "2026-11-09", "2026-11-09"},
	} {
		y := yardAt(t, c.at)
		a := report(t, y.client(t), c.tool, `{"who":{"floor":true},"period":{"named":"`+c.period+`"},"metrics":["`+c.metric+`"],"compare_to":"previous_period"}`)
		p, q := a["period"].(map[string]any), a["previous_period"].(map[string]any)
		today := strings.Split(c.at, "T")[0]
		if p["start"] != c.start || p["end"] != c.end || p["asked_end"] != today || q["start"] != c.prevStart || q["end"] != c.prevEnd {
			t.Errorf("at %s, %s compared: %v against %v; want %s..%s (asked through %s) against %s..%s", c.at, c.period, p, q,
				c.start, c.end, today, c.prevStart, c.prevEnd)
		}
		column := map[string]string{"submitted_sales": "submitted", "logged_hours": "logged_hours"}[c.metric]
		relation := map[string]string{"submitted_sales": "metrics.agent_sales_daily", "logged_hours": "metrics.agent_time_daily"}[c.metric]
		sum := func(from, to string) float64 {
			return y.sqlFloats(t, `SELECT 'v', coalesce(sum(`+column+`), 0)::float8 FROM `+relation+` s
				WHERE day BETWEEN $1 AND $2 AND `+pgtest.OnFloor, from, to)["v"]
		}
		cur, prev := sum(c.start, c.end), sum(c.prevStart, c.prevEnd)
		g, _ := a.total(t, c.metric).(float64)
		h, _ := a.total(t, c.metric+"_previous").(float64)
		if !near(g, cur) || !near(h, prev) {
			t.Errorf("at %s, %s: %v against %v, want %v against %v", c.at, c.period, g, h, cur, prev)
		}
		if n := strings.Join(notes(a), " "); !strings.Contains(n, "runs through "+c.end+", the last day final") || !strings.Contains(n, c.prevStart) {
			t.Errorf("at %s, %s: no note says it runs through %s and what it is set beside: %s", c.at, c.period, c.end, n)
		}
		if len(toStrings(a["partial_metrics"])) > 0 {
			t.Errorf("at %s, %s: compared through its final days, yet partial %v", c.at, c.period, a["partial_metrics"])
		}
	}
}

// Item 5. A metric whose targets are set by month (the close rate) has no
// target columns beside a week's figures in any tool, and a note says so;
// asked for alone over a week, or as a league's attainment over a week,
// it is refused with the periods that have its targets. Over a month its
// columns are there.
func TestNoWeeklyColumnsForAMonthlyTarget(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var weekly int
	f.sql.QueryRow(context.Background(), `SELECT count(*) FROM analytics.targets WHERE metric = 'close_rate' AND period_kind = 'week'`).Scan(&weekly)
	if weekly != 0 {
		t.Fatalf("the demo floor has %d weekly close-rate targets; the test expects the rate planned by month alone", weekly)
	}
	columnsOf := func(a answer) []string {
		if cols, ok := a["columns"]; ok {
			return toStrings(cols)
		}
		var out []string
		for _, s := range a["sections"].([]any) {
			out = append(out, toStrings(s.(map[string]any)["columns"])...)
		}
		return out
	}
	for _, c := range []struct{ tool, args string }{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"compare_to":"target"}`},
		{"sales", `{"who":{"team":"hawks"},"period":{"named":"week_to_date"},"compare_to":"target"}`},
		{"sales", `{"who":{"floor":true},"group_by":"team","period":{"week":"2026-11-02"},"compare_to":"target"}`},
		{"league", `{"period":{"named":"last_week"},"rank_by":"attainment"}`},
		{"team_weeks", `{"who":{"floor":true},"compare_to":"target"}`},
	} {
		a, isError := call(t, cs, c.tool, c.args)
		cols := columnsOf(a)
		if isError || slices.Contains(cols, "close_rate_target") || slices.Contains(cols, "close_rate_target_gap_points") ||
			!slices.Contains(cols, "submitted_sales_target") || !strings.Contains(strings.Join(notes(a), " "), "close_rate: its targets are set by month only") {
			t.Errorf("%s %s: columns %v, notes %v; want submitted_sales' target columns, none of close_rate's, and a note", c.tool, c.args, cols, notes(a))
		}
		if _, ok := a["metrics"].(map[string]any)["close_rate"].(map[string]any)["target"]; ok {
			t.Errorf("%s %s: close_rate's stamp states target days it has no target over", c.tool, c.args)
		}
	}
	for _, c := range []struct{ tool, args string }{
		{"sales", `{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["close_rate"],"compare_to":"target"}`},
		{"league", `{"period":{"named":"last_week"},"sort":{"metric":"close_rate"},"rank_by":"attainment"}`},
	} {
		a, isError := call(t, cs, c.tool, c.args)
		e, _ := a["error"].(map[string]any)
		if !isError || e["argument"] != "period" || !slices.Equal(toStrings(e["choices"]), []string{"last_month", "this_month", "month_to_date"}) {
			t.Errorf("%s %s: %v; want a refusal of period naming the months", c.tool, c.args, a)
		}
	}
	month := report(t, cs, "sales", `{"who":{"floor":true},"group_by":"team","period":{"named":"last_month"},"compare_to":"target"}`)
	if !slices.Contains(columnsOf(month), "close_rate_target_gap_points") {
		t.Errorf("over a month the close rate's target columns are missing: %v", columnsOf(month))
	}
}
