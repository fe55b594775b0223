package target

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
)

// Kinds of the notes a Comparison gives, as an answer's warnings name them.
const (
	WarnNoTarget  = "no_target"  // a team, or the floor, has no target
	WarnProrated  = "prorated"   // targets pro-rated to a part of their period
	WarnFloorDays = "floor_days" // a team beside its target was on the floor only some days
	WarnTargets   = "targets"    // who set the targets used, when and why
)

// Comparison sets an answer's figures beside their targets, and gathers
// what the answer says about them: the targets it used and who set them,
// the ones it lacks, and the ones it pro-rated to some days.
type Comparison struct {
	dir *directory.Directory
	ts  Span       // the target period of the answer, or of its first row by week
	p   ask.Period // the period asked
	// weekly: the answer's rows are weeks, each beside its own week's
	// targets, so the notes name the week of each.
	weekly bool
	// counted holds, by metric, the days of p its figures cover: from the
	// first to the last day its sources are loaded for. A metric with
	// targets but no counted day is absent.
	counted map[string]ask.Period
	unset   []*catalog.Metric // metrics with targets, none of them set for the kind of ts

	set     []string            // the targets used, for the note naming who set them
	missing map[string][]string // by metric, the teams without a target
	gaps    map[string][]string // by week: by metric/team, the weeks without one
	floor   []string            // ratios with no floor target
	partly  []string            // teams counted on only some of the counted days, with their days
}

// New prepares to set metrics' figures over period p beside the targets of
// target period ts, over the days of p their sources are loaded for:
// coverage says how far a metric's sources are loaded.
func New(dir *directory.Directory, ts Span, p ask.Period, metrics []*catalog.Metric, coverage func(*catalog.Metric) ask.Coverage) *Comparison {
	return newComparison(dir, ts, p, metrics, coverage, false)
}

// Weekly prepares to set each week of period p (weeks starting on
// weekStart) beside its own week's targets, for the team in scope or the
// floor, over the days of each week loaded for metrics.
func Weekly(dir *directory.Directory, p ask.Period, weekStart time.Weekday, metrics []*catalog.Metric, coverage func(*catalog.Metric) ask.Coverage) *Comparison {
	return newComparison(dir, week(calendar.WeekOf(p.Start, weekStart)), p, metrics, coverage, true)
}

// newComparison prepares to set metrics' figures over p beside the targets
// of target period ts (the first week's, when weekly), given how far their
// sources are loaded.
func newComparison(dir *directory.Directory, ts Span, p ask.Period, metrics []*catalog.Metric, coverage func(*catalog.Metric) ask.Coverage, weekly bool) *Comparison {
	tg := &Comparison{dir: dir, ts: ts, p: p, weekly: weekly, counted: map[string]ask.Period{}}
	for _, m := range metrics {
		switch {
		case m.Target == nil:
		case !m.Target.SetFor(ts.kind):
			tg.unset = append(tg.unset, m)
		default:
			c := coverage(m)
			if from, to := calendar.Later(p.Start, c.First), calendar.Earlier(p.End, c.Through); !c.Through.IsZero() && !to.Before(from) {
				tg.counted[m.ID] = ask.Period{Start: from, End: to}
			}
		}
	}
	return tg
}

// Columns names the columns of metrics beside their targets: each metric's
// figure (and a ratio's parts), then, for a metric with targets for the
// answer's period, the target and the attainment (figure over target), or
// for a ratio the gap in points.
func (tg *Comparison) Columns(metrics []*catalog.Metric) []string {
	var cols []string
	for _, m := range metrics {
		cols = append(cols, answer.Columns("", []*catalog.Metric{m})...)
		if tg.Has(m) {
			cols = append(cols, m.ID+"_target", AttainmentColumn(m))
		}
	}
	return cols
}

// Has says whether the answer sets metric m beside its targets.
func (tg *Comparison) Has(m *catalog.Metric) bool {
	return m.Target != nil && !slices.Contains(tg.unset, m)
}

// AttainmentColumn names the column of metric m's attainment: figure over
// target, or for a ratio the gap in points.
func AttainmentColumn(m *catalog.Metric) string {
	if m.Target.Gap == catalog.TargetGapPoints {
		return m.ID + "_target_gap_points"
	}
	return m.ID + "_attainment"
}

// Beside renders a row's figures beside their targets over the answer's
// target period and the period asked, under Columns. holder is whose
// target: a team's key, or empty for the floor's (see [Holder]).
func (tg *Comparison) Beside(r ask.Row, metrics []*catalog.Metric, holder string) []any {
	return tg.beside(r, metrics, holder, tg.ts, tg.p)
}

// beside renders a row's figures beside their targets over target period
// ts, under columns. holder is whose target: a team's key, or empty for the
// floor's. Each metric's target covers its counted days within within.
func (tg *Comparison) beside(r ask.Row, metrics []*catalog.Metric, holder string, ts Span, within ask.Period) []any {
	return tg.besideOf(r, metrics, func(m *catalog.Metric) *float64 { return tg.targetOver(m, holder, ts, within) })
}

// targetOver is holder's target of metric m over target period ts (a
// team's, or the floor's for an empty holder), over m's counted days within
// within. Nil when none of them is counted.
func (tg *Comparison) targetOver(m *catalog.Metric, holder string, ts Span, within ask.Period) *float64 {
	if holder == "" && m.Target.OverDays != catalog.TargetAdditive {
		tg.noFloorTarget(m)
		return nil
	}
	c, ok := tg.counted[m.ID]
	from, to := calendar.Later(c.Start, within.Start), calendar.Earlier(c.End, within.End)
	if !ok || to.Before(from) {
		// Nothing counted: no target, and a team without one is said to be.
		if holder != "" && len(tg.dir.Target(holder, m.ID, ts.kind, ts.start)) == 0 {
			tg.lacks(m, holder, ts)
		}
		return nil
	}
	span := ask.Period{Start: from, End: to}
	if holder == "" {
		return tg.floorTarget(m, ts, span)
	}
	v, _ := tg.teamTarget(m, holder, ts, span)
	return v
}

// besideOf renders a row's figures, each metric with targets beside the
// target that target gives it (nil for none), under columns.
func (tg *Comparison) besideOf(r ask.Row, metrics []*catalog.Metric, target func(*catalog.Metric) *float64) []any {
	var out []any
	i := 0
	for _, m := range metrics {
		n := len(m.Parts())
		sums := r.Sums[i : i+n]
		i += n
		out = answer.AppendCells(out, m, sums)
		if tg.Has(m) {
			t := target(m)
			out = append(out, figureOrNil(t), attainment(m, sums, t))
		}
	}
	return out
}

// floorTarget is the floor's target of a count m over the days of span:
// the sum of the targets of the teams on the floor on some day of it, each
// over its own days on the floor. Nil when one of those teams has no
// target, or when no team was on the floor.
func (tg *Comparison) floorTarget(m *catalog.Metric, ts Span, span ask.Period) *float64 {
	var sum float64
	all, any := true, false
	// Teams on the floor some day of the period asked but none of span
	// count for nothing, and the note on floor days says so.
	for _, team := range tg.dir.FloorTeams(tg.within(ts)) {
		v, days := tg.teamTarget(m, team, ts, span)
		switch {
		case days == 0:
		case v == nil:
			all = false
		default:
			sum, any = sum+*v, true
		}
	}
	if !all || !any {
		return nil
	}
	sum = answer.Round(sum, 4)
	return &sum
}

// noFloorTarget records a rate beside the floor, which has no target for
// it, for the note saying so.
func (tg *Comparison) noFloorTarget(m *catalog.Metric) {
	if !slices.Contains(tg.floor, m.ID) {
		tg.floor = append(tg.floor, m.ID)
	}
}

// within is the part of the period asked that target period ts covers: a
// row's week, or the whole period.
func (tg *Comparison) within(ts Span) ask.Period {
	w := ts.period()
	return ask.Period{Start: calendar.Later(w.Start, tg.p.Start), End: calendar.Earlier(w.End, tg.p.End)}
}

// teamTarget is a team's target of metric m over target period ts, over
// its days on the floor in span, with how many days that is: the latest
// version set, pro-rated to those days where the target spreads over days.
// Nil without a target, or without a day on the floor.
func (tg *Comparison) teamTarget(m *catalog.Metric, team string, ts Span, span ask.Period) (*float64, int) {
	days := tg.dir.FloorDays(team, span)
	if days < span.Days() {
		tg.partlyOn(team, span, days, ts)
	}
	versions := tg.dir.Target(team, m.ID, ts.kind, ts.start)
	if len(versions) == 0 {
		tg.lacks(m, team, ts)
		return nil, days
	}
	if days == 0 {
		return nil, 0
	}
	v := versions[len(versions)-1]
	tg.used(m, v, versions, ts)
	value := v.Value
	if m.Target.OverDays == catalog.TargetAdditive {
		value = value * float64(days) / float64(ts.days)
	}
	value = answer.Round(value, 4)
	return &value, days
}

// lacks records a team without a target for the note saying so.
func (tg *Comparison) lacks(m *catalog.Metric, team string, ts Span) {
	if tg.missing == nil {
		tg.missing = map[string][]string{}
	}
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

// partlyOn records a team on the floor on only days of the span's days,
// for the note on floor days: when it was on, and when it joined or left.
func (tg *Comparison) partlyOn(team string, span ask.Period, days int, ts Span) {
	t, _ := tg.dir.Team(team)
	s := fmt.Sprintf("%s (%s) was on the floor on %s counted", t.Name, team, calendar.Share(days, span.Days()))
	if tg.weekly {
		s += " in " + ts.String()
	}
	var why []string
	for _, p := range tg.dir.FloorSpans(team, span) {
		why = append(why, calendar.SpanText(p))
	}
	why = append(why, tg.dir.FloorMoves(team, tg.within(ts))...)
	if d, ok := tg.dir.FloorDecision(team, span.Start); len(why) == 0 && ok {
		verb := "off"
		if d.CountsAsSales {
			verb = "on"
		}
		why = append(why, verb+" the floor since "+d.From.Format(time.DateOnly))
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	if !slices.Contains(tg.partly, s) {
		tg.partly = append(tg.partly, s)
	}
}

// used records a target version for the note saying who set it.
func (tg *Comparison) used(m *catalog.Metric, v ask.TargetSet, versions []ask.TargetSet, ts Span) {
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
	return answer.Unsigned(out)
}

// Stamp states, for each metric set beside targets, the days its figures
// and targets cover.
func (tg *Comparison) Stamp(infos map[string]*answer.MetricInfo, metrics []*catalog.Metric) {
	period := tg.ts.period()
	kind := tg.ts.kind
	if tg.weekly {
		period, kind = tg.p, "weeks"
	}
	for _, m := range metrics {
		info, ok := infos[m.ID]
		if !ok || !tg.Has(m) {
			continue
		}
		td := &answer.TargetDays{Period: kind, Start: period.Start.Format(time.DateOnly), End: period.End.Format(time.DateOnly), Days: period.Days()}
		if c, ok := tg.counted[m.ID]; ok {
			td.CountedFrom, td.CountedThrough, td.CountedDays = answer.Date(c.Start), answer.Date(c.End), c.Days()
		}
		info.Target = td
	}
}

// Notes gives warn what the answer says about its targets, each note with
// its kind (WarnNoTarget and the others), in the order the answer states
// them.
func (tg *Comparison) Notes(warn func(kind, text string), metrics []*catalog.Metric) {
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
		warn(WarnNoTarget, "No target is set for "+strings.Join(missing, "; ")+". Those weeks' targets and attainment are null, not zero"+
			"; a floor's target needs every team's.")
	case len(missing) > 0:
		warn(WarnNoTarget, "No target is set for "+what+": "+strings.Join(missing, "; ")+". Their targets and attainment are null, not zero"+
			"; a floor's target needs every team's.")
	}
	if len(tg.floor) > 0 {
		warn(WarnNoTarget, strings.Join(tg.floor, ", ")+": a rate's target is set per team, and none follows for the floor as a whole; "+
			"group by team to see each team's.")
	}
	if !tg.weekly {
		tg.prorated(warn, metrics)
	}
	if len(tg.partly) > 0 {
		warn(WarnFloorDays, "A team's target holds on its days on the floor, and its figures beside the target count those days only: "+
			strings.Join(tg.partly, "; ")+".")
	}
	for _, m := range tg.unset {
		warn(WarnNoTarget, fmt.Sprintf("%s: its targets are set by %s only, so none is set beside its figures for %s; "+
			"ask about a %s with compare_to target to see them.", m.ID, strings.Join(m.Target.Periods, " and "), what, strings.Join(m.Target.Periods, " or ")))
	}
	if len(tg.set) > 0 {
		warn(WarnTargets, "Targets for "+what+": "+strings.Join(tg.set, "; ")+".")
	}
}

// prorated says which targets are a share of their period's, and why: the
// figures cover only some of its days.
func (tg *Comparison) prorated(warn func(kind, text string), metrics []*catalog.Metric) {
	byDays := map[ask.Period][]string{}
	var spans []ask.Period
	for _, m := range metrics {
		c, ok := tg.counted[m.ID]
		if !tg.Has(m) || m.Target.OverDays != catalog.TargetAdditive || !ok || c.Days() >= tg.ts.days {
			continue
		}
		if _, seen := byDays[c]; !seen {
			spans = append(spans, c)
		}
		byDays[c] = append(byDays[c], m.ID)
	}
	for _, c := range spans {
		warn(WarnProrated, fmt.Sprintf("%s: the figures cover %s, %s of %s, so each team's target is that share of the %s's "+
			"(a rate's target holds as set).", strings.Join(byDays[c], ", "), calendar.SpanText(c), calendar.Share(c.Days(), tg.ts.days), tg.ts, tg.ts.kind))
	}
}

// WeekBeside renders a week row of plan beside that week's targets: the
// team's in scope, or the floor's.
func (tg *Comparison) WeekBeside(r ask.Row, plan *ask.Plan) []any {
	start, _ := calendar.ParseDate(r.Key)
	ts := week(start)
	return tg.beside(r, plan.Metrics, Holder(plan.Scope), ts, ts.period())
}

// WeeksTotal renders the total of plan's weeks beside the sum of their
// targets, for a count whose target spreads over days and every week has
// one; a rate's weeks have no target together.
func (tg *Comparison) WeeksTotal(total ask.Row, plan *ask.Plan) []any {
	return tg.besideOf(total, plan.Metrics, func(m *catalog.Metric) *float64 {
		if m.Target.OverDays != catalog.TargetAdditive {
			return nil
		}
		var sum float64
		for w := tg.ts.start; !w.After(plan.Period.End); w = w.AddDate(0, 0, 7) {
			ts := week(w)
			t := tg.targetOver(m, Holder(plan.Scope), ts, ts.period())
			if t == nil {
				return nil
			}
			sum += *t
		}
		sum = answer.Round(sum, 4)
		return &sum
	})
}

// Holder is whose target a scope's total is beside: its team's, or the
// floor's (empty).
func Holder(s ask.Scope) string {
	if s.Kind == ask.ScopeTeam {
		return s.Key
	}
	return ""
}
