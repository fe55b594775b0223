package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"plumbline/catalog"
)

// This file sets figures beside their targets (compare_to: "target").
// Targets are data, set by a person and dated: a team's target for a
// metric over a week or a calendar month, the latest version holding. A
// count's target spreads over days where the catalogue says so, and a
// floor's is the sum of its teams'; a ratio's holds as set, the gap is
// stated in points, and the floor has none. A team without a target has a
// null one, never zero.

// CompareTarget is compare_to's choice that sets figures beside targets.
const CompareTarget = "target"

// TargetSet is one version of a team's target for a metric over a week or
// a month (Kind), from Start.
type TargetSet struct {
	Team, Metric, Kind string
	Start              time.Time
	Value              float64
	SetBy              string
	SetAt              time.Time
	Reason             string
}

type targetKey struct{ team, metric, kind, start string }

// Target period kinds.
const (
	targetWeek  = "week"
	targetMonth = "month"
)

// targetPeriods are the named periods a target applies to.
var targetPeriods = []string{"last_week", "this_week", "week_to_date", "last_month", "this_month", "month_to_date"}

// targetSpan is the target period a period is, or a part of from its first
// day through today.
type targetSpan struct {
	kind  string
	start time.Time
	days  int // the target period's days
}

// targetPeriodOf says which target period p is: a whole week or month, or
// one from its first day through today.
func targetPeriodOf(p Period, t time.Time, weekStart time.Weekday) (targetSpan, bool) {
	if w := weekOf(p.Start, weekStart); p.Start.Equal(w) && !p.End.After(w.AddDate(0, 0, 6)) && (p.End.Equal(w.AddDate(0, 0, 6)) || p.End.Equal(t)) {
		return targetSpan{targetWeek, w, 7}, true
	}
	m := time.Date(p.Start.Year(), p.Start.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := m.AddDate(0, 1, -1)
	if p.Start.Equal(m) && !p.End.After(end) && (p.End.Equal(end) || p.End.Equal(t)) {
		return targetSpan{targetMonth, m, end.Day()}, true
	}
	return targetSpan{}, false
}

// String names the target period: the week or the month it is.
func (ts targetSpan) String() string {
	if ts.kind == targetMonth {
		return "the month of " + ts.start.Format("2006-01")
	}
	return "the week of " + ts.start.Format(time.DateOnly)
}

// targetOf returns the versions of a team's target for a metric over a
// target period, in the order they were set: the last one holds.
func (d *Directory) targetOf(team, metric string, ts targetSpan) []TargetSet {
	return d.targets[targetKey{team, metric, ts.kind, ts.start.Format(time.DateOnly)}]
}

// targetable refuses a comparison with targets the call cannot make:
// targets are set per team over a week or a month, for some metrics.
func (e *Engine) targetable(scope Scope, groupBy string, metrics []*catalog.Metric) *Refusal {
	switch {
	case scope.Kind == ScopeAgent:
		return invalid(argCompareTo, "sets figures beside targets, which are set per team; ask about the agent's team or the floor", "floor", "team")
	case groupBy != "" && groupBy != catalog.GroupTeam:
		return invalid(argCompareTo, "with target takes group_by team, or no group_by", catalog.GroupTeam)
	}
	if !slices.ContainsFunc(metrics, func(m *catalog.Metric) bool { return m.Target != nil }) {
		return invalid(argCompareTo, "with target needs a metric that has targets; ask for one of these metrics", e.targetMetricIDs()...)
	}
	return nil
}

// targetMetricIDs are the metrics that have targets.
func (e *Engine) targetMetricIDs() []string {
	var with []string
	for _, m := range e.cat.Metrics() {
		if m.Target != nil {
			with = append(with, m.ID)
		}
	}
	return with
}

// notTargetPeriod refuses a period no target is set for.
func notTargetPeriod() *Refusal {
	return invalid(argPeriod, "is not a period targets are set for: a whole week or calendar month, or one from its first day "+
		"through today; for example one of these named periods", targetPeriods...)
}

// League rankings (rank_by).
const (
	RankFigure     = "figure"
	RankAttainment = "attainment"
)

// NoteRankedByAttainment says how a league ranked by attainment reads.
const NoteRankedByAttainment = "With rank_by attainment, teams are ranked by the sort metric's attainment against their own targets (figure over target, or for a rate the gap in points); " +
	"a team without a target comes last, without a rank, and tied attainments share a rank."

// ranked renders team rows beside their targets, ranked by the attainment
// of the sort's metric in its direction: teams without a target last and
// unranked, ties by team, tied attainments sharing a rank and the next
// rank skipping their places.
func (tg *targeted) ranked(kept []Row, metrics []*catalog.Metric, sort *SortArg, dir *Directory) [][]any {
	m := metrics[slices.IndexFunc(metrics, func(m *catalog.Metric) bool { return m.ID == sort.Metric })]
	col := slices.Index(tg.columns(metrics), attainmentColumn(m))
	type line struct {
		key   string
		cells []any
		v     *float64
	}
	lines := make([]line, len(kept))
	for i, r := range kept {
		cells := tg.beside(r, metrics, []string{r.Key}, tg.ts)
		l := line{key: r.Key, cells: append(keyCells(catalog.GroupTeam, r, dir, tg.p), cells...)}
		if v, ok := cells[col].(float64); ok {
			l.v = &v
		}
		lines[i] = l
	}
	slices.SortStableFunc(lines, func(a, b line) int {
		if c := compareValues(a.v, b.v, sort.Direction); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	rows := make([][]any, len(lines))
	for i, l := range lines {
		var rank any
		switch {
		case l.v == nil:
		case i > 0 && compareValues(l.v, lines[i-1].v, sort.Direction) == 0:
			rank = rows[i-1][0]
		default:
			rank = i + 1
		}
		rows[i] = append([]any{rank}, l.cells...)
	}
	return rows
}

// columns names the columns of metrics beside their targets: each metric's
// figure (and a ratio's parts), then, for a metric with targets, the target
// and the attainment (figure over target), or for a ratio the gap in points.
func (tg *targeted) columns(metrics []*catalog.Metric) []string {
	var cols []string
	for _, m := range metrics {
		cols = append(cols, columnsFor("", []*catalog.Metric{m})...)
		if tg.has(m) {
			cols = append(cols, m.ID+"_target", attainmentColumn(m))
		}
	}
	return cols
}

// has says whether the answer sets metric m beside its targets.
func (tg *targeted) has(m *catalog.Metric) bool {
	return m.Target != nil && !slices.Contains(tg.unset, m.ID)
}

func attainmentColumn(m *catalog.Metric) string {
	if m.Target.Gap == catalog.TargetGapPoints {
		return m.ID + "_target_gap_points"
	}
	return m.ID + "_attainment"
}

// targeted holds what an answer says about the targets it used.
type targeted struct {
	dir *Directory
	ts  targetSpan // the target period of the answer, or of its first row by week
	p   Period
	// weekly: the answer's rows are weeks, each beside its own week's
	// targets, so the notes name the week of each.
	weekly  bool
	unset   []string            // metrics with targets, none of them set for the answer's target periods
	set     []string            // the targets used, for the note naming who set them
	missing map[string][]string // by metric, the teams without a target
	gaps    map[string][]string // by week: by metric/team, the weeks without one
	floor   []string            // ratios with no floor target
}

// target is the target of metric m over target period ts for a group: a
// team's own, pro-rated where it spreads over days, or for the floor the
// sum of its teams'. Nil is no target.
func (tg *targeted) target(m *catalog.Metric, teams []string, ts targetSpan) *float64 {
	if len(teams) > 1 && m.Target.OverDays != catalog.TargetAdditive {
		if !slices.Contains(tg.floor, m.ID) {
			tg.floor = append(tg.floor, m.ID)
		}
		return nil
	}
	var sum float64
	var without []string
	for _, team := range teams {
		versions := tg.dir.targetOf(team, m.ID, ts)
		if len(versions) == 0 {
			without = append(without, team)
			continue
		}
		v := versions[len(versions)-1]
		sum += v.Value
		tg.used(m, v, versions, ts)
	}
	if len(without) > 0 {
		if tg.missing == nil {
			tg.missing = map[string][]string{}
		}
		for _, team := range without {
			if !slices.Contains(tg.missing[m.ID], team) {
				tg.missing[m.ID] = append(tg.missing[m.ID], team)
			}
			if tg.weekly {
				k := m.ID + "/" + team
				if tg.gaps == nil {
					tg.gaps = map[string][]string{}
				}
				if w := ts.start.Format(time.DateOnly); !slices.Contains(tg.gaps[k], w) {
					tg.gaps[k] = append(tg.gaps[k], w)
				}
			}
		}
		return nil
	}
	if m.Target.OverDays == catalog.TargetAdditive && tg.p.Days() < ts.days {
		sum = sum * float64(tg.p.Days()) / float64(ts.days)
	}
	sum = round(sum, 4)
	return &sum
}

// used records a target version for the note saying who set it.
func (tg *targeted) used(m *catalog.Metric, v TargetSet, versions []TargetSet, ts targetSpan) {
	of := ""
	if tg.weekly {
		of = " for " + ts.String()
	}
	s := fmt.Sprintf("%s %s %s%s, set by %s on %s (%s)", v.Team, m.ID, targetText(v.Value), of, v.SetBy,
		v.SetAt.Format(time.DateOnly), v.Reason)
	if len(versions) > 1 {
		was := versions[len(versions)-2]
		s += fmt.Sprintf(", replacing %s set on %s", targetText(was.Value), was.SetAt.Format(time.DateOnly))
	}
	if !slices.Contains(tg.set, s) {
		tg.set = append(tg.set, s)
	}
}

// beside renders a row's figures beside their targets over target period
// ts, under columns; teams are the teams whose targets count for the row.
func (tg *targeted) beside(r Row, metrics []*catalog.Metric, teams []string, ts targetSpan) []any {
	return tg.besideOf(r, metrics, func(m *catalog.Metric) *float64 { return tg.target(m, teams, ts) })
}

// besideOf renders a row's figures, each metric with targets beside the
// target that target gives it (nil for none), under columns.
func (tg *targeted) besideOf(r Row, metrics []*catalog.Metric, target func(*catalog.Metric) *float64) []any {
	var out []any
	i := 0
	for _, m := range metrics {
		n := len(m.Parts())
		sums := r.Sums[i : i+n]
		i += n
		out = append(out, cellsOf(m, sums)...)
		if tg.has(m) {
			t := target(m)
			out = append(out, figureOrNil(t), attainment(m, sums, t))
		}
	}
	return out
}

// targetText writes a target as set, without the float noise of its
// decimal.
func targetText(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

func figureOrNil(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// attainment is a figure over its target, or for a ratio the gap between
// them in percentage points; null without a figure or a target.
func attainment(m *catalog.Metric, sums []*float64, target *float64) any {
	if target == nil || sums[0] == nil {
		return nil
	}
	var v float64
	if m.IsRatio() {
		if sums[1] == nil || *sums[1] == 0 {
			return nil
		}
		v = (*sums[0] / *sums[1] - *target) * 100
	} else {
		if *target == 0 {
			return nil
		}
		v = *sums[0] / *target
	}
	out, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return unsigned(out)
}

// notes adds what the answer says about its targets.
func (tg *targeted) notes(gv *governor, metrics []*catalog.Metric) {
	what := tg.ts.String()
	if tg.weekly {
		what = "the weeks from " + tg.p.Start.Format(time.DateOnly) + " to " + tg.p.End.Format(time.DateOnly)
	}
	var missing []string
	for _, m := range metrics {
		teams := slices.Clone(tg.missing[m.ID])
		for i, team := range teams {
			switch weeks := tg.gaps[m.ID+"/"+team]; {
			case len(weeks) == 1:
				teams[i] += " (the week of " + weeks[0] + ")"
			case len(weeks) > 1:
				teams[i] += " (the weeks of " + strings.Join(weeks, ", ") + ")"
			}
		}
		if len(teams) > 0 {
			missing = append(missing, m.ID+" for "+strings.Join(teams, ", "))
		}
	}
	switch {
	case len(missing) > 0 && tg.weekly:
		gv.warn(WarnNoTarget, "No target is set for "+strings.Join(missing, "; ")+". Those weeks' targets and attainment are null, not zero"+
			"; a floor's target needs every team's.")
	case len(missing) > 0:
		gv.warn(WarnNoTarget, "No target is set for "+what+": "+strings.Join(missing, "; ")+". Their targets and attainment are null, not zero"+
			"; a floor's target needs every team's.")
	}
	if len(tg.floor) > 0 {
		gv.warn(WarnNoTarget, strings.Join(tg.floor, ", ")+": a rate's target is set per team, and none follows for the floor as a whole; "+
			"group by team to see each team's.")
	}
	var spread []string
	for _, m := range metrics {
		if tg.has(m) && m.Target.OverDays == catalog.TargetAdditive {
			spread = append(spread, m.ID)
		}
	}
	if tg.p.Days() < tg.ts.days && len(spread) > 0 {
		gv.warn(WarnProrated, fmt.Sprintf("The period holds %d of the %d days of %s, so the targets of %s are the same share of the period's targets; "+
			"other targets hold as set.", tg.p.Days(), tg.ts.days, what, strings.Join(spread, ", ")))
	}
	if len(tg.unset) > 0 {
		gv.warn(WarnNoTarget, "No week has a target set for "+strings.Join(tg.unset, ", ")+", so none is set beside it; "+
			"its targets are set by month: ask a report for a month with compare_to target.")
	}
	if len(tg.set) > 0 {
		gv.warn(WarnTargets, "Targets for "+what+": "+strings.Join(tg.set, "; ")+".")
	}
}

// weekTargets sets each week of p beside its own week's targets, for the
// team in scope or the floor: the metrics with targets that no team has set
// for any of these weeks (their targets are set by month) get no target
// columns, and a note says so.
func weekTargets(dir *Directory, p Period, metrics []*catalog.Metric, weekStart time.Weekday) *targeted {
	tg := &targeted{dir: dir, ts: targetSpan{targetWeek, weekOf(p.Start, weekStart), 7}, p: p, weekly: true}
	for _, m := range metrics {
		if m.Target == nil || slices.Contains(tg.unset, m.ID) {
			continue
		}
		set := false
		for w := tg.ts.start; !w.After(p.End) && !set; w = w.AddDate(0, 0, 7) {
			for _, t := range dir.Teams {
				if len(dir.targetOf(t.Key, m.ID, targetSpan{targetWeek, w, 7})) > 0 {
					set = true
					break
				}
			}
		}
		if !set {
			tg.unset = append(tg.unset, m.ID)
		}
	}
	return tg
}

// weekBeside renders a week row of plan beside that week's targets: the
// team's in scope, or the sum of the teams on the floor that week.
func (tg *targeted) weekBeside(r Row, plan *Plan) []any {
	ts, teams := tg.week(r.Key, plan.Scope)
	return tg.beside(r, plan.Metrics, teams, ts)
}

// week is the target period of the week starting on key, and the teams
// whose targets count for it.
func (tg *targeted) week(key string, scope Scope) (targetSpan, []string) {
	start, _ := time.Parse(time.DateOnly, key)
	ts := targetSpan{targetWeek, start, 7}
	if scope.Kind == ScopeTeam {
		return ts, []string{scope.Key}
	}
	return ts, tg.dir.floorTeams(Period{Start: start, End: start.AddDate(0, 0, 6)})
}

// weeksTotal renders the total of plan's weeks beside the sum of their
// targets, for a count whose target spreads over days and every week has
// one; a rate's weeks have no target together.
func (tg *targeted) weeksTotal(total Row, plan *Plan) []any {
	return tg.besideOf(total, plan.Metrics, func(m *catalog.Metric) *float64 {
		if m.Target.OverDays != catalog.TargetAdditive {
			return nil
		}
		var sum float64
		for w := tg.ts.start; !w.After(plan.Period.End); w = w.AddDate(0, 0, 7) {
			ts, teams := tg.week(w.Format(time.DateOnly), plan.Scope)
			v := tg.target(m, teams, ts)
			if v == nil {
				return nil
			}
			sum += *v
		}
		return &sum
	})
}
