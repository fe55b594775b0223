package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// "Where do we stand so far": periods to date and running totals by day,
// over MCP, with the expected figures computed in plain SQL over the raw
// tables.

// quarter_to_date runs from the first day of the calendar quarter through
// today, across the month boundary inside it; today is partial.
func TestQuarterToDateAcrossAMonthBoundary(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"ospreys"},"period":{"named":"quarter_to_date"},"group_by":"week","metrics":["submitted_sales","close_rate"]}`)
	p := a["period"].(map[string]any)
	if p["start"] != "2026-10-01" || p["end"] != "2026-11-18" || p["named"] != "quarter_to_date" {
		t.Fatalf("quarter_to_date on 18 November: %v", p)
	}
	// The week of 28 September holds only its days in October.
	want := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-01' AND '2026-11-18' AND `+pgtest.TeamOfDay+` = 'ospreys' GROUP BY 1`)
	got := a.column(t, "submitted_sales")
	if got["2026-09-28"] == nil || got["2026-10-26"] == nil || len(got) != 8 {
		t.Fatalf("weeks %v, want the eight weeks from 28 September", got)
	}
	for week, v := range got {
		if v != want[week] {
			t.Errorf("the week of %s: %v submitted, want %v", week, v, want[week])
		}
	}
	if total := report(t, cs, "sales", `{"who":{"team":"ospreys"},"period":{"named":"quarter_to_date"},"metrics":["submitted_sales"]}`); total.total(t, "submitted_sales") !=
		f.sqlFloats(t, `SELECT 'q', sum(submitted)::float8 FROM metrics.agent_sales_daily s WHERE day BETWEEN '2026-10-01' AND '2026-11-18' AND `+pgtest.TeamOfDay+` = 'ospreys'`)["q"] {
		t.Errorf("the quarter so far: %v", total.total(t, "submitted_sales"))
	}
	if !slices.Contains(toStrings(a["partial_metrics"]), "submitted_sales") || !strings.Contains(strings.Join(notes(a), " "), "Today is not over") {
		t.Errorf("a quarter through today is not flagged partial: %v %v", a["partial_metrics"], notes(a))
	}
	week := report(t, cs, "hours", `{"who":{"team":"ospreys"},"period":{"named":"week_to_date"},"metrics":["logged_hours"]}`)
	if p := week["period"].(map[string]any); p["start"] != "2026-11-16" || p["end"] != "2026-11-18" {
		t.Errorf("week_to_date on Wednesday 18 November: %v", p)
	}
}

// cumulative: true gives each day's running total from the period's first
// day: counts summed, a ratio as the running numerator over the running
// denominator (never a running average of daily rates), a day without
// activity carrying the total, and today, not loaded yet, null.
func TestRunningTotalByDay(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"month_to_date"},"group_by":"day","metrics":["submitted_sales","close_rate"],"cumulative":true}`)
	if a["request"].(map[string]any)["cumulative"] != true {
		t.Errorf("the echo lacks cumulative: %v", a["request"])
	}
	want := func(what string) map[string]float64 {
		return f.sqlFloats(t, `WITH d AS (SELECT g.day::date AS day, coalesce(sum(s.submitted), 0) AS submitted, coalesce(sum(s.submitted + s.lost), 0) AS conversations
			FROM generate_series('2026-11-01'::date, '2026-11-17'::date, '1 day') g(day)
			LEFT JOIN metrics.agent_sales_daily s ON s.day = g.day AND `+pgtest.TeamOfDay+` = 'hawks' GROUP BY 1)
			SELECT to_char(day, 'YYYY-MM-DD'), CASE $1 WHEN 'submitted' THEN sum(submitted) OVER w
			  WHEN 'conversations' THEN sum(conversations) OVER w
			  WHEN 'naive' THEN avg(submitted::float8 / nullif(conversations, 0)) OVER w END::float8
			FROM d WINDOW w AS (ORDER BY day)`, what)
	}
	submitted, conversations, naive := want("submitted"), want("conversations"), want("naive")
	rows := a.rows()
	if len(rows) != 18 {
		t.Fatalf("%d rows, want a row per day from 1 to 18 November", len(rows))
	}
	sums, rates, nums, dens := a.column(t, "submitted_sales"), a.column(t, "close_rate"), a.column(t, "close_rate_numerator"), a.column(t, "close_rate_denominator")
	differs := false
	for day, s := range submitted {
		if sums[day] != s || nums[day] != s || dens[day] != conversations[day] {
			t.Errorf("%s: running %v submitted (%v/%v), want %v (%v/%v)", day, sums[day], nums[day], dens[day], s, s, conversations[day])
		}
		if r, _ := rates[day].(float64); !near(r, s/conversations[day]) {
			t.Errorf("%s: running close rate %v, want %v", day, rates[day], s/conversations[day])
		}
		differs = differs || !near(s/conversations[day], naive[day])
	}
	if !differs {
		t.Fatal("the running average of daily rates equals the running ratio on every day; the test proves nothing")
	}
	if sums["2026-11-18"] != nil || !slices.Contains(toStrings(a["partial_metrics"]), "submitted_sales") {
		t.Errorf("today, not loaded: %v, partial %v", sums["2026-11-18"], a["partial_metrics"])
	}
	r, isError := call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"month_to_date"},"group_by":"team","cumulative":true}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "cumulative" || !slices.Equal(toStrings(e["choices"]), []string{"day", "week", "month", "quarter"}) {
		t.Errorf("a running total by team: %v", r)
	}
}
