package mcpserver_test

import (
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/catalog"
	"plumbline/internal/pgtest"
)

// Invariants that need no evaluator: over MCP, random requests at moments
// where a calendar rule can go wrong, each asked two ways whose answers
// must agree by a rule of the contract. No figure is computed here by a
// second implementation: the engine is held to itself.

var invariantSeed = flag.Uint64("invariants.seed", 0, "the seed of the invariant tests' random requests; 0 draws one from the clock")

// invariantRand is a test's source of random requests. Its seed is logged,
// and -invariants.seed repeats it.
func invariantRand(t *testing.T) *rand.Rand {
	seed := *invariantSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d; repeat with: go test -run '^%s$' ./internal/mcpserver -invariants.seed=%d", seed, t.Name(), seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// atMoment is the demo floor generated up to one moment, a client to it,
// and the keys of its teams and agents to draw from.
type atMoment struct {
	now           time.Time
	today         time.Time // the floor's date, at midnight UTC
	cs            *mcp.ClientSession
	teams, agents []string
	calls         int
}

// invariantFloors is the floor at each moment the invariants are drawn at:
// the test floor's Wednesday afternoon, a Monday morning (last week's sales
// just final, its hours not yet), the 1st of a month, and the last day of
// one (a Saturday).
func invariantFloors(t *testing.T) []*atMoment {
	t.Helper()
	ny := pgtest.Now.Location()
	var out []*atMoment
	for _, now := range []time.Time{pgtest.Now, time.Date(2026, 11, 16, 9, 0, 0, 0, ny), time.Date(2026, 12, 1, 10, 0, 0, 0, ny),
		time.Date(2026, 10, 31, 16, 0, 0, 0, ny)} {
		f := newFloorAt(t, now)
		y, m, d := now.Date()
		out = append(out, &atMoment{now: now, today: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), cs: f.client(t),
			teams:  f.sqlKeys(t, `SELECT team_key FROM analytics.dim_team ORDER BY 1`),
			agents: f.sqlKeys(t, `SELECT agent_key FROM analytics.dim_agent ORDER BY 1`)})
	}
	return out
}

// ask calls a tool, counting the call.
func (m *atMoment) ask(t *testing.T, tool, args string) (answer, bool) {
	t.Helper()
	m.calls++
	return call(t, m.cs, tool, args)
}

// askFor calls a tool that must answer.
func (m *atMoment) askFor(t *testing.T, tool, args string) answer {
	t.Helper()
	a, isError := m.ask(t, tool, args)
	if isError {
		t.Fatalf("at %s, %s %s: refused: %v", m, tool, args, a["error"])
	}
	return a
}

// String names the moment.
func (m *atMoment) String() string { return m.now.Format(time.RFC3339) }

// day is the date back days before the floor's today.
func (m *atMoment) day(back int) string { return dateOf(m.today.AddDate(0, 0, -back)) }

// drawWho is the floor, one of its teams or one of its agents.
func (m *atMoment) drawWho(rng *rand.Rand) string {
	switch rng.IntN(3) {
	case 0:
		return `{"floor":true}`
	case 1:
		return fmt.Sprintf(`{"team":%q}`, m.teams[rng.IntN(len(m.teams))])
	}
	return fmt.Sprintf(`{"agent":%q}`, m.agents[rng.IntN(len(m.agents))])
}

// drawPeriod is a named period, a day, a week, or a range of at most
// longest days, over the last four months.
func (m *atMoment) drawPeriod(rng *rand.Rand, named []string, longest int) string {
	switch rng.IntN(5) {
	case 0, 1:
		return fmt.Sprintf(`{"named":%q}`, named[rng.IntN(len(named))])
	case 2:
		return fmt.Sprintf(`{"day":%q}`, m.day(rng.IntN(120)))
	case 3:
		return fmt.Sprintf(`{"week":%q}`, m.day(rng.IntN(120)))
	}
	end := rng.IntN(120)
	return fmt.Sprintf(`{"start":%q,"end":%q}`, m.day(end+rng.IntN(longest)), m.day(end))
}

// drawMetrics is one to all of a report's metrics that keep, in random order.
func drawMetrics(rng *rand.Rand, rep *catalog.Report, keep func(*catalog.Metric) bool) []string {
	var ids []string
	for _, m := range rep.Metrics {
		if keep(m) {
			ids = append(ids, m.ID)
		}
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids[:1+rng.IntN(len(ids))]
}

// drawReport is one of the catalogue's reports.
func drawReport(t *testing.T, rng *rand.Rand) *catalog.Report {
	t.Helper()
	reps := catalogOf(t).Reports()
	return reps[rng.IntN(len(reps))]
}

func anyMetric(*catalog.Metric) bool { return true }

// quoted writes strings as a JSON array.
func quoted(xs []string) string {
	var out []string
	for _, x := range xs {
		out = append(out, fmt.Sprintf("%q", x))
	}
	return "[" + strings.Join(out, ",") + "]"
}

// cells is a table's rows by their key, each row's cells by column: key
// names the key column, or is "" for a table whose one row is its total.
func cells(columns, rows any, key string) map[string]map[string]any {
	cols := toStrings(columns)
	out := map[string]map[string]any{}
	for _, r := range rows.([]any) {
		row := map[string]any{}
		for i, c := range cols {
			row[c] = r.([]any)[i]
		}
		k := "total"
		if key != "" {
			k, _ = row[key].(string)
		}
		out[k] = row
	}
	return out
}

// figures is a report answer's rows by their key (the group, or "total").
func (a answer) figures() map[string]map[string]any {
	key, _ := a["request"].(map[string]any)["group_by"].(string)
	return cells(a["columns"], a["rows"], key)
}

// section is one section of a canned answer (league, team_weeks): its rows
// by their key column, and its total.
func (a answer) section(t *testing.T, id, key string) (rows map[string]map[string]any, total map[string]any) {
	t.Helper()
	for _, s := range a["sections"].([]any) {
		sec := s.(map[string]any)
		if sec["id"] == id {
			return cells(sec["columns"], sec["rows"], key), cells(sec["columns"], []any{sec["total"]}, "")["total"]
		}
	}
	t.Fatalf("no section %s in %v", id, a["sections"])
	return nil, nil
}

// same reports whether two stated figures are one: both null, or numbers
// apart by no more than a stated figure's rounding (slack) or its six
// significant digits.
func same(a, b any, slack float64) bool {
	x, xok := a.(float64)
	y, yok := b.(float64)
	if !xok || !yok {
		return a == nil && b == nil
	}
	return near(x, y) || math.Abs(x-y) <= slack
}

// failures reports the first disagreements of a test in full and counts the
// rest.
type failures struct {
	t *testing.T
	n int
}

// add reports a disagreement.
func (f *failures) add(format string, args ...any) {
	f.t.Helper()
	if f.n++; f.n <= 8 {
		f.t.Errorf(format, args...)
	}
}

// (a) One team, one period, one attainment: over a whole final week or
// month, a team's attainment against its target (a rate's gap in points) is
// the same asked about the team, about the floor by team, in the league by
// attainment, and, for a week, in the team's row for the week in
// team_weeks.
func TestInvariantOneAttainmentPerTeam(t *testing.T) {
	rng := invariantRand(t)
	fs := invariantFloors(t)
	start := time.Now()
	const draws = 60
	// A count's attainment, a rate's gap in points.
	attainments := []struct{ metric, column string }{{"submitted_sales", "submitted_sales_attainment"}, {"close_rate", "close_rate_target_gap_points"}}
	// team_weeks' sales rows for each moment and who, asked once.
	weeks := map[string]map[string]map[string]any{}
	teamWeeks := func(m *atMoment, who string) map[string]map[string]any {
		k := m.String() + who
		if _, ok := weeks[k]; !ok {
			a := m.askFor(t, "team_weeks", `{"who":`+who+`,"weeks":8,"compare_to":"target","compact":true}`)
			weeks[k], _ = a.section(t, "sales", "week")
		}
		return weeks[k]
	}
	var checked int
	fail := &failures{t: t}
	for range draws {
		m := fs[rng.IntN(len(fs))]
		var period, week string
		if rng.IntN(2) == 0 {
			ws := slices.Sorted(maps.Keys(teamWeeks(m, `{"floor":true}`)))
			week = ws[rng.IntN(len(ws))]
			period = fmt.Sprintf(`{"week":%q}`, week)
		} else {
			back := 1 + rng.IntN(3)
			first := time.Date(m.today.Year(), m.today.Month()-time.Month(back), 1, 0, 0, 0, 0, time.UTC)
			period = fmt.Sprintf(`{"start":%q,"end":%q}`, dateOf(first), dateOf(first.AddDate(0, 1, -1)))
			if back == 1 && rng.IntN(2) == 0 {
				period = `{"named":"last_month"}`
			}
		}
		byTeam := m.askFor(t, "sales", `{"who":{"floor":true},"period":`+period+`,"group_by":"team","compare_to":"target","compact":true}`).figures()
		league, _ := m.askFor(t, "league", `{"period":`+period+`,"metrics":["submitted_sales","close_rate"],"rank_by":"attainment","compact":true}`).
			section(t, "league", "team")
		for _, team := range slices.Sorted(maps.Keys(byTeam)) {
			alone := m.askFor(t, "sales", fmt.Sprintf(`{"who":{"team":%q},"period":%s,"compare_to":"target","compact":true}`, team, period)).figures()["total"]
			ways := []way{{"sales for the team", alone}, {"sales for the floor by team", byTeam[team]}, {"league by attainment", league[team]}}
			if week != "" {
				ways = append(ways, way{"team_weeks for the team", teamWeeks(m, fmt.Sprintf(`{"team":%q}`, team))[week]})
			}
			for _, at := range attainments {
				var got []string
				agree, set := true, false
				for _, w := range ways {
					set = set || w.row[at.column] != nil
					agree = agree && same(w.row[at.column], ways[0].row[at.column], 0)
					got = append(got, fmt.Sprintf("%s %v against %v", w.name, w.row[at.column], w.row[at.metric+"_target"]))
				}
				if !set {
					continue // no target, or none for this kind of period
				}
				checked++
				if !agree {
					fail.add("at %s over %s, %s's %s differs: %s", m, period, team, at.column, strings.Join(got, "; "))
				}
			}
		}
	}
	t.Logf("%d draws, %d attainments of a team compared over %d calls in %v: %d disagree",
		draws, checked, callsOf(fs), time.Since(start).Round(time.Millisecond), fail.n)
}

// tally counts the figures a test compared, and how many of them were null.
type tally struct{ n, null int }

// add counts a compared figure.
func (c *tally) add(v any) {
	c.n++
	if v == nil {
		c.null++
	}
}

func (c tally) String() string { return fmt.Sprintf("%d (%d of them null)", c.n, c.null) }

// way is one way of asking for a figure: the tool and how, and the row of
// its answer that holds it.
type way struct {
	name string
	row  map[string]any
}

// callsOf is how many calls the floors answered.
func callsOf(fs []*atMoment) int {
	n := 0
	for _, m := range fs {
		n += m.calls
	}
	return n
}

// (b) A comparison's previous figures are the previous period's own: each
// group's <m>_previous (and a ratio's parts) equals the figure of the same
// call asked over the previous_period it echoes, without compare_to, for
// any report, who, grouping and period, periods to date among them, beside
// the period before or the same days a year earlier.
func TestInvariantPreviousFiguresAreThePreviousPeriods(t *testing.T) {
	rng := invariantRand(t)
	fs := invariantFloors(t)
	start := time.Now()
	const draws = 60
	named := []string{"yesterday", "last_week", "last_month", "last_quarter", "last_7_days", "last_28_days",
		"this_week", "week_to_date", "this_month", "month_to_date", "this_quarter", "quarter_to_date"}
	var refused, toDate int
	var checked tally
	fail := &failures{t: t}
	for range draws {
		m := fs[rng.IntN(len(fs))]
		tool := drawReport(t, rng)
		groupBy := []string{"", "team", "agent"}[rng.IntN(3)]
		who, metrics := m.drawWho(rng), drawMetrics(rng, tool, anyMetric)
		args := func(period, extra string) string {
			s := fmt.Sprintf(`{"who":%s,"period":%s,"metrics":%s,"compact":true%s`, who, period, quoted(metrics), extra)
			if groupBy != "" {
				s += fmt.Sprintf(`,"group_by":%q`, groupBy)
			}
			return s + "}"
		}
		asked := args(m.drawPeriod(rng, named, 35), fmt.Sprintf(`,"compare_to":%q`, []string{"previous_period", "previous_period", "previous_year"}[rng.IntN(3)]))
		cmp, isError := m.ask(t, tool.ID, asked)
		if isError {
			refused++
			continue
		}
		if _, cut := cmp["period"].(map[string]any)["asked_end"]; cut {
			toDate++ // a period so far, compared through its last final day
		}
		prev := cmp["previous_period"].(map[string]any)
		direct := m.askFor(t, tool.ID, args(fmt.Sprintf(`{"start":%q,"end":%q}`, prev["start"], prev["end"]), ""))
		was, then := cmp.figures(), direct.figures()
		cut := cmp["truncated"] == true || direct["truncated"] == true
		for _, key := range slices.Sorted(maps.Keys(was)) {
			if _, listed := then[key]; cut && !listed {
				continue // past the cap on rows in one answer
			}
			for _, id := range metrics {
				pairs := [][2]string{{id + "_previous", id}}
				if _, ratio := was[key][id+"_numerator"]; ratio {
					pairs = append(pairs, [2]string{id + "_previous_numerator", id + "_numerator"}, [2]string{id + "_previous_denominator", id + "_denominator"})
				}
				for _, p := range pairs {
					checked.add(was[key][p[0]])
					if !same(was[key][p[0]], then[key][p[1]], 0) {
						fail.add("at %s, %s %s: %s's %s is %v, but over %s to %s %s is %v", m, tool.ID, asked, key, p[0], was[key][p[0]],
							prev["start"], prev["end"], p[1], then[key][p[1]])
					}
				}
			}
		}
	}
	t.Logf("%d draws (%d refused, %d to date), %v previous figures compared over %d calls in %v: %d disagree",
		draws, refused, toDate, checked, callsOf(fs), time.Since(start).Round(time.Millisecond), fail.n)
}

// (c) A running total ends at the total: asked by day, week, month or
// quarter with cumulative, each sum (and a ratio's parts) on the period's
// last row with data equals the figure of the period asked without
// group_by.
func TestInvariantRunningTotalEndsAtTheTotal(t *testing.T) {
	rng := invariantRand(t)
	fs := invariantFloors(t)
	start := time.Now()
	const draws = 60
	var setAside int
	// By day, periods of at most 50 days, the cap on rows; by week, month
	// or quarter, up to a year so far (at most 49 weeks).
	named := []string{"today", "yesterday", "this_week", "last_week", "this_month", "last_month", "last_7_days", "last_28_days",
		"week_to_date", "month_to_date"}
	longer := append(slices.Clip(named), "this_quarter", "last_quarter", "quarter_to_date", "this_year", "year_to_date")
	var refused int
	var checked tally
	fail := &failures{t: t}
	for range draws {
		m := fs[rng.IntN(len(fs))]
		tool := drawReport(t, rng)
		metrics := drawMetrics(rng, tool, anyMetric)
		grain := []string{"day", "day", "week", "month", "quarter"}[rng.IntN(5)]
		period := m.drawPeriod(rng, named, 50)
		if grain != "day" {
			period = m.drawPeriod(rng, longer, 300)
		}
		asked := fmt.Sprintf(`{"who":%s,"period":%s,"metrics":%s,"compact":true`, m.drawWho(rng), period, quoted(metrics))
		total, isError := m.ask(t, tool.ID, asked+"}")
		if isError {
			refused++
			continue
		}
		series := m.askFor(t, tool.ID, asked+fmt.Sprintf(`,"group_by":%q,"cumulative":true}`, grain))
		if series["truncated"] == true {
			t.Fatalf("at %s, %s %s by %s: truncated, the period is longer than the cap on rows", m, tool.ID, asked, grain)
		}
		days := series.figures()
		whole := total.figures()["total"]
		for _, id := range metrics {
			parts := []string{id}
			if _, ratio := whole[id+"_numerator"]; ratio {
				parts = []string{id + "_numerator", id + "_denominator"}
			}
			last := ""
			for _, d := range slices.Sorted(maps.Keys(days)) {
				if days[d][parts[0]] != nil {
					last = d
				}
			}
			for _, p := range parts {
				if whole[p] == nil && days[last][p] == 0.0 && leftOut(total, id) > 0 {
					// Every agent-day with rows has a part not known yet: the
					// period's figure is null (no data), while the days
					// without rows before them had no activity and run at
					// zero. The rule on nulls decides, as the reference
					// evaluator's does.
					setAside++
					continue
				}
				checked.add(whole[p])
				if !same(days[last][p], whole[p], 0.01) {
					fail.add("at %s, %s %s: %s runs to %v on %q, the last row with data, but is %v over the period", m, tool.ID, asked+"}",
						p, days[last][p], last, whole[p])
				}
			}
		}
	}
	t.Logf("%d draws (%d refused), %v running totals compared (%d set aside, null over the period with every agent-day left out) over %d calls in %v: %d disagree",
		draws, refused, checked, setAside, callsOf(fs), time.Since(start).Round(time.Millisecond), fail.n)
}

// leftOut is how many agent-days an answer left out of a metric's figures
// for a part not known yet.
func leftOut(a answer, metric string) float64 {
	n, _ := a["metrics"].(map[string]any)[metric].(map[string]any)["left_out"].(float64)
	return n
}

// (d) The floor is the sum of its teams: on any day, the floor's count of a
// sum (a count or hours) equals the sum, over the teams on the floor that
// day (as the roster says), of each team's figure asked for that day.
func TestInvariantTheFloorIsTheSumOfItsTeams(t *testing.T) {
	rng := invariantRand(t)
	fs := invariantFloors(t)
	start := time.Now()
	const draws = 30
	var refused int
	var checked tally
	fail := &failures{t: t}
	for range draws {
		m := fs[rng.IntN(len(fs))]
		tool := drawReport(t, rng)
		metrics := drawMetrics(rng, tool, func(m *catalog.Metric) bool { return !m.IsRatio() })
		day := m.day(rng.IntN(120))
		args := func(who string) string {
			return fmt.Sprintf(`{"who":%s,"period":{"day":%q},"metrics":%s,"compact":true}`, who, day, quoted(metrics))
		}
		floor, isError := m.ask(t, tool.ID, args(`{"floor":true}`))
		if isError {
			refused++
			continue
		}
		var teams []string
		for _, team := range m.askFor(t, "roster", fmt.Sprintf(`{"who":{"floor":true},"day":%q}`, day))["teams"].([]any) {
			if team := team.(map[string]any); team["on_floor"] == true {
				teams = append(teams, team["team"].(string))
			}
		}
		sums := map[string]float64{}
		known, unknown := map[string]bool{}, map[string]bool{}
		var got []string
		for _, team := range teams {
			row := m.askFor(t, tool.ID, args(fmt.Sprintf(`{"team":%q}`, team))).figures()["total"]
			got = append(got, fmt.Sprintf("%s %v", team, row))
			for _, id := range metrics {
				if v, ok := row[id].(float64); ok {
					sums[id] += v
					known[id] = true
				} else {
					unknown[id] = true
				}
			}
		}
		whole := floor.figures()["total"]
		for _, id := range metrics {
			checked.add(whole[id])
			var sum any
			// A team with no figure had every agent-day left out (a part
			// not known yet) and adds nothing to the floor's; when the
			// teams with one had no activity (zero), the floor's agent-days
			// were all left out, and it has no figure either.
			if known[id] && !(unknown[id] && sums[id] == 0 && whole[id] == nil) {
				sum = sums[id]
			}
			// Hours are stated to the hundredth, the floor's and each team's.
			if !same(whole[id], sum, 0.005*float64(len(teams)+1)) {
				fail.add("at %s on %s, %s: the floor's %s is %v, the sum over the teams on the floor %v (%s)", m, day, tool.ID, id,
					whole[id], sum, strings.Join(got, "; "))
			}
		}
	}
	t.Logf("%d draws (%d refused), %v figures of the floor compared over %d calls in %v: %d disagree",
		draws, refused, checked, callsOf(fs), time.Since(start).Round(time.Millisecond), fail.n)
}
