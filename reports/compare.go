package reports

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// This file sets a period's figures beside the previous period's or the
// same days' a year earlier (compare_to; package calendar says which days
// those are): the rules a comparison must meet, and the change of each
// figure, a ratio's from each period's own summed parts.

// finalSoFar cuts a period so far (a week, month, quarter or year to date)
// at the last day final for every metric, so that it can be compared: false
// when it is no period so far, or none of its days is final yet.
func (e *Engine) finalSoFar(metrics []*catalog.Metric, p ask.Period, cov map[string]ask.Coverage, now time.Time) (ask.Period, bool) {
	if calendar.SoFar(p) == "" {
		return p, false
	}
	last := p.End
	for _, m := range metrics {
		if c := metricThrough(m, cov, now, e.cat.Zone()).complete; c.Before(last) {
			last = c
		}
	}
	if last.Before(p.Start) {
		return p, false
	}
	cut := p
	cut.End, cut.AskedEnd = last, p.End
	return cut, true
}

// soFarNote says how a period so far was cut to be compared, and what it
// is set beside: the same days of the week, month, quarter or year before,
// or with yearEarlier the same days a year earlier.
func soFarNote(p, previous ask.Period, yearEarlier bool) string {
	if yearEarlier {
		return fmt.Sprintf("So far, the period runs through %s, the last day final for every figure (later days, today among them, will still change), "+
			"and is set beside the same %s a year earlier, %s; a comparison over days not final would mislead.",
			p.End.Format(time.DateOnly), calendar.DayCount(p.Days(), ""), calendar.SpanText(previous))
	}
	return fmt.Sprintf("So far, the period runs through %s, the last day final for every figure (later days, today among them, will still change), "+
		"and is set beside the same %s of the %s before, %s; a comparison over days not final would mislead.",
		p.End.Format(time.DateOnly), calendar.DayCount(p.Days(), ""), calendar.SoFar(p), calendar.SpanText(previous))
}

// comparable refuses a grouping a comparison cannot line up: rows of days,
// weeks, months or quarters of two different periods are different rows.
func comparable(req *grammar.Request, rep *catalog.Report) *ask.Refusal {
	if !req.AgainstPeriod() || !calendar.ByTime(req.GroupBy) {
		return nil
	}
	var choices []string
	for _, g := range rep.GroupBy {
		if g == catalog.GroupTeam || g == catalog.GroupAgent {
			choices = append(choices, g)
		}
	}
	return ask.Invalid(grammar.ArgCompareTo, "compares whole periods, so it takes group_by team or agent, or no group_by; "+
		"for week by week use group_by week without compare_to, or team_weeks.", choices...)
}

// declaredComparable refuses a comparison with the previous period that
// asks for a metric the catalogue declares is not set beside another period
// (compare: none), naming those of offered that can be.
func declaredComparable(metrics, offered []*catalog.Metric) *ask.Refusal {
	return lackingRule(grammar.ArgCompareTo, "sets each figure beside the previous period's, and a metric asked for is declared in the "+
		"catalogue as not set beside another period (compare: none); ask for metrics that can be compared, or leave compare_to out.",
		metrics, offered, notCompared)
}

// notCompared reports whether the catalogue declares a metric is not set
// beside another period.
func notCompared(m *catalog.Metric) bool { return m.Compare == catalog.CompareNone }

// lackingRule refuses argument, by rule, when one of metrics lacks what it
// asks for, naming those of offered that do not.
func lackingRule(argument, rule string, metrics, offered []*catalog.Metric, lacks func(*catalog.Metric) bool) *ask.Refusal {
	if !slices.ContainsFunc(metrics, lacks) {
		return nil
	}
	var choices []string
	for _, m := range offered {
		if !lacks(m) {
			choices = append(choices, m.ID)
		}
	}
	return ask.Invalid(argument, rule, choices...)
}

// previousBeforeData refuses a previous period (what: "the previous
// period", or "the same days a year earlier") that starts before the first
// day of data of some metric: it would compare whole days with missing ones.
func (e *Engine) previousBeforeData(metrics []*catalog.Metric, prev ask.Period, what string, cov map[string]ask.Coverage, now time.Time) *ask.Refusal {
	var first time.Time
	for _, m := range metrics {
		if c := metricCoverage(m, cov, now, e.cat.Zone()); c.First.After(first) {
			first = c.First
		}
	}
	if !prev.Start.Before(first) {
		return nil
	}
	return ask.Invalid(grammar.ArgCompareTo, fmt.Sprintf("needs %s (%s to %s) to hold data, and the data starts on %s; "+
		"compare a later period, or leave compare_to out.", what, prev.Start.Format(time.DateOnly), prev.End.Format(time.DateOnly), first.Format(time.DateOnly)))
}

// workingDays counts the days of an activity plan's rows on which anyone in
// scope was active.
func workingDays(res *ask.Result) int {
	n := 0
	for _, r := range res.Rows {
		if len(r.Sums) > 0 && r.Sums[0] != nil && *r.Sums[0] > 0 {
			n++
		}
	}
	return n
}

// unlikePeriods says how two periods differ in calendar and working days,
// or "" when they do not; what names the period compared with.
func unlikePeriods(cur, prev ask.Period, what string, curWork, prevWork int) string {
	if cur.Days() == prev.Days() && curWork == prevWork {
		return ""
	}
	span := func(p ask.Period, work int) string {
		return fmt.Sprintf("%s to %s has %d days, %d of them working days", p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly), p.Days(), work)
	}
	return "The two periods are not alike: " + span(cur, curWork) + "; " + what + ", " + span(prev, prevWork) +
		" (a working day is one on which anyone counted here logged time). Set the figures side by side with that in mind."
}

// comparedColumns names the figures of a comparison: for each metric, its
// figure (and a ratio's parts), the previous period's, and the change.
func comparedColumns(metrics []*catalog.Metric) []string {
	var cols []string
	for _, m := range metrics {
		for _, id := range []string{m.ID, m.ID + "_previous"} {
			cols = append(cols, id)
			if m.IsRatio() {
				cols = append(cols, id+"_numerator", id+"_denominator")
			}
		}
		cols = append(cols, changeColumn(m))
	}
	return cols
}

// changeColumn names a metric's change: in percentage points where the
// catalogue says the change reads in points.
func changeColumn(m *catalog.Metric) string {
	if m.Compare == catalog.ComparePoints {
		return m.ID + "_change_points"
	}
	return m.ID + "_change"
}

// appendCompared appends to out a group's figures beside the previous
// period's, under comparedColumns.
func appendCompared(out []any, cur, prev ask.Row, metrics []*catalog.Metric) []any {
	i := 0
	was := padded(prev.Sums, len(cur.Sums))
	for _, m := range metrics {
		n := len(m.Parts())
		c, p := cur.Sums[i:i+n], was[i:i+n]
		out = answer.AppendCells(out, m, c)
		out = answer.AppendCells(out, m, p)
		out = append(out, change(m, c, p))
		i += n
	}
	return out
}

// change is a figure's change from the previous period by the metric's
// compare rule: the difference of counts or hours as they are stated, and
// of ratios divided from each period's summed parts, in percentage points
// where the rule is points. Null when either figure is.
func change(m *catalog.Metric, cur, prev []*float64) any {
	if !m.IsRatio() {
		if cur[0] == nil || prev[0] == nil {
			return nil
		}
		if c, isCount := answer.Figure(m, cur).(int64); isCount {
			return c - answer.Figure(m, prev).(int64)
		}
		return answer.Unsigned(answer.Round(answer.Figure(m, cur).(float64)-answer.Figure(m, prev).(float64), 2))
	}
	if cur[0] == nil || cur[1] == nil || *cur[1] == 0 || prev[0] == nil || prev[1] == nil || *prev[1] == 0 {
		return nil
	}
	d := *cur[0] / *cur[1] - *prev[0] / *prev[1]
	if m.Compare == catalog.ComparePoints {
		d *= 100
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(d, 'g', 6, 64), 64)
	return answer.Unsigned(v)
}
