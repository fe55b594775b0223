package mcpserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"plumbline/internal/pgtest"
)

// Each test here holds one class of plausible wrong number to its rule, over
// MCP, with the expected figures computed in plain SQL over the raw tables.

func moment(t *testing.T, rfc3339 string) time.Time {
	t.Helper()
	now, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// rows returns an answer's rows.
func (a answer) rows() [][]any {
	var out [][]any
	for _, r := range a["rows"].([]any) {
		out = append(out, r.([]any))
	}
	return out
}

func (a answer) col(t testing.TB, name string) int {
	t.Helper()
	for i, c := range a["columns"].([]any) {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, a["columns"])
	return -1
}

// floorAgentDay is the raw-table condition that an agent-day aliased s
// counts for the floor.
const floorAgentDay = pgtest.OnFloor

// A top_n is a ranking: without sort it ranks by the first metric,
// descending, and says so; rows tied with the last one kept are kept; a cut
// by the row cap that splits a tie says so; without a grouping it is
// refused.
func TestTopNIsARankingThatKeepsTies(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	ctx := context.Background()

	a := report(t, cs, "hours", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"agent","metrics":["talk_hours","logged_hours"],"top_n":5}`)
	if s, _ := a["request"].(map[string]any)["sort"].(map[string]any); s["metric"] != "talk_hours" || s["direction"] != "desc" {
		t.Errorf("top_n without sort ranked by %v; want talk_hours, descending, echoed", s)
	}
	want := f.sqlKeys(t, `SELECT agent_key FROM (SELECT s.agent_key, sum(talk_hours) AS h FROM metrics.agent_time_daily s
		WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+floorAgentDay+` GROUP BY 1) x
		ORDER BY h DESC NULLS LAST, agent_key FETCH FIRST 5 ROWS WITH TIES`)
	var got []string
	for _, r := range a.rows() {
		got = append(got, r[0].(string))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the top 5 agents by talk hours are %v, want %v", got, want)
	}

	// A day on which the third-highest count of audits is shared.
	type cut struct {
		day        time.Time
		value, row int
	}
	var tie cut
	err := f.sql.QueryRow(ctx, `WITH per AS (SELECT s.day, s.agent_key, sum(audits_passed + audits_failed) AS n FROM metrics.agent_quality_daily s
		WHERE s.day BETWEEN '2026-09-01' AND '2026-11-15' AND `+floorAgentDay+` GROUP BY 1, 2),
		ranked AS (SELECT day, n, row_number() OVER (PARTITION BY day ORDER BY n DESC) AS r FROM per)
		SELECT a.day, a.n, (SELECT count(*) FROM per p WHERE p.day = a.day AND p.n >= a.n)
		FROM ranked a JOIN ranked b ON b.day = a.day AND b.r = 4 WHERE a.r = 3 AND a.n = b.n AND a.n > 0 ORDER BY a.day DESC LIMIT 1`).
		Scan(&tie.day, &tie.value, &tie.row)
	if err != nil {
		t.Fatalf("no day on which the third and fourth agents audit the same: %v", err)
	}
	a = report(t, cs, "quality", fmt.Sprintf(`{"who":{"floor":true},"period":{"day":%q},"group_by":"agent","metrics":["audits"],"top_n":3}`, dateOf(tie.day)))
	if n := len(a.rows()); n != tie.row || a["truncated"] != false {
		t.Errorf("top 3 by audits on %s: %d rows, truncated %v; want the %d agents with %d or more", dateOf(tie.day), n, a["truncated"], tie.row, tie.value)
	}
	if !strings.Contains(strings.Join(notes(a), " "), "tie on audits") {
		t.Errorf("keeping tied rows is not explained: %v", notes(a))
	}

	// On the same day most agents on the floor audited nothing: a cut far
	// down the ranking meets a tie at zero wider than the row cap.
	var scoped int
	f.sql.QueryRow(ctx, `SELECT count(*) FROM analytics.dim_agent a WHERE a.hired_on <= $1 AND (a.left_on IS NULL OR a.left_on >= $1)
		AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key =
		  (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.effective_from <= $1 ORDER BY h.effective_from DESC LIMIT 1)
		  AND f.effective_from <= $1 ORDER BY f.effective_from DESC LIMIT 1)`, tie.day).Scan(&scoped)
	var audited int
	f.sql.QueryRow(ctx, `SELECT count(DISTINCT s.agent_key) FROM metrics.agent_quality_daily s WHERE s.day = $1 AND `+floorAgentDay, tie.day).Scan(&audited)
	if scoped <= 50 || audited >= 40 {
		t.Fatalf("on %s, %d agents on the floor and %d audited; the test needs more than 50 and fewer than 40", dateOf(tie.day), scoped, audited)
	}
	a = report(t, cs, "quality", fmt.Sprintf(`{"who":{"floor":true},"period":{"day":%q},"group_by":"agent","metrics":["audits"],"top_n":40}`, dateOf(tie.day)))
	if n := len(a.rows()); n != 50 || a["truncated"] != true || !strings.Contains(strings.Join(notes(a), " "), "splits a tie") {
		t.Errorf("a tie wider than the cap: %d rows, truncated %v, notes %v; want 50, true and a note", n, a["truncated"], notes(a))
	}
	for _, r := range a.rows()[audited:] {
		if r[2] != 0.0 {
			t.Errorf("an agent who audited nothing on a loaded day shows %v, want 0", r[2])
		}
	}

	refusal, isError := call(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"top_n":3}`)
	e, _ := refusal["error"].(map[string]any)
	if !isError || e["argument"] != "top_n" || !slices.Equal(toStrings(e["choices"]), []string{"team", "agent", "day", "week", "month", "quarter"}) {
		t.Errorf("top_n without a grouping: %v", refusal)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// A ratio's parts come from the same agent-days: an agent-day on which a
// part is unknown leaves both, is counted, and makes the figure partial.
func TestRatioPartsComeFromTheSameAgentDays(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"metrics":["approval_rate"]}`)
	parts := f.sqlFloats(t, `SELECT 'num', sum(approved) FILTER (WHERE approved IS NOT NULL)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND `+floorAgentDay+`
		UNION ALL SELECT 'den', sum(submitted) FILTER (WHERE approved IS NOT NULL)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND `+floorAgentDay+`
		UNION ALL SELECT 'left', count(*) FILTER (WHERE approved IS NULL)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND `+floorAgentDay+`
		UNION ALL SELECT 'naive', sum(coalesce(approved, 0))::float8 / sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-21' AND '2026-11-17' AND `+floorAgentDay)
	rate := a.total(t, "approval_rate").(float64)
	if !near(rate, parts["num"]/parts["den"]) || a.total(t, "approval_rate_numerator") != parts["num"] || a.total(t, "approval_rate_denominator") != parts["den"] {
		t.Errorf("approval rate %v (%v / %v), want %v / %v", rate, a.total(t, "approval_rate_numerator"), a.total(t, "approval_rate_denominator"), parts["num"], parts["den"])
	}
	if near(rate, parts["naive"]) || parts["left"] == 0 {
		t.Fatalf("counting unsettled approvals as declined gives the same rate (%v); the test proves nothing", parts["naive"])
	}
	info := a["metrics"].(map[string]any)["approval_rate"].(map[string]any)
	if info["left_out"] != parts["left"] || !slices.Contains(a["partial_metrics"].([]any), "approval_rate") {
		t.Errorf("left_out %v, partial %v; want %v agent-days left out and partial", info["left_out"], a["partial_metrics"], parts["left"])
	}

	// Sales per hour joins the two sources by agent-day: an agent-day whose
	// hours are not in leaves its sales out too.
	a = report(t, cs, "sales", `{"who":{"team":"falcons"},"period":{"named":"this_week"},"metrics":["sales_per_hour"]}`)
	joined := f.sqlFloats(t, `WITH d AS (SELECT s.agent_key, s.day, s.submitted, t.logged_hours, t.agent_key IS NOT NULL AS has_time
		FROM metrics.agent_sales_daily s LEFT JOIN metrics.agent_time_daily t USING (agent_key, day)
		WHERE s.day BETWEEN '2026-11-16' AND '2026-11-18' AND `+pgtest.TeamOfDay+` = 'falcons')
		SELECT 'num', sum(submitted) FILTER (WHERE logged_hours IS NOT NULL OR NOT has_time)::float8 FROM d
		UNION ALL SELECT 'den', sum(coalesce(logged_hours, 0)) FILTER (WHERE logged_hours IS NOT NULL OR NOT has_time)::float8 FROM d
		UNION ALL SELECT 'left', count(*) FILTER (WHERE has_time AND logged_hours IS NULL)::float8 FROM d
		UNION ALL SELECT 'naive', sum(submitted)::float8 / sum(logged_hours) FROM d`)
	if a.total(t, "sales_per_hour_numerator") != joined["num"] || !near(a.total(t, "sales_per_hour_denominator").(float64), joined["den"]) {
		t.Errorf("sales per hour parts %v / %v, want %v / %v", a.total(t, "sales_per_hour_numerator"), a.total(t, "sales_per_hour_denominator"), joined["num"], joined["den"])
	}
	if joined["left"] == 0 || near(a.total(t, "sales_per_hour").(float64), joined["naive"]) {
		t.Fatalf("no agent-day of the Falcons this week lacks its hours (%v), or it changes nothing; the test proves nothing", joined)
	}
	if got := a["metrics"].(map[string]any)["sales_per_hour"].(map[string]any)["left_out"]; got != joined["left"] {
		t.Errorf("sales_per_hour left_out %v, want %v", got, joined["left"])
	}
}

// A week the period cuts says which days it holds.
func TestCutWeeksSayWhichDaysTheyHold(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"group_by":"week"}`)
	start, _ := time.Parse(time.DateOnly, a["period"].(map[string]any)["start"].(string))
	end, _ := time.Parse(time.DateOnly, a["period"].(map[string]any)["end"].(string))
	days := a.col(t, "days")
	var cut []string
	for _, r := range a.rows() {
		week, _ := time.Parse(time.DateOnly, r[0].(string))
		n := 0
		for d := week; d.Before(week.AddDate(0, 0, 7)); d = d.AddDate(0, 0, 1) {
			if !d.Before(start) && !d.After(end) {
				n++
			}
		}
		if r[days] != float64(n) {
			t.Errorf("the week of %v holds %v days of the period, want %d", r[0], r[days], n)
		}
		if n < 7 {
			cut = append(cut, r[0].(string))
		}
	}
	if len(cut) != 2 {
		t.Fatalf("last_28_days from a Wednesday cuts %v, want the first and the last week", cut)
	}
	note := strings.Join(notes(a), " ")
	for _, w := range cut {
		if !strings.Contains(note, "the week of "+w+" holds only") {
			t.Errorf("no note names the cut week of %s: %s", w, note)
		}
	}
}

// How far a nightly source is loaded comes from its load watermark, not its
// newest row: on a Monday morning last week is whole, and a holiday that
// was loaded with no rows is a day without activity, not missing data.
func TestTheLoadWatermarkSaysHowFarDataRuns(t *testing.T) {
	f := newFloorAt(t, moment(t, "2026-11-16T09:00:00-05:00"))
	cs := f.client(t)
	var watermark time.Time
	f.sql.QueryRow(context.Background(), `SELECT max(covers_day) FROM metrics.load_runs WHERE relation = 'metrics.agent_sales_daily' AND finished_at IS NOT NULL`).Scan(&watermark)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"}}`)
	dt := a["data_through"].(map[string]any)["metrics.agent_sales_daily"].(map[string]any)
	if dt["runs_to"] != dateOf(watermark) || dt["complete_through"] != "2026-11-15" || a["partial"] != false {
		t.Errorf("on Monday morning last week's sales run to %v, complete through %v, partial %v; want %s, 2026-11-15, false",
			dt["runs_to"], dt["complete_through"], a["partial"], dateOf(watermark))
	}
	if league, isError := call(t, cs, "league", `{"period":{"named":"last_week"}}`); isError {
		t.Errorf("on Monday morning the league over last week is refused: %v", league)
	}

	f = newFloorAt(t, moment(t, "2026-09-08T07:00:00-04:00"))
	cs = f.client(t)
	var rows, loaded int
	f.sql.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM metrics.agent_sales_daily WHERE day = '2026-09-07'),
		(SELECT count(*) FROM metrics.load_runs WHERE covers_day = '2026-09-07' AND finished_at IS NOT NULL)`).Scan(&rows, &loaded)
	if rows != 0 || loaded != 3 {
		t.Fatalf("Labor Day has %d sales rows and %d finished loads; want none and three", rows, loaded)
	}
	a = report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"yesterday"},"group_by":"team"}`)
	teams := f.sqlKeys(t, `SELECT t.team_key FROM analytics.dim_team t WHERE (SELECT f.counts_as_sales FROM analytics.team_floor_history f
		WHERE f.team_key = t.team_key AND f.effective_from <= '2026-09-07' ORDER BY f.effective_from DESC LIMIT 1) ORDER BY 1`)
	if len(a.rows()) != len(teams) || a["partial"] != false {
		t.Errorf("Labor Day by team: %d rows (want %d, every team on the floor), partial %v", len(a.rows()), len(teams), a["partial"])
	}
	for _, r := range a.rows() {
		if r[a.col(t, "submitted_sales")] != 0.0 {
			t.Errorf("team %v on a loaded holiday: %v submitted, want 0", r[0], r[a.col(t, "submitted_sales")])
		}
	}
	day := report(t, cs, "hours", `{"who":{"agent":"a011"},"period":{"start":"2026-09-04","end":"2026-09-07"},"group_by":"day"}`)
	last := day.rows()[len(day.rows())-1]
	if last[0] != "2026-09-07" || last[day.col(t, "logged_hours")] != 0.0 || last[day.col(t, "no_activity")] != true {
		t.Errorf("an agent on Labor Day: %v; want zero hours and no_activity true", last)
	}
}

// A grouped answer lists every group in scope, with null figures where no
// data is in.
func TestEveryGroupInScopeIsListed(t *testing.T) {
	f := newFloorAt(t, moment(t, "2026-12-01T10:00:00-05:00"))
	cs := f.client(t)
	onFloor := f.sqlKeys(t, `SELECT t.team_key FROM analytics.dim_team t WHERE (SELECT f.counts_as_sales FROM analytics.team_floor_history f
		WHERE f.team_key = t.team_key AND f.effective_from <= '2026-12-01' ORDER BY f.effective_from DESC LIMIT 1) ORDER BY 1`)
	for _, call := range []string{
		`{"who":{"floor":true},"period":{"named":"this_month"},"group_by":"team","metrics":["submitted_sales"]}`,
		`{"who":{"floor":true},"period":{"named":"today"},"group_by":"team","metrics":["close_rate"]}`,
	} {
		a := report(t, cs, "sales", call)
		var got []string
		for _, r := range a.rows() {
			got = append(got, r[0].(string))
			if r[2] != nil {
				t.Errorf("%s: team %v has %v; nothing of today is loaded, want null", call, r[0], r[2])
			}
		}
		if !slices.Equal(got, onFloor) {
			t.Errorf("%s: teams %v, want every team on the floor %v", call, got, onFloor)
		}
	}
	a := report(t, cs, "hours", `{"who":{"team":"hawks"},"period":{"named":"today"},"group_by":"agent"}`)
	want := f.sqlKeys(t, `SELECT a.agent_key FROM analytics.dim_agent a WHERE a.hired_on <= '2026-12-01' AND (a.left_on IS NULL OR a.left_on >= '2026-12-01')
		AND (SELECT h.team_key FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.effective_from <= '2026-12-01'
		ORDER BY h.effective_from DESC LIMIT 1) = 'hawks' ORDER BY 1`)
	var got []string
	for _, r := range a.rows() {
		got = append(got, r[0].(string))
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("hours by agent for the Hawks today: %v, want %v", got, want)
	}
}

// A period outside the data, or outside an agent's time on the floor, says
// so: wholly before the first day of data it is refused with that day as
// the choice; partly before, a note names it; an agent who left, joined or
// moved is named with the dates.
func TestPeriodsOutsideTheDataOrAnAgentsTime(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var first time.Time
	f.sql.QueryRow(context.Background(), `SELECT min(covers_day) FROM metrics.load_runs WHERE relation = 'metrics.agent_sales_daily' AND finished_at IS NOT NULL`).Scan(&first)
	a, isError := call(t, cs, "sales", `{"who":{"floor":true},"period":{"day":"1900-01-01"}}`)
	e, _ := a["error"].(map[string]any)
	if !isError || e["argument"] != "period" || !slices.Equal(toStrings(e["choices"]), []string{dateOf(first)}) {
		t.Errorf("a day before the data: %v; want a refusal naming %s", a, dateOf(first))
	}
	a = report(t, cs, "sales", fmt.Sprintf(`{"who":{"floor":true},"period":{"start":%q,"end":%q}}`, dateOf(first.AddDate(0, 0, -3)), dateOf(first.AddDate(0, 0, 3))))
	if !strings.Contains(strings.Join(notes(a), " "), "the data starts on "+dateOf(first)) {
		t.Errorf("a period partly before the data has no note naming its first day: %v", notes(a))
	}

	var left time.Time
	f.sql.QueryRow(context.Background(), `SELECT left_on FROM analytics.dim_agent WHERE full_name = 'Priya Raman'`).Scan(&left)
	a = report(t, cs, "sales", `{"who":{"agent":"Priya Raman"},"period":{"named":"last_week"}}`)
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "left "+dateOf(left)) || a.total(t, "submitted_sales") != nil {
		t.Errorf("an agent who left on %s, last week: %v, notes %s; want null and a note with the date", dateOf(left), a.total(t, "submitted_sales"), n)
	}
	var moved time.Time
	f.sql.QueryRow(context.Background(), `SELECT max(h.effective_from) FROM analytics.agent_team_history h JOIN analytics.dim_agent a USING (agent_key)
		WHERE a.full_name = 'Tom Becker'`).Scan(&moved)
	a = report(t, cs, "hours", fmt.Sprintf(`{"who":{"floor":true},"period":{"week":%q},"group_by":"agent"}`, dateOf(moved)))
	if n := strings.Join(notes(a), " "); strings.Contains(n, "Tom Becker") {
		t.Errorf("a move between two teams on the floor keeps the agent on the floor every day, yet: %s", n)
	}
	a = report(t, cs, "hours", fmt.Sprintf(`{"who":{"team":"falcons"},"period":{"week":%q},"group_by":"agent"}`, dateOf(moved)))
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "Tom Becker") || !strings.Contains(n, "moved from Hawks to Falcons on "+dateOf(moved)) {
		t.Errorf("the Falcons in the week Tom Becker joined them: no note with the move: %s", n)
	}
}

// team_weeks answers even when a source holds no finished load at all.
func TestTeamWeeksWithASourceNeverLoaded(t *testing.T) {
	f := newFloor(t)
	if _, err := f.sql.Exec(context.Background(), `DELETE FROM metrics.load_runs WHERE relation = 'metrics.agent_quality_daily'`); err != nil {
		t.Fatal(err)
	}
	cs := f.client(t)
	a, isError := call(t, cs, "team_weeks", `{"who":{"team":"hawks"},"weeks":2}`)
	if isError || a["partial"] != true || !strings.Contains(strings.Join(notes(a), " "), "holds no data") {
		t.Errorf("team_weeks with quality never loaded: %v", a)
	}
}
