package mcpserver_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/pgtest"
)

// compare_to sets each figure beside the previous period's, over MCP, with
// the expected figures computed in plain SQL over the raw tables.

// A week against the week before for a team one of whose agents moved to
// another team in the middle of the week: each agent-day counts for the
// team of that day, in both periods, and the change is the difference of
// the two periods' figures, a ratio's from each period's summed parts.
func TestCompareAWeekWithAMidWeekTransfer(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()
	var moved time.Time
	f.sql.QueryRow(ctx, `SELECT max(h.effective_from) FROM analytics.agent_team_history h JOIN analytics.dim_agent a USING (agent_key)
		WHERE a.full_name = 'Tom Becker'`).Scan(&moved)
	week := moved.AddDate(0, 0, 1-int(moved.Weekday()))
	before := week.AddDate(0, 0, -7)
	for _, team := range []string{"hawks", "falcons"} {
		a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"team":%q},"period":{"week":%q},"compare_to":"previous_period"}`, team, dateOf(week)))
		sums := func(from time.Time) map[string]float64 {
			return f.sqlFloats(t, `SELECT 'submitted', sum(submitted)::float8 FROM metrics.agent_sales_daily s
				WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.TeamOfDay+` = $2
				UNION ALL SELECT 'conversations', sum(submitted + lost)::float8 FROM metrics.agent_sales_daily s
				WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.TeamOfDay+` = $2`, from, team)
		}
		cur, prev := sums(week), sums(before)
		p := a["previous_period"].(map[string]any)
		if p["start"] != dateOf(before) || p["end"] != dateOf(before.AddDate(0, 0, 6)) || a["request"].(map[string]any)["compare_to"] != "previous_period" {
			t.Errorf("%s: previous_period %v, request %v; want the week of %s echoed", team, p, a["request"], dateOf(before))
		}
		want := map[string]float64{
			"submitted_sales": cur["submitted"], "submitted_sales_previous": prev["submitted"],
			"submitted_sales_change": cur["submitted"] - prev["submitted"],
			"close_rate_numerator":   cur["submitted"], "close_rate_denominator": cur["conversations"],
			"close_rate_previous_numerator": prev["submitted"], "close_rate_previous_denominator": prev["conversations"],
			"close_rate":               cur["submitted"] / cur["conversations"],
			"close_rate_previous":      prev["submitted"] / prev["conversations"],
			"close_rate_change_points": 100 * (cur["submitted"]/cur["conversations"] - prev["submitted"]/prev["conversations"]),
		}
		for col, w := range want {
			if g, ok := a.total(t, col).(float64); !ok || !near(g, w) {
				t.Errorf("%s, week of %s against the week before: %s = %v, want %v", team, dateOf(week), col, a.total(t, col), w)
			}
		}
	}

	// By agent: the agent who moved counts for the Hawks until the day
	// before the move, and for all of the week before.
	a := report(t, cs, "sales", fmt.Sprintf(`{"who":{"team":"hawks"},"period":{"week":%q},"group_by":"agent","metrics":["submitted_sales"],"compare_to":"previous_period"}`, dateOf(week)))
	var agent string
	f.sql.QueryRow(ctx, `SELECT agent_key FROM analytics.dim_agent WHERE full_name = 'Tom Becker'`).Scan(&agent)
	mine := f.sqlFloats(t, `SELECT 'cur', coalesce(sum(submitted), 0)::float8 FROM metrics.agent_sales_daily WHERE agent_key = $1 AND day BETWEEN $2 AND $3::date - 1
		UNION ALL SELECT 'prev', coalesce(sum(submitted), 0)::float8 FROM metrics.agent_sales_daily WHERE agent_key = $1 AND day BETWEEN $4 AND $4::date + 6`,
		agent, week, moved, before)
	if g, p := a.column(t, "submitted_sales")[agent], a.column(t, "submitted_sales_previous")[agent]; g != mine["cur"] || p != mine["prev"] {
		t.Errorf("the agent who moved, for the Hawks: %v against %v, want %v against %v", g, p, mine["cur"], mine["prev"])
	}
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "moved from Hawks to Falcons on "+dateOf(moved)) {
		t.Errorf("the move is not in the notes: %s", n)
	}
}

// A close rate's change comes from each period's summed parts: the floor's
// rate last week against the week before, where the change of the
// average of the agents' rates says something else.
func TestCompareARatioFromItsSummedParts(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["close_rate"],"compare_to":"previous_period"}`)
	rates := func(from string) map[string]float64 {
		return f.sqlFloats(t, `WITH d AS (SELECT s.agent_key, submitted, lost FROM metrics.agent_sales_daily s
			WHERE day BETWEEN $1::date AND $1::date + 6 AND `+pgtest.OnFloor+`)
			SELECT 'rate', sum(submitted)::float8 / sum(submitted + lost) FROM d
			UNION ALL SELECT 'naive', avg(r) FROM (SELECT sum(submitted)::float8 / nullif(sum(submitted + lost), 0) AS r FROM d GROUP BY agent_key) x`, from)
	}
	cur, prev := rates("2026-11-09"), rates("2026-11-02")
	right, naive := 100*(cur["rate"]-prev["rate"]), 100*(cur["naive"]-prev["naive"])
	if math.Abs(right-naive) < 0.01 {
		t.Fatalf("the change of the average of agents' rates (%v) equals the right change (%v); the test proves nothing", naive, right)
	}
	got, _ := a.total(t, "close_rate_change_points").(float64)
	if !near(got, right) {
		t.Errorf("close_rate_change_points %v, want %v from summed parts (the naive average of rates gives %v)", got, right, naive)
	}
	if !near(a.total(t, "close_rate").(float64), cur["rate"]) || !near(a.total(t, "close_rate_previous").(float64), prev["rate"]) {
		t.Errorf("close rates %v against %v, want %v against %v", a.total(t, "close_rate"), a.total(t, "close_rate_previous"), cur["rate"], prev["rate"])
	}
}

// A comparison that includes a day that is not final, today included, is
// refused, and the refusal names periods that would work; a period so far
// is refused only while none of its days is final (on a Monday morning, the
// week so far is today alone).
func TestCompareIncludingTodayIsRefused(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	monday := newFloorAt(t, time.Date(2026, 11, 16, 9, 0, 0, 0, pgtest.Now.Location())).client(t)
	for _, c := range []struct {
		cs     *mcp.ClientSession
		period string
	}{{cs, `{"named":"today"}`}, {cs, `{"start":"2026-11-10","end":"2026-11-18"}`}, {monday, `{"named":"this_week"}`}, {monday, `{"named":"week_to_date"}`}} {
		a, isError := call(t, c.cs, "sales", `{"who":{"floor":true},"period":`+c.period+`,"compare_to":"previous_period"}`)
		e, _ := a["error"].(map[string]any)
		choices := toStrings(e["choices"])
		if !isError || e["code"] != "not_comparable" || e["argument"] != "period" || !slices.Contains(choices, "last_week") ||
			slices.Contains(choices, "this_week") || slices.Contains(choices, "today") || !strings.Contains(e["rule"].(string), "comparison") {
			t.Errorf("a comparison over %s: %v", c.period, a)
		}
	}
	// Days or weeks of two periods are different rows: refused, with the
	// groupings that work.
	a, isError := call(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"day","compare_to":"previous_period"}`)
	e, _ := a["error"].(map[string]any)
	if !isError || e["argument"] != "compare_to" || !slices.Equal(toStrings(e["choices"]), []string{"team", "agent"}) {
		t.Errorf("compare_to by day: %v", a)
	}
	a, isError = call(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"compare_to":"the_week_before"}`)
	e, _ = a["error"].(map[string]any)
	if !isError || e["argument"] != "compare_to" || !slices.Equal(toStrings(e["choices"]), []string{"previous_period", "previous_year", "target"}) {
		t.Errorf("an unknown compare_to: %v", a)
	}
}

// A month against the month before: the whole month before, and a note
// with both periods' calendar and working days when they differ (September
// holds a holiday on which nobody worked).
func TestCompareMonthsOfUnlikeDays(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "hours", `{"who":{"floor":true},"period":{"named":"last_month"},"group_by":"team","metrics":["logged_hours","talk_share"],"compare_to":"previous_period"}`)
	p := a["previous_period"].(map[string]any)
	if p["start"] != "2026-09-01" || p["end"] != "2026-09-30" || p["days"] != 30.0 {
		t.Errorf("the month before October: %v", p)
	}
	working := f.sqlFloats(t, `SELECT to_char(date_trunc('month', day), 'YYYY-MM'), count(DISTINCT day)::float8 FROM metrics.agent_time_daily s
		WHERE day BETWEEN '2026-09-01' AND '2026-10-31' AND logged_hours > 0 AND `+pgtest.OnFloor+` GROUP BY 1`)
	want := fmt.Sprintf("2026-10-01 to 2026-10-31 has 31 days, %v of them working days; the previous period, 2026-09-01 to 2026-09-30 has 30 days, %v of them working days",
		working["2026-10"], working["2026-09"])
	if n := strings.Join(notes(a), " "); !strings.Contains(n, want) {
		t.Errorf("no note with both periods' days (%s): %s", want, n)
	}
	hours := f.sqlFloats(t, `SELECT `+pgtest.TeamOfDay+` || '/' || to_char(date_trunc('month', day), 'YYYY-MM'), sum(logged_hours)::float8
		FROM metrics.agent_time_daily s WHERE day BETWEEN '2026-09-01' AND '2026-10-31' AND `+pgtest.OnFloor+` GROUP BY 1`)
	cur, prev := a.column(t, "logged_hours"), a.column(t, "logged_hours_previous")
	for team := range cur {
		c, p := hours[team+"/2026-10"], hours[team+"/2026-09"]
		if g, _ := cur[team].(float64); !near(g, c) {
			t.Errorf("%s in October: %v hours, want %v", team, cur[team], c)
		}
		if g, _ := prev[team].(float64); !near(g, p) {
			t.Errorf("%s in September: %v hours, want %v", team, prev[team], p)
		}
	}
}

// team_weeks with compare_to sets each week beside the week before it (the
// first beside the last week before the window) and the total beside the
// weeks before's total, a ratio's change from each side's summed parts.
func TestTeamWeeksBesideTheWeekBefore(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a, isError := call(t, cs, "team_weeks", `{"who":{"team":"hawks"},"weeks":4,"compare_to":"previous_period"}`)
	if isError {
		t.Fatalf("team_weeks against the week before: %v", a)
	}
	if p := a["previous_period"].(map[string]any); p["start"] != "2026-09-21" || p["end"] != "2026-10-18" {
		t.Errorf("the weeks before the four to 15 November: %v", p)
	}
	sums := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD') || '/' || k, sum(v)::float8 FROM (
		SELECT day, 'submitted' AS k, submitted AS v FROM metrics.agent_sales_daily s WHERE `+pgtest.TeamOfDay+` = 'hawks'
		UNION ALL SELECT day, 'conversations', submitted + lost FROM metrics.agent_sales_daily s WHERE `+pgtest.TeamOfDay+` = 'hawks') x
		WHERE day BETWEEN '2026-09-21' AND '2026-11-15' GROUP BY 1`)
	var sec map[string]any
	for _, s := range a["sections"].([]any) {
		if s.(map[string]any)["id"] == "sales" {
			sec = s.(map[string]any)
		}
	}
	cols := toStrings(sec["columns"])
	at := func(row []any, col string) any { return row[slices.Index(cols, col)] }
	var total [2]float64 // the four weeks, and the four before
	for _, r := range sec["rows"].([]any) {
		row := r.([]any)
		week, _ := time.Parse(time.DateOnly, row[0].(string))
		before := dateOf(week.AddDate(0, 0, -7))
		cur, prev := sums[row[0].(string)+"/submitted"], sums[before+"/submitted"]
		rate := func(w string) float64 { return sums[w+"/submitted"] / sums[w+"/conversations"] }
		if at(row, "submitted_sales") != cur || at(row, "submitted_sales_previous") != prev || at(row, "submitted_sales_change") != cur-prev {
			t.Errorf("the week of %v: %v, %v, %v; want %v against %v (the week of %s)", row[0], at(row, "submitted_sales"),
				at(row, "submitted_sales_previous"), at(row, "submitted_sales_change"), cur, prev, before)
		}
		if g, _ := at(row, "close_rate_change_points").(float64); !near(g, 100*(rate(row[0].(string))-rate(before))) {
			t.Errorf("the week of %v: close rate change %v points, want %v", row[0], g, 100*(rate(row[0].(string))-rate(before)))
		}
	}
	for _, w := range []string{"2026-09-21", "2026-09-28", "2026-10-05", "2026-10-12"} {
		total[1] += sums[w+"/submitted"]
	}
	for _, w := range []string{"2026-10-19", "2026-10-26", "2026-11-02", "2026-11-09"} {
		total[0] += sums[w+"/submitted"]
	}
	tot := sec["total"].([]any)
	if at(tot, "submitted_sales") != total[0] || at(tot, "submitted_sales_previous") != total[1] || at(tot, "submitted_sales_change") != total[0]-total[1] {
		t.Errorf("the total: %v against %v, want %v against %v", at(tot, "submitted_sales"), at(tot, "submitted_sales_previous"), total[0], total[1])
	}
}
