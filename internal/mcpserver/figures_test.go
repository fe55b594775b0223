package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"plumbline/internal/pgtest"
)

// The expected figures below are computed with plain SQL over the raw demo
// tables, in a different shape from plumbline's: the team of an agent-day
// and a team's place on the floor are looked up with correlated subqueries
// (pgtest.TeamOfDay, pgtest.OnFloor).

func dateOf(d time.Time) string { return d.Format(time.DateOnly) }

// In a week in which an agent moved from one team to another, each of the
// agent's days counts for the team they were on that day.
func TestTeamTotalsInATransferWeek(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var agent string
	var moved time.Time
	err := f.sql.QueryRow(context.Background(), `SELECT agent_key, effective_from FROM analytics.agent_team_history h
		WHERE effective_from BETWEEN $1::date - 21 AND $1::date - 8
		  AND EXISTS (SELECT 1 FROM analytics.agent_team_history o WHERE o.agent_key = h.agent_key AND o.effective_from < h.effective_from)
		  AND extract(isodow FROM effective_from) BETWEEN 2 AND 5
		ORDER BY agent_key LIMIT 1`, f.db.Now).Scan(&agent, &moved)
	if err != nil {
		t.Fatalf("the floor has no mid-week transfer in the last weeks: %v", err)
	}
	week := moved.AddDate(0, 0, 1-int(moved.Weekday()))
	var before, after int
	f.sql.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE day < $2), count(*) FILTER (WHERE day >= $2)
		FROM metrics.agent_sales_daily WHERE agent_key = $1 AND day BETWEEN $3 AND $3::date + 6`, agent, moved, week).Scan(&before, &after)
	if before == 0 || after == 0 {
		t.Fatalf("agent %s has no sales rows on both sides of the move (%d before, %d after)", agent, before, after)
	}

	got := report(t, cs, "sales", fmt.Sprintf(`{"who":{"floor":true},"period":{"week":%q},"group_by":"team","metrics":["submitted_sales","close_rate"]}`, dateOf(week)))
	want := f.sqlFloats(t, `SELECT `+pgtest.TeamOfDay+`, sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.OnFloor+` GROUP BY 1`, week)
	sums := got.column(t, "submitted_sales")
	if len(sums) != len(want) {
		t.Fatalf("teams %v, want %v", sums, want)
	}
	for team, w := range want {
		if g, ok := sums[team].(float64); !ok || g != w {
			t.Errorf("week of %s, team %s: submitted %v, want %v", dateOf(week), team, sums[team], w)
		}
	}

	// The same through a team's own figures, for both teams of the move.
	teams := f.sqlFloats(t, `SELECT team_key, 0 FROM analytics.agent_team_history WHERE agent_key = $1`, agent)
	for team := range teams {
		got := report(t, cs, "sales", fmt.Sprintf(`{"who":{"team":%q},"period":{"week":%q},"metrics":["submitted_sales"]}`, team, dateOf(week)))
		want := f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily s
			WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.TeamOfDay+` = $2`, week, team)
		if g := got.total(t, "submitted_sales"); g != want["total"] {
			t.Errorf("team %s, week of %s: %v, want %v", team, dateOf(week), g, want["total"])
		}
	}
}

// Over a period in which a team joined the floor, the floor total counts the
// team only from the day it joined.
func TestFloorTotalAcrossAJoin(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var team string
	var joined time.Time
	err := f.sql.QueryRow(context.Background(), `SELECT n.team_key, n.effective_from FROM analytics.team_floor_history n
		JOIN analytics.team_floor_history o ON o.team_key = n.team_key AND o.effective_from < n.effective_from
		WHERE n.counts_as_sales AND NOT o.counts_as_sales AND n.effective_from > $1::date - 120`, f.db.Now).Scan(&team, &joined)
	if err != nil {
		t.Fatalf("no team joined the floor in the last 120 days: %v", err)
	}
	start, end := joined.AddDate(0, 0, -10), joined.AddDate(0, 0, 10)
	got := report(t, cs, "hours", fmt.Sprintf(`{"who":{"floor":true},"period":{"start":%q,"end":%q},"metrics":["logged_hours","talk_share"]}`,
		dateOf(start), dateOf(end)))
	want := f.sqlFloats(t, `SELECT 'total', sum(logged_hours) FROM metrics.agent_time_daily s
		WHERE day BETWEEN $1 AND $2 AND `+pgtest.OnFloor, start, end)
	if g := got.total(t, "logged_hours").(float64); !near(g, want["total"]) {
		t.Errorf("floor logged hours %s..%s = %v, want %v", dateOf(start), dateOf(end), g, want["total"])
	}
	// Counting the team for the whole period would be wrong: make sure the
	// trap is real.
	naive := f.sqlFloats(t, `SELECT 'total', sum(logged_hours) FROM metrics.agent_time_daily s
		WHERE day BETWEEN $1 AND $2 AND (`+pgtest.OnFloor+` OR `+pgtest.TeamOfDay+` = $3)`, start, end, team)
	if near(naive["total"], want["total"]) {
		t.Fatalf("the joining team logged no hours before it joined; the test proves nothing")
	}
	sales := report(t, cs, "sales", fmt.Sprintf(`{"who":{"floor":true},"period":{"start":%q,"end":%q},"metrics":["submitted_sales"]}`,
		dateOf(start), dateOf(end)))
	wantSales := f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily s WHERE day BETWEEN $1 AND $2 AND `+pgtest.OnFloor, start, end)
	if g := sales.total(t, "submitted_sales"); g != wantSales["total"] {
		t.Errorf("floor submitted %s..%s = %v, want %v", dateOf(start), dateOf(end), g, wantSales["total"])
	}
}

// A close rate is total submitted over total conversations, which is not the
// average of the teams' close rates.
func TestCloseRateIsARatioOfSums(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	got := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"metrics":["close_rate"]}`)
	parts := f.sqlFloats(t, `SELECT 'num', sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date - 28 AND $1::date - 1 AND `+pgtest.OnFloor+`
		UNION ALL SELECT 'den', sum(submitted + lost)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date - 28 AND $1::date - 1 AND `+pgtest.OnFloor, f.db.Now)
	want := parts["num"] / parts["den"]
	rate := got.total(t, "close_rate").(float64)
	if !near(rate, want) {
		t.Errorf("floor close rate %v, want %v", rate, want)
	}
	if got.total(t, "close_rate_numerator") != parts["num"] || got.total(t, "close_rate_denominator") != parts["den"] {
		t.Errorf("summed parts %v / %v, want %v / %v", got.total(t, "close_rate_numerator"), got.total(t, "close_rate_denominator"), parts["num"], parts["den"])
	}
	teams := f.sqlFloats(t, `SELECT team, sum(submitted)::float8 / sum(submitted + lost) FROM
		(SELECT `+pgtest.TeamOfDay+` AS team, submitted, lost FROM metrics.agent_sales_daily s
		 WHERE day BETWEEN $1::date - 28 AND $1::date - 1 AND `+pgtest.OnFloor+`) x GROUP BY team`, f.db.Now)
	avg := 0.0
	for _, r := range teams {
		avg += r / float64(len(teams))
	}
	if near(rate, avg) || len(teams) < 3 {
		t.Errorf("the floor's close rate %v equals the average of %d team rates %v; the test proves nothing", rate, len(teams), avg)
	}
	byTeam := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_28_days"},"metrics":["close_rate"],"group_by":"team"}`)
	for team, w := range teams {
		if g := byTeam.column(t, "close_rate")[team].(float64); !near(g, w) {
			t.Errorf("team %s close rate %v, want %v", team, g, w)
		}
	}
}

// Hours that have not come in are null, not zero; a day with nothing logged
// is zero, not null.
func TestNullHoursStayNull(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	var missing, idle string
	var missingDay, idleDay time.Time
	ctx := context.Background()
	if err := f.sql.QueryRow(ctx, `SELECT agent_key, day FROM metrics.agent_time_daily WHERE logged_hours IS NULL ORDER BY 1 LIMIT 1`).Scan(&missing, &missingDay); err != nil {
		t.Fatal(err)
	}
	if err := f.sql.QueryRow(ctx, `SELECT agent_key, day FROM metrics.agent_time_daily WHERE logged_hours = 0 AND day < $1::date - 2 ORDER BY day DESC, 1 LIMIT 1`, f.db.Now).Scan(&idle, &idleDay); err != nil {
		t.Fatal(err)
	}
	got := report(t, cs, "hours", fmt.Sprintf(`{"who":{"agent":%q},"period":{"day":%q},"metrics":["logged_hours","talk_share"]}`, missing, dateOf(missingDay)))
	if v := got.total(t, "logged_hours"); v != nil {
		t.Errorf("hours not in yet came back as %v, want null", v)
	}
	if v := got.total(t, "talk_share"); v != nil {
		t.Errorf("a share of hours not in yet came back as %v, want null", v)
	}
	if got["partial"] != true {
		t.Errorf("hours for %s (not settled) are not flagged partial", dateOf(missingDay))
	}
	got = report(t, cs, "hours", fmt.Sprintf(`{"who":{"agent":%q},"period":{"day":%q},"metrics":["logged_hours","talk_share"]}`, idle, dateOf(idleDay)))
	if v := got.total(t, "logged_hours"); v != 0.0 {
		t.Errorf("a day with nothing logged came back as %v, want 0", v)
	}
	if v := got.total(t, "talk_share"); v != nil {
		t.Errorf("talk share with no logged hours came back as %v, want null (nothing to divide by)", v)
	}
}

// More groups than the row cap: the first 50 come back, flagged, with a note
// on how to narrow the call.
func TestRowCap(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	got := report(t, cs, "hours", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"agent"}`)
	if n := len(got["rows"].([]any)); n != 50 || got["truncated"] != true {
		t.Errorf("%d rows, truncated %v; want 50 and true", n, got["truncated"])
	}
	if notes := fmt.Sprint(got["notes"]); !strings.Contains(notes, "narrow the call") {
		t.Errorf("a truncated answer does not tell the client to narrow the call: %s", notes)
	}
	top := report(t, cs, "hours", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"agent","top_n":3,"sort":{"metric":"logged_hours"}}`)
	rows := top["rows"].([]any)
	if len(rows) != 3 || top["truncated"] != false {
		t.Fatalf("top 3: %d rows, truncated %v", len(rows), top["truncated"])
	}
	want := f.sqlFloats(t, `SELECT s.agent_key, sum(logged_hours)::float8 FROM metrics.agent_time_daily s
		WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.OnFloor+` GROUP BY 1 HAVING sum(logged_hours) IS NOT NULL
		ORDER BY 2 DESC, 1 LIMIT 3`, top["period"].(map[string]any)["start"])
	for _, r := range rows {
		row := r.([]any)
		if w, ok := want[row[0].(string)]; !ok || !near(row[2].(float64), w) {
			t.Errorf("top agent %v with %v hours is not in the top three %v", row[0], row[2], want)
		}
	}
}

// Quality figures by week for a team, from summed audits.
func TestQualityByWeek(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "quality", `{"who":{"team":"ospreys"},"period":{"start":"2026-10-05","end":"2026-11-15"},"group_by":"week","metrics":["audits","audit_pass_rate"]}`)
	audits := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(audits_passed + audits_failed) FROM metrics.agent_quality_daily s
		WHERE day BETWEEN '2026-10-05' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'ospreys' GROUP BY 1`)
	rates := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(audits_passed)::float8 / sum(audits_passed + audits_failed)
		FROM metrics.agent_quality_daily s WHERE day BETWEEN '2026-10-05' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'ospreys' GROUP BY 1`)
	gotAudits, gotRates := a.column(t, "audits"), a.column(t, "audit_pass_rate")
	if len(gotAudits) != 6 || len(audits) != 6 {
		t.Fatalf("%d weeks answered, %d in the raw table; want 6", len(gotAudits), len(audits))
	}
	for week, w := range audits {
		if gotAudits[week] != w || !near(gotRates[week].(float64), rates[week]) {
			t.Errorf("week %s: %v audits at %v, want %v at %v", week, gotAudits[week], gotRates[week], w, rates[week])
		}
	}
}
