package mcpserver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// Calendar quarters and years, over MCP, on Wednesday 18 November 2026,
// with the expected figures computed in plain SQL over the raw tables.

// teamSales sums a team's submitted sales and conversations over days, each
// agent-day counted for the team of that day.
func teamSales(t *testing.T, f *floor, team, from, to string) (submitted, conversations float64) {
	t.Helper()
	v := f.sqlFloats(t, `SELECT 'submitted', coalesce(sum(submitted), 0)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date AND $2::date AND `+pgtest.TeamOfDay+` = $3
		UNION ALL SELECT 'conversations', coalesce(sum(submitted + lost), 0)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1::date AND $2::date AND `+pgtest.TeamOfDay+` = $3`, from, to, team)
	return v["submitted"], v["conversations"]
}

// last_quarter is the third calendar quarter, set beside the second (not
// the 92 days before it), each figure and each ratio from its own period's
// summed parts, with a note that the quarters differ in days.
func TestLastQuarterBesideTheQuarterBefore(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_quarter"},"metrics":["submitted_sales","close_rate"],"compare_to":"previous_period"}`)
	p, prev := a["period"].(map[string]any), a["previous_period"].(map[string]any)
	if p["start"] != "2026-07-01" || p["end"] != "2026-09-30" || p["days"] != 92.0 || p["named"] != "last_quarter" {
		t.Fatalf("last_quarter on 18 November: %v", p)
	}
	if prev["start"] != "2026-04-01" || prev["end"] != "2026-06-30" {
		t.Fatalf("the quarter before the third: %v", prev)
	}
	sub, conv := teamSales(t, f, "hawks", "2026-07-01", "2026-09-30")
	subBefore, convBefore := teamSales(t, f, "hawks", "2026-04-01", "2026-06-30")
	if sub == 0 || subBefore == 0 {
		t.Fatalf("no sales in the quarters (%v, %v); the test proves nothing", sub, subBefore)
	}
	for col, w := range map[string]float64{
		"submitted_sales": sub, "submitted_sales_previous": subBefore, "submitted_sales_change": sub - subBefore,
		"close_rate_numerator": sub, "close_rate_denominator": conv, "close_rate": sub / conv,
		"close_rate_previous": subBefore / convBefore, "close_rate_change_points": 100 * (sub/conv - subBefore/convBefore),
	} {
		if g, ok := a.total(t, col).(float64); !ok || !near(g, w) {
			t.Errorf("last quarter beside the one before: %s = %v, want %v", col, a.total(t, col), w)
		}
	}
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "2026-07-01 to 2026-09-30 has 92 days") || !strings.Contains(n, "2026-04-01 to 2026-06-30 has 91 days") {
		t.Errorf("no note that the quarters differ in days: %s", n)
	}
	if len(toStrings(a["partial_metrics"])) != 0 {
		t.Errorf("a finished quarter is partial: %v", a["partial_metrics"])
	}

	// The quarter so far is the same days as quarter_to_date, and partial.
	q := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"this_quarter"},"metrics":["submitted_sales"]}`)
	if p := q["period"].(map[string]any); p["start"] != "2026-10-01" || p["end"] != "2026-11-18" {
		t.Errorf("this_quarter on 18 November: %v", p)
	}
	if sub, _ := teamSales(t, f, "hawks", "2026-10-01", "2026-11-18"); q.total(t, "submitted_sales") != sub {
		t.Errorf("this quarter: %v submitted, want %v", q.total(t, "submitted_sales"), sub)
	}
	if !slices.Contains(toStrings(q["partial_metrics"]), "submitted_sales") {
		t.Errorf("a quarter through today is not partial: %v", q["partial_metrics"])
	}
}

// A year is longer than rows by day hold: by day it is refused, naming
// group_by week, month and quarter, and by week it answers, the first week cut to its days
// in the year. Last year starts before the data, and says so; set beside
// the year before, which holds no data, it is refused.
func TestYearsByWeekAndBeforeTheData(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	r, isError := call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"year_to_date"},"group_by":"day"}`)
	e, _ := r["error"].(map[string]any)
	if !isError || e["argument"] != "group_by" || !slices.Equal(toStrings(e["choices"]), []string{"week", "month", "quarter"}) ||
		!strings.Contains(e["rule"].(string), "at most 120 days") || !strings.Contains(e["rule"].(string), "group by week (47 rows), month or quarter") {
		t.Fatalf("a year so far by day: %v", r)
	}

	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"year_to_date"},"group_by":"week","metrics":["submitted_sales"]}`)
	if p := a["period"].(map[string]any); p["start"] != "2026-01-01" || p["end"] != "2026-11-18" || p["days"] != 322.0 {
		t.Fatalf("year_to_date on 18 November: %v", p)
	}
	want := f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-01-01' AND '2026-11-18' AND `+pgtest.TeamOfDay+` = 'hawks' GROUP BY 1`)
	got := a.column(t, "submitted_sales")
	if len(got) != 47 || a["truncated"] != false {
		t.Fatalf("%d weeks (truncated %v), want the 47 weeks from 29 December", len(got), a["truncated"])
	}
	for week, v := range got {
		if w, ok := want[week]; ok && v != w {
			t.Errorf("the week of %s: %v submitted, want %v", week, v, w)
		}
	}
	if d := a.column(t, "days")["2025-12-29"]; d != 4.0 || !strings.Contains(strings.Join(notes(a), " "), "The period cuts weeks short") {
		t.Errorf("the first week holds %v days of the year; notes %v", d, notes(a))
	}

	y := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_year"},"metrics":["submitted_sales"]}`)
	if p := y["period"].(map[string]any); p["start"] != "2025-01-01" || p["end"] != "2025-12-31" || p["days"] != 365.0 {
		t.Fatalf("last_year in 2026: %v", p)
	}
	if sub, _ := teamSales(t, f, "hawks", "2025-01-01", "2025-12-31"); sub == 0 || y.total(t, "submitted_sales") != sub {
		t.Errorf("last year: %v submitted, want %v", y.total(t, "submitted_sales"), sub)
	}
	if n := strings.Join(notes(y), " "); !strings.Contains(n, "the data starts on 2025-10-15") {
		t.Errorf("last year starts before the data, and the notes do not say so: %s", n)
	}
	r, isError = call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_year"},"compare_to":"previous_period"}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "compare_to" || !strings.Contains(e["rule"].(string), "2024-01-01 to 2024-12-31") {
		t.Errorf("last year beside the year before the data: %v", r)
	}
}

// By month, a range runs past 120 days: each month's figures and close
// rate from its own summed parts, the months before the data null, and the
// months the range cuts saying which days they hold. By quarter, a running
// total over the year so far ends at the year's total. By day, the same
// range is refused, naming the coarser rows.
func TestMonthsAndQuartersPastRowsByDay(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"start":"2025-08-20","end":"2026-11-17"},"group_by":"month","metrics":["submitted_sales","close_rate"]}`)
	if p := a["period"].(map[string]any); p["start"] != "2025-08-20" || p["end"] != "2026-11-17" || p["days"] != 455.0 {
		t.Fatalf("a range of 455 days by month: %v", p)
	}
	sub := f.sqlFloats(t, `SELECT to_char(date_trunc('month', day), 'YYYY-MM-DD'), sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2025-08-20' AND '2026-11-17' AND `+pgtest.TeamOfDay+` = 'hawks' GROUP BY 1`)
	conv := f.sqlFloats(t, `SELECT to_char(date_trunc('month', day), 'YYYY-MM-DD'), sum(submitted + lost)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2025-08-20' AND '2026-11-17' AND `+pgtest.TeamOfDay+` = 'hawks' GROUP BY 1`)
	got, rates, days := a.column(t, "submitted_sales"), a.column(t, "close_rate"), a.column(t, "days")
	if len(got) != 16 || a["truncated"] != false {
		t.Fatalf("%d months (truncated %v), want August 2025 to November 2026", len(got), a["truncated"])
	}
	if len(sub) < 13 {
		t.Fatalf("sales in only %d months; the test proves nothing", len(sub))
	}
	for month, v := range got {
		w, ok := sub[month]
		switch {
		case !ok && v != nil:
			t.Errorf("the month of %s, before the data: %v submitted, want null", month, v)
		case ok && v != w:
			t.Errorf("the month of %s: %v submitted, want %v", month, v, w)
		case ok && !near(rates[month].(float64), w/conv[month]):
			t.Errorf("the month of %s: close rate %v, want %v", month, rates[month], w/conv[month])
		}
	}
	if days["2025-08-01"] != 12.0 || days["2026-11-01"] != 17.0 || days["2026-02-01"] != 28.0 {
		t.Errorf("days held: August %v, November %v, February %v", days["2025-08-01"], days["2026-11-01"], days["2026-02-01"])
	}
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "The period cuts months short: the month of 2025-08-01 holds only 2025-08-20 to 2025-08-31 (12 of 31 days)") ||
		!strings.Contains(n, "the month of 2026-11-01 holds only 2026-11-01 to 2026-11-17 (17 of 30 days)") {
		t.Errorf("no note on the months the range cuts: %s", n)
	}

	q := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"this_year"},"group_by":"quarter","cumulative":true,"metrics":["submitted_sales"]}`)
	run := q.column(t, "submitted_sales")
	total := 0.0
	for i, quarter := range []string{"2026-01-01", "2026-04-01", "2026-07-01", "2026-10-01"} {
		s, _ := teamSales(t, f, "hawks", quarter, []string{"2026-03-31", "2026-06-30", "2026-09-30", "2026-11-18"}[i])
		total += s
		if run[quarter] != total {
			t.Errorf("running total through the quarter of %s: %v, want %v", quarter, run[quarter], total)
		}
	}
	if d := q.column(t, "days")["2026-10-01"]; len(run) != 4 || d != 49.0 {
		t.Errorf("%d quarters, the last holding %v days, want 4 and 49", len(run), d)
	}

	r, isError := call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"start":"2025-08-20","end":"2026-11-17"},"group_by":"day"}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "period" || !strings.Contains(e["rule"].(string), "group by week, month, quarter, team or agent") {
		t.Errorf("455 days by day: %v", r)
	}
	r, isError = call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"start":"2024-11-17","end":"2026-11-17"},"group_by":"quarter"}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "period" || !strings.Contains(e["rule"].(string), "longer than 24 months") {
		t.Errorf("a range of more than 24 months: %v", r)
	}
}

// teamWorkingDays counts the days on which an agent counted for a team that
// day logged time.
func teamWorkingDays(t *testing.T, f *floor, team, from, to string) float64 {
	t.Helper()
	return f.sqlFloats(t, `SELECT 'days', count(DISTINCT day)::float8 FROM metrics.agent_time_daily s
		WHERE day BETWEEN $1::date AND $2::date AND logged_hours > 0 AND `+pgtest.TeamOfDay+` = $3`, from, to, team)["days"]
}

// Against last year: last week beside the same ISO week a year earlier (its
// Monday a day later in the calendar than the same dates), each figure and
// the close rate's change from each week's own summed parts, the weeks'
// working days named when they differ; this month so far beside the same
// days of last November; last month, a year before which the data had not
// begun, refused naming those days and the first day of data.
func TestAgainstTheSameDaysLastYear(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_week"},"metrics":["submitted_sales","close_rate"],"compare_to":"previous_year"}`)
	p, prev := a["period"].(map[string]any), a["previous_period"].(map[string]any)
	if p["start"] != "2026-11-09" || p["end"] != "2026-11-15" || prev["start"] != "2025-11-10" || prev["end"] != "2025-11-16" {
		t.Fatalf("last week (ISO week 46 of 2026) beside a year earlier: %v beside %v", p, prev)
	}
	sub, conv := teamSales(t, f, "hawks", "2026-11-09", "2026-11-15")
	subBefore, convBefore := teamSales(t, f, "hawks", "2025-11-10", "2025-11-16")
	if sub == 0 || subBefore == 0 {
		t.Fatalf("no sales in the weeks (%v, %v); the test proves nothing", sub, subBefore)
	}
	for col, w := range map[string]float64{
		"submitted_sales": sub, "submitted_sales_previous": subBefore, "submitted_sales_change": sub - subBefore,
		"close_rate_numerator": sub, "close_rate_denominator": conv, "close_rate_previous_denominator": convBefore,
		"close_rate": sub / conv, "close_rate_previous": subBefore / convBefore, "close_rate_change_points": 100 * (sub/conv - subBefore/convBefore),
	} {
		if g, ok := a.total(t, col).(float64); !ok || !near(g, w) {
			t.Errorf("last week beside a year earlier: %s = %v, want %v", col, a.total(t, col), w)
		}
	}
	n := strings.Join(notes(a), " ")
	if !strings.Contains(n, "the same ISO week a year earlier: week 46 of 2025, 2025-11-10 to 2025-11-16") {
		t.Errorf("no note naming the week a year earlier: %s", n)
	}
	// Working days differ or not, as the raw rows say.
	unlike := func(n, from, to, fromBefore, toBefore string) {
		t.Helper()
		work, workBefore := teamWorkingDays(t, f, "hawks", from, to), teamWorkingDays(t, f, "hawks", fromBefore, toBefore)
		if said := strings.Contains(n, "The two periods are not alike"); said != (work != workBefore) ||
			said && !strings.Contains(n, fmt.Sprintf(" of them working days; the same days a year earlier, %s to %s has %d days, %v of them", fromBefore, toBefore,
				len(f.sqlKeys(t, `SELECT g::date::text FROM generate_series($1::date, $2::date, '1 day') g`, fromBefore, toBefore)), workBefore)) ||
			said && !strings.Contains(n, fmt.Sprintf("%s to %s has ", from, to)) || said && !strings.Contains(n, fmt.Sprintf(", %v of them working days;", work)) {
			t.Errorf("%s to %s: %v working days, %v a year earlier, and the notes: %s", from, to, work, workBefore, n)
		}
	}
	unlike(n, "2026-11-09", "2026-11-15", "2025-11-10", "2025-11-16")
	// The agents with rows for the team in one week and none in the other
	// are named.
	for _, key := range f.sqlKeys(t, `(SELECT agent_key FROM metrics.agent_sales_daily s WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'hawks'
		EXCEPT SELECT agent_key FROM metrics.agent_sales_daily s WHERE day BETWEEN '2025-11-10' AND '2025-11-16' AND `+pgtest.TeamOfDay+` = 'hawks')
		UNION (SELECT agent_key FROM metrics.agent_sales_daily s WHERE day BETWEEN '2025-11-10' AND '2025-11-16' AND `+pgtest.TeamOfDay+` = 'hawks'
		EXCEPT SELECT agent_key FROM metrics.agent_sales_daily s WHERE day BETWEEN '2026-11-09' AND '2026-11-15' AND `+pgtest.TeamOfDay+` = 'hawks')`) {
		if !strings.Contains(n, "Not the same agents are counted for the team in both periods") || !strings.Contains(n, "("+key+")") {
			t.Errorf("%s has sales for the team in one week only, and the notes do not name it: %s", key, n)
		}
	}

	m := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"this_month"},"metrics":["submitted_sales"],"compare_to":"previous_year"}`)
	p, prev = m["period"].(map[string]any), m["previous_period"].(map[string]any)
	end := p["end"].(string)
	if p["start"] != "2026-11-01" || p["asked_end"] != "2026-11-18" || end >= "2026-11-18" || prev["start"] != "2025-11-01" || prev["end"] != "2025"+end[4:] {
		t.Fatalf("this month so far beside a year earlier: %v beside %v", p, prev)
	}
	sub, _ = teamSales(t, f, "hawks", "2026-11-01", end)
	subBefore, _ = teamSales(t, f, "hawks", "2025-11-01", "2025"+end[4:])
	if m.total(t, "submitted_sales") != sub || m.total(t, "submitted_sales_previous") != subBefore {
		t.Errorf("this month so far: %v beside %v, want %v beside %v", m.total(t, "submitted_sales"), m.total(t, "submitted_sales_previous"), sub, subBefore)
	}
	n = strings.Join(notes(m), " ")
	if !strings.Contains(n, "a year earlier, 2025-11-01 to 2025"+end[4:]) {
		t.Errorf("no note on the days so far a year earlier: %s", n)
	}
	unlike(n, "2026-11-01", end, "2025-11-01", "2025"+end[4:])

	r, isError := call(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"last_month"},"compare_to":"previous_year"}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "compare_to" ||
		!strings.Contains(e["rule"].(string), "the same days a year earlier (2025-10-01 to 2025-10-31)") || !strings.Contains(e["rule"].(string), "starts on 2025-10-15") {
		t.Errorf("last month beside a year earlier, before the data: %v", r)
	}
}
