package mcpserver_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// league with rank_by: "attainment" ranks the floor's teams by their
// figure over their own target, over MCP, with the expected figures,
// targets and ranks read in plain SQL from the raw tables.

// leagueRows reads a league's only section as rows by column name.
func leagueRows(t *testing.T, a answer) (rows []map[string]any, total map[string]any) {
	t.Helper()
	return sectionRows(a, "league")
}

// expectedRanks ranks values high to low, teams without one last and
// unranked, ties by team sharing a rank: the league's rule, written again.
func expectedRanks(values map[string]*float64) (order []string, rank map[string]any) {
	for team := range values {
		order = append(order, team)
	}
	slices.SortFunc(order, func(a, b string) int {
		va, vb := values[a], values[b]
		switch {
		case va == nil && vb == nil:
		case va == nil:
			return 1
		case vb == nil:
			return -1
		case *va != *vb:
			return cmp.Compare(*vb, *va)
		}
		return strings.Compare(a, b)
	})
	rank = map[string]any{}
	for i, team := range order {
		switch v := values[team]; {
		case v == nil:
			rank[team] = nil
		case i > 0 && values[order[i-1]] != nil && near(*values[order[i-1]], *v):
			rank[team] = rank[order[i-1]]
		default:
			rank[team] = float64(i + 1)
		}
	}
	return order, rank
}

// By submitted sales over last week's targets, and by close rate against
// last month's (a rate's target is set by the month): every team's
// attainment is its figure over its latest target, or the gap in points,
// the Kestrels (no target) come last without a rank, and the floor's total
// has no target since one team lacks it.
func TestLeagueRankedByAttainment(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for _, c := range []struct {
		metric, column, period, from, to, kind, what string
		want                                         func(sums map[string]float64, team string, target float64) float64
	}{
		{"submitted_sales", "submitted_sales_attainment", "last_week", "2026-11-09", "2026-11-15", "week", "the week of 2026-11-09",
			func(sums map[string]float64, team string, target float64) float64 {
				return sums[team+"/submitted"] / target
			}},
		{"close_rate", "close_rate_target_gap_points", "last_month", "2026-10-01", "2026-10-31", "month", "the month of 2026-10",
			func(sums map[string]float64, team string, target float64) float64 {
				return 100 * (sums[team+"/submitted"]/sums[team+"/conversations"] - target)
			}},
	} {
		sums := f.sqlFloats(t, `SELECT `+pgtest.TeamOfDay+` || '/' || k, sum(v)::float8 FROM (
			SELECT s.*, 'submitted' AS k, submitted AS v FROM metrics.agent_sales_daily s
			UNION ALL SELECT s.*, 'conversations', submitted + lost FROM metrics.agent_sales_daily s) s
			WHERE day BETWEEN $1 AND $2 AND `+pgtest.OnFloor+` GROUP BY 1`, c.from, c.to)
		targets := f.sqlFloats(t, `SELECT DISTINCT ON (team_key, metric) team_key || '/' || metric, value::float8 FROM analytics.targets
			WHERE period_kind = $1 AND period_start = $2 ORDER BY team_key, metric, set_at DESC`, c.kind, c.from)
		a, isError := call(t, cs, "league", `{"period":{"named":"`+c.period+`"},"metrics":["submitted_sales","close_rate"],
			"sort":{"metric":"`+c.metric+`"},"rank_by":"attainment"}`)
		if isError {
			t.Fatalf("league by attainment of %s: %v", c.metric, a)
		}
		rows, total := leagueRows(t, a)
		want := map[string]*float64{}
		for key := range sums {
			team := strings.Split(key, "/")[0]
			want[team] = nil
			if target, ok := targets[team+"/"+c.metric]; ok {
				v := c.want(sums, team, target)
				want[team] = &v
			}
		}
		order, rank := expectedRanks(want)
		var got []string
		for _, r := range rows {
			team := r["team"].(string)
			got = append(got, team)
			if r["rank"] != rank[team] {
				t.Errorf("by %s: %s ranked %v, want %v", c.metric, team, r["rank"], rank[team])
			}
			switch g, _ := r[c.column].(float64); {
			case want[team] == nil && r[c.column] != nil:
				t.Errorf("by %s: %s has no target but %s %v", c.metric, team, c.column, r[c.column])
			case want[team] != nil && !near(g, *want[team]):
				t.Errorf("by %s: %s's %s %v, want %v", c.metric, team, c.column, r[c.column], *want[team])
			}
			if target, ok := targets[team+"/"+c.metric]; ok && r[c.metric+"_target"] != target {
				t.Errorf("by %s: %s's target %v, want %v", c.metric, team, r[c.metric+"_target"], target)
			}
		}
		if !slices.Equal(got, order) {
			t.Errorf("by %s: teams in the order %v, want %v", c.metric, got, order)
		}
		if len(rows) < 3 || want["kestrels"] != nil || rows[len(rows)-1]["team"] != "kestrels" || rows[len(rows)-1]["rank"] != nil {
			t.Errorf("by %s: the Kestrels, without a target, should come last and unranked: %v", c.metric, got)
		}
		if total["submitted_sales_target"] != nil || total["close_rate_target"] != nil {
			t.Errorf("by %s: the floor's total has targets %v, %v with a team lacking one", c.metric, total["submitted_sales_target"], total["close_rate_target"])
		}
		if n := strings.Join(notes(a), " "); !strings.Contains(n, "No target is set for "+c.what) || !strings.Contains(n, "without a rank") {
			t.Errorf("by %s: no note on the team without a target or on the ranking: %s", c.metric, n)
		}
	}
	// A week before the Kestrels joined, every team has a target, and the
	// floor's is their sum.
	a, _ := call(t, cs, "league", `{"period":{"week":"2026-09-07"},"metrics":["submitted_sales"],"rank_by":"attainment"}`)
	_, total := leagueRows(t, a)
	sum := f.sqlFloats(t, `SELECT 'sum', sum(value)::float8 FROM (SELECT DISTINCT ON (team_key) team_key, value FROM analytics.targets t
		WHERE metric = 'submitted_sales' AND period_kind = 'week' AND period_start = '2026-09-07'
		  AND (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = t.team_key AND f.effective_from <= '2026-09-13'
		       ORDER BY f.effective_from DESC LIMIT 1)
		ORDER BY team_key, set_at DESC) x`)["sum"]
	if total["submitted_sales_target"] != sum {
		t.Errorf("the floor's target for the week of 7 September: %v, want the sum of its teams' %v", total["submitted_sales_target"], sum)
	}
}

// rank_by attainment keeps the league's refusals (days not final) and adds
// its own: a metric without targets, a period targets are not set for.
func TestLeagueByAttainmentRefusals(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	for _, c := range []struct{ args, argument string }{
		{`{"period":{"named":"this_week"},"rank_by":"attainment"}`, "period"},
		{`{"period":{"named":"last_week"},"metrics":["logged_hours"],"rank_by":"attainment"}`, "sort.metric"},
		{`{"period":{"named":"last_28_days"},"rank_by":"attainment"}`, "period"},
		{`{"period":{"named":"last_week"},"rank_by":"target"}`, "rank_by"},
	} {
		r, isError := call(t, cs, "league", c.args)
		if e, _ := r["error"].(map[string]any); !isError || e["argument"] != c.argument {
			t.Errorf("%s: %v, want a refusal of %s", c.args, r, c.argument)
		}
	}
}
