package target

import (
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// periods are the named periods a target applies to, by the kind of
// target period they are part of.
var periods = map[string][]string{
	catalog.TargetWeek:  {"last_week", "this_week", "week_to_date"},
	catalog.TargetMonth: {"last_month", "this_month", "month_to_date"},
}

// Span is a target period: a week or a calendar month.
type Span struct {
	kind  string
	start time.Time
	days  int
}

// SpanFor is the target period that period p is, on day today with weeks
// starting on weekStart. It refuses a period that is none, and one for
// whose kind none of metrics has targets set.
func SpanFor(p ask.Period, today time.Time, weekStart time.Weekday, metrics []*catalog.Metric) (Span, *ask.Refusal) {
	ts, ok := periodOf(p, today, weekStart)
	if !ok {
		return Span{}, notPeriod()
	}
	if r := setFor(metrics, ts); r != nil {
		return Span{}, r
	}
	return ts, nil
}

// periodOf says which target period p is: a whole week or month, or
// one from its first day through today.
func periodOf(p ask.Period, t time.Time, weekStart time.Weekday) (Span, bool) {
	if w := calendar.WeekOf(p.Start, weekStart); p.Start.Equal(w) && !p.End.After(w.AddDate(0, 0, 6)) && (p.End.Equal(w.AddDate(0, 0, 6)) || p.End.Equal(t)) {
		return Span{catalog.TargetWeek, w, 7}, true
	}
	m := time.Date(p.Start.Year(), p.Start.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := m.AddDate(0, 1, -1)
	if p.Start.Equal(m) && !p.End.After(end) && (p.End.Equal(end) || p.End.Equal(t)) {
		return Span{catalog.TargetMonth, m, end.Day()}, true
	}
	return Span{}, false
}

// week is the target period of the week from start.
func week(start time.Time) Span { return Span{catalog.TargetWeek, start, 7} }

// String names the target period: the week or the month it is.
func (ts Span) String() string {
	if ts.kind == catalog.TargetMonth {
		return "the month of " + ts.start.Format("2006-01")
	}
	return "the week of " + ts.start.Format(time.DateOnly)
}

// period is the target period's days.
func (ts Span) period() ask.Period {
	return ask.Period{Start: ts.start, End: ts.start.AddDate(0, 0, ts.days-1)}
}

// Comparable refuses a comparison with targets a call cannot make: targets
// are set per team over a week or a month, for some metrics of cat. Nil
// when the call can make it.
func Comparable(scope ask.Scope, groupBy string, metrics []*catalog.Metric, cat *catalog.Catalog) *ask.Refusal {
	switch {
	case scope.Kind == ask.ScopeAgent:
		return ask.Invalid(grammar.ArgCompareTo, "sets figures beside targets, which are set per team; ask about the agent's team or the floor.", "floor", "team")
	case groupBy != "" && groupBy != catalog.GroupTeam:
		return ask.Invalid(grammar.ArgCompareTo, "with target takes group_by team, or no group_by.", catalog.GroupTeam)
	}
	if !slices.ContainsFunc(metrics, func(m *catalog.Metric) bool { return m.Target != nil }) {
		return ask.Invalid(grammar.ArgCompareTo, "with target needs a metric that has targets; ask for one of these metrics.", MetricIDs(cat)...)
	}
	return nil
}

// MetricIDs are the IDs of cat's metrics that have targets.
func MetricIDs(cat *catalog.Catalog) []string {
	var with []string
	for _, m := range cat.Metrics() {
		if m.Target != nil {
			with = append(with, m.ID)
		}
	}
	return with
}

// setFor refuses a target period none of metrics has targets for:
// the catalogue says which kinds of period each metric's targets are set
// for. The choices are the named periods of the kinds they are set for.
func setFor(metrics []*catalog.Metric, ts Span) *ask.Refusal {
	var kinds, ids []string
	for _, m := range metrics {
		if m.Target == nil {
			continue
		}
		if m.Target.SetFor(ts.kind) {
			return nil
		}
		ids = append(ids, m.ID)
		for _, k := range m.Target.Periods {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	var choices []string
	for _, k := range kinds {
		choices = append(choices, periods[k]...)
	}
	return ask.Invalid(grammar.ArgPeriod, "is a "+ts.kind+", and the targets of "+strings.Join(ids, ", ")+" are set by "+strings.Join(kinds, " and ")+
		" only; ask about a "+strings.Join(kinds, " or ")+", for example with one of these named periods.", choices...)
}

// notPeriod refuses a period no target is set for.
func notPeriod() *ask.Refusal {
	var choices []string
	for _, k := range catalog.TargetPeriods {
		choices = append(choices, periods[k]...)
	}
	return ask.Invalid(grammar.ArgPeriod, "is not a period targets are set for: a whole week or calendar month, or one from its first day "+
		"through today; ask for one, for example with one of these named periods.", choices...)
}
