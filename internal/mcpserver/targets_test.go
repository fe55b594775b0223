package mcpserver_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// compare_to: "target" sets figures beside the teams' targets, over MCP,
// with the expected figures and targets read in plain SQL from the raw
// tables.

// latestTarget is the version of a team's target that holds: the one set
// last.
func (f *floor) latestTarget(t *testing.T, team, metric, kind, start string) float64 {
	t.Helper()
	var v float64
	if err := f.sql.QueryRow(context.Background(), `SELECT value::float8 FROM analytics.targets
		WHERE team_key = $1 AND metric = $2 AND period_kind = $3 AND period_start = $4 ORDER BY set_at DESC LIMIT 1`,
		team, metric, kind, start).Scan(&v); err != nil {
		t.Fatalf("no %s target for %s: %v", metric, team, err)
	}
	return v
}

// The Falcons' October target was raised in the middle of the month: their
// attainment over October is against the raised target, and the notes say
// who raised it, when and why, and what it replaced.
func TestAttainmentAgainstATargetChangedMidMonth(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"falcons"},"period":{"named":"last_month"},"compare_to":"target"}`)
	var versions int
	var first float64
	f.sql.QueryRow(context.Background(), `SELECT count(*), (array_agg(value::float8 ORDER BY set_at))[1] FROM analytics.targets
		WHERE team_key = 'falcons' AND metric = 'submitted_sales' AND period_kind = 'month' AND period_start = '2026-10-01'`).Scan(&versions, &first)
	target := f.latestTarget(t, "falcons", "submitted_sales", "month", "2026-10-01")
	if versions < 2 || first == target {
		t.Fatalf("the Falcons' October target has %d versions (first %v, last %v); the test needs a revision", versions, first, target)
	}
	sums := f.sqlFloats(t, `SELECT 'submitted', sum(submitted)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-01' AND '2026-10-31' AND `+pgtest.TeamOfDay+` = 'falcons'
		UNION ALL SELECT 'conversations', sum(submitted + lost)::float8 FROM metrics.agent_sales_daily s
		WHERE day BETWEEN '2026-10-01' AND '2026-10-31' AND `+pgtest.TeamOfDay+` = 'falcons'`)
	rate := f.latestTarget(t, "falcons", "close_rate", "month", "2026-10-01")
	for col, want := range map[string]float64{
		"submitted_sales": sums["submitted"], "submitted_sales_target": target, "submitted_sales_attainment": sums["submitted"] / target,
		"close_rate_target": rate, "close_rate_target_gap_points": 100 * (sums["submitted"]/sums["conversations"] - rate),
	} {
		if g, ok := a.total(t, col).(float64); !ok || !near(g, want) {
			t.Errorf("the Falcons in October: %s = %v, want %v", col, a.total(t, col), want)
		}
	}
	if g, _ := a.total(t, "submitted_sales_attainment").(float64); near(g, sums["submitted"]/first) {
		t.Errorf("attainment %v is against the first target (%v), not the raised one (%v)", g, first, target)
	}
	n := strings.Join(notes(a), " ")
	if !strings.Contains(n, "falcons submitted_sales "+strconv.FormatFloat(target, 'g', -1, 64)+", set by ") || !strings.Contains(n, "on 2026-10-15") ||
		!strings.Contains(n, "replacing "+strconv.FormatFloat(first, 'g', -1, 64)) {
		t.Errorf("the notes do not say who raised the target, when, and what it replaced: %s", n)
	}
}

// A team with no target has null targets and attainment and a note, never
// zero; the floor's target, the sum of its teams', is then null too, and a
// rate has no floor target at all. Where every team has one, the floor's
// is their sum.
func TestATeamWithNoTarget(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"group_by":"team","compare_to":"target"}`)
	targets, attainment := a.column(t, "submitted_sales_target"), a.column(t, "submitted_sales_attainment")
	var without []string
	for team := range targets {
		var n int
		f.sql.QueryRow(context.Background(), `SELECT count(*) FROM analytics.targets WHERE team_key = $1 AND period_kind = 'week' AND period_start = '2026-11-09'`, team).Scan(&n)
		if n == 0 {
			without = append(without, team)
			if targets[team] != nil || attainment[team] != nil {
				t.Errorf("%s has no target, but shows %v (attainment %v); want null", team, targets[team], attainment[team])
			}
			continue
		}
		if want := f.latestTarget(t, team, "submitted_sales", "week", "2026-11-09"); targets[team] != want {
			t.Errorf("%s's target %v, want %v", team, targets[team], want)
		}
	}
	if !slices.Equal(without, []string{"kestrels"}) {
		t.Fatalf("teams without a target last week: %v; the test expects the Kestrels alone", without)
	}
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "No target is set for the week of 2026-11-09: submitted_sales for kestrels") ||
		!strings.Contains(n, "null, not zero") {
		t.Errorf("no note on the Kestrels' missing target: %s", n)
	}
	floor := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"},"compare_to":"target"}`)
	month := report(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_month"},"compare_to":"target"}`)
	if floor.total(t, "submitted_sales_target") != nil || month.total(t, "close_rate_target") != nil {
		t.Errorf("the floor's targets with a team lacking one: %v; a rate's for the floor: %v; want null", floor.total(t, "submitted_sales_target"), month.total(t, "close_rate_target"))
	}
	// In a week before the Kestrels joined the floor, the floor's target is
	// the sum of its teams'.
	week := report(t, cs, "sales", `{"who":{"floor":true},"period":{"week":"2026-09-07"},"metrics":["submitted_sales"],"compare_to":"target"}`)
	sum := f.sqlFloats(t, `SELECT 'sum', sum(value)::float8 FROM (SELECT DISTINCT ON (team_key) team_key, value FROM analytics.targets t
		WHERE metric = 'submitted_sales' AND period_kind = 'week' AND period_start = '2026-09-07'
		  AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = t.team_key AND f.effective_from <= '2026-09-13'
		       ORDER BY f.effective_from DESC LIMIT 1)
		ORDER BY team_key, set_at DESC) x`)["sum"]
	if week.total(t, "submitted_sales_target") != sum {
		t.Errorf("the floor's target for the week of 7 September: %v, want the sum of its teams' %v (notes %v)", week.total(t, "submitted_sales_target"), sum, notes(week))
	}
}

// A month so far is held to its share of the month's target for a count,
// the share of the days its figures cover (through yesterday, the last day
// the nightly build loaded), and to the rate's target as set.
func TestTargetsProRatedSoFarThisMonth(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"month_to_date"},"compare_to":"target"}`)
	target := f.latestTarget(t, "hawks", "submitted_sales", "month", "2026-11-01")
	var loaded int
	f.sql.QueryRow(context.Background(), `SELECT extract(day FROM max(covers_day))::int FROM metrics.load_runs
		WHERE relation = 'metrics.agent_sales_daily' AND finished_at IS NOT NULL`).Scan(&loaded)
	if g, _ := a.total(t, "submitted_sales_target").(float64); loaded != 17 || !near(g, target*17/30) {
		t.Errorf("November loaded through the %dth: target %v, want %v", loaded, g, target*17/30)
	}
	if g := a.total(t, "close_rate_target"); g != f.latestTarget(t, "hawks", "close_rate", "month", "2026-11-01") {
		t.Errorf("a rate's target is not pro-rated: %v", g)
	}
	for _, c := range []struct{ args, argument string }{
		{`{"who":{"agent":"a001"},"period":{"named":"last_week"},"compare_to":"target"}`, "compare_to"},
		{`{"who":{"floor":true},"period":{"named":"last_28_days"},"compare_to":"target"}`, "period"},
		{`{"who":{"floor":true},"period":{"named":"last_week"},"metrics":["board_sales"],"compare_to":"target"}`, "compare_to"},
	} {
		r, isError := call(t, cs, "sales", c.args)
		if e, _ := r["error"].(map[string]any); !isError || e["argument"] != c.argument {
			t.Errorf("%s: %v, want a refusal of %s", c.args, r, c.argument)
		}
	}
}

// team_weeks with compare_to target sets each week beside its own week's
// target: the team's, or for the floor the sum of the teams on the floor
// that week, null where one of them has none; the total beside the sum of
// the weeks' targets. The close rate's targets are set by month, so no
// week carries one, and a note says so; the sections without targets stay
// as they are. (No team joins or leaves the floor in these weeks; a team's
// days on the floor are yardstick_test.go's.)
func TestTeamWeeksBesideTheirTargets(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	weekSums := func(team string) map[string]float64 {
		where := pgtest.OnFloor
		if team != "" {
			where = pgtest.TeamOfDay + ` = '` + team + `'`
		}
		return f.sqlFloats(t, `SELECT to_char(date_trunc('week', day), 'YYYY-MM-DD'), sum(submitted)::float8
			FROM metrics.agent_sales_daily s WHERE day BETWEEN '2026-10-19' AND '2026-11-15' AND `+where+` GROUP BY 1`)
	}
	// The teams on the floor on some day of a week, each with its latest
	// target for the week, or none.
	floorTargets := func(week string) (float64, bool) {
		var sum float64
		var missing int
		if err := f.sql.QueryRow(context.Background(), `SELECT coalesce(sum(t.value), 0)::float8, count(*) FILTER (WHERE t.value IS NULL)
			FROM analytics.dim_team d
			LEFT JOIN LATERAL (SELECT value FROM analytics.targets t WHERE t.team_key = d.team_key AND t.metric = 'submitted_sales'
			  AND t.period_kind = 'week' AND t.period_start = $1::date ORDER BY set_at DESC LIMIT 1) t ON true
			WHERE (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = d.team_key AND f.effective_from <= $1::date
			       ORDER BY f.effective_from DESC LIMIT 1)
			   OR EXISTS (SELECT 1 FROM analytics.team_floor_history f WHERE f.team_key = d.team_key AND f.counts_as_sales
			       AND f.effective_from BETWEEN $1::date AND $1::date + 6)`, week).Scan(&sum, &missing); err != nil {
			t.Fatal(err)
		}
		return sum, missing == 0
	}
	weeks := []string{"2026-10-19", "2026-10-26", "2026-11-02", "2026-11-09"}
	for _, c := range []struct{ who, team string }{{`{"team":"hawks"}`, "hawks"}, {`{"floor":true}`, ""}} {
		a, isError := call(t, cs, "team_weeks", `{"who":`+c.who+`,"compare_to":"target"}`)
		if isError {
			t.Fatalf("team_weeks %s against target: %v", c.who, a)
		}
		sums := weekSums(c.team)
		var total, totalTarget float64
		allSet := true
		var unset []string // the weeks a team on the floor has no target for
		for _, s := range a["sections"].([]any) {
			sec := s.(map[string]any)
			cols := toStrings(sec["columns"])
			if sec["id"] != "sales" {
				if slices.ContainsFunc(cols, func(c string) bool { return strings.Contains(c, "_target") }) {
					t.Errorf("%s: section %v has no metric with targets, but columns %v", c.who, sec["id"], cols)
				}
				continue
			}
			if slices.Contains(cols, "close_rate_target") || !slices.Contains(cols, "submitted_sales_target") {
				t.Errorf("%s: the sales section's columns %v; want submitted_sales_target and no weekly close_rate_target", c.who, cols)
			}
			at := func(row []any, col string) any { return row[slices.Index(cols, col)] }
			rows := sec["rows"].([]any)
			if len(rows) != len(weeks) {
				t.Fatalf("%s: %d weeks, want %d", c.who, len(rows), len(weeks))
			}
			for i, r := range rows {
				row := r.([]any)
				week := weeks[i]
				want, set := 0.0, true
				if c.team != "" {
					want = f.latestTarget(t, c.team, "submitted_sales", "week", week)
				} else {
					want, set = floorTargets(week)
				}
				total += sums[week]
				totalTarget += want
				allSet = allSet && set
				if row[0] != week || at(row, "submitted_sales") != sums[week] {
					t.Errorf("%s, row %d: the week of %v with %v submitted; want %s with %v", c.who, i, row[0], at(row, "submitted_sales"), week, sums[week])
				}
				if !set {
					unset = append(unset, week)
					if at(row, "submitted_sales_target") != nil || at(row, "submitted_sales_attainment") != nil {
						t.Errorf("%s, the week of %s: a team on the floor has no target, yet %v (%v); want null",
							c.who, week, at(row, "submitted_sales_target"), at(row, "submitted_sales_attainment"))
					}
					continue
				}
				if g, _ := at(row, "submitted_sales_attainment").(float64); at(row, "submitted_sales_target") != want || !near(g, sums[week]/want) {
					t.Errorf("%s, the week of %s: target %v, attainment %v; want %v and %v", c.who, week,
						at(row, "submitted_sales_target"), at(row, "submitted_sales_attainment"), want, sums[week]/want)
				}
			}
			tot := sec["total"].([]any)
			switch g, _ := at(tot, "submitted_sales_attainment").(float64); {
			case at(tot, "submitted_sales") != total:
				t.Errorf("%s: the total %v, want %v", c.who, at(tot, "submitted_sales"), total)
			case !allSet && at(tot, "submitted_sales_target") != nil:
				t.Errorf("%s: a week has no target, yet the total's is %v", c.who, at(tot, "submitted_sales_target"))
			case allSet && (at(tot, "submitted_sales_target") != totalTarget || !near(g, total/totalTarget)):
				t.Errorf("%s: the total's target %v and attainment %v; want the weeks' sum %v and %v", c.who,
					at(tot, "submitted_sales_target"), g, totalTarget, total/totalTarget)
			}
		}
		n := strings.Join(notes(a), " ")
		if !strings.Contains(n, "close_rate: its targets are set by month only") || !strings.Contains(n, "for the week of 2026-11-09, set by ") {
			t.Errorf("%s: the notes do not say the close rate has no weekly targets, or who set the weeks': %s", c.who, n)
		}
		for _, w := range unset {
			if !regexp.MustCompile(`\(the weeks? of [0-9, -]*` + w).MatchString(n) {
				t.Errorf("%s: the week of %s has no target for a team on the floor, and the notes do not name it: %s", c.who, w, n)
			}
		}
		if len(unset) == 0 && strings.Contains(n, "No target is set") {
			t.Errorf("%s: every week has its target, yet a note says one is missing: %s", c.who, n)
		}
		if c.team == "" && allSet {
			t.Errorf("the floor: every week had every team's target; the test expects a week with a team without one (the Kestrels)")
		}
	}
	r, isError := call(t, cs, "team_weeks", `{"who":{"agent":"a001"},"compare_to":"target"}`)
	if e, _ := r["error"].(map[string]any); !isError || e["argument"] != "compare_to" {
		t.Errorf("team_weeks for an agent against target: %v, want a refusal of compare_to", r)
	}
}
