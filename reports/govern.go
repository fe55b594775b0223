package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
)

// This file builds the governed part of an answer: definitions, freshness,
// partial flags and notes.

// governor fills an answer's Governed as its figures are gathered.
type governor struct {
	e        *Engine
	g        *Governed
	now      time.Time
	period   Period
	compact  bool
	byRef    bool
	warnings []string // about this result: kept by compact
	standing []string // how figures are counted: dropped by compact
	gaps     []gap    // metrics whose figures are missing days or not final
}

// gap is one reason some metrics' figures are incomplete; metrics that share
// a reason share a note.
type gap struct {
	format  string // with %s for the metric list, then the date, then the reason
	date    string
	reason  string
	metrics []string
}

func (e *Engine) governor(g *Governed, now time.Time, p Period, compact bool, knownDefinitions string) *governor {
	*g = Governed{
		Metrics:        map[string]*MetricInfo{},
		Period:         periodInfo(p, e.cat.Zone()),
		DataThrough:    map[string]DataThrough{},
		Notes:          []string{},
		PartialMetrics: []string{},
		CatalogVersion: e.cat.Version(),
	}
	gv := &governor{e: e, g: g, now: now, period: p, compact: compact, byRef: knownDefinitions == e.cat.Version()}
	if knownDefinitions != "" && !gv.byRef {
		gv.warn("known_definitions does not match this catalogue (catalog_version " + e.cat.Version() + "), so the full definitions are included.")
	}
	if p.Clipped {
		gv.warn("The week asked for has not ended, so the period stops today.")
	}
	return gv
}

func (gv *governor) warn(notes ...string)  { gv.warnings = append(gv.warnings, notes...) }
func (gv *governor) stand(notes ...string) { gv.standing = append(gv.standing, notes...) }

// describe adds what figures of these metrics, read with these newest days,
// need beside them. A metric already described is skipped.
func (gv *governor) describe(metrics []*catalog.Metric, newest map[string]time.Time) {
	zone := gv.e.cat.Zone()
	for _, m := range metrics {
		if _, done := gv.g.Metrics[m.ID]; done {
			continue
		}
		th := metricThrough(m, newest, gv.now, zone)
		gv.g.Metrics[m.ID] = gv.e.metricInfo(m, th, gv.compact, gv.byRef)
		gv.partial(m, th)
		for _, s := range m.Sources() {
			if _, done := gv.g.DataThrough[s.Relation]; !done {
				gv.g.DataThrough[s.Relation] = dataThrough(newest[s.ID], s.Settles, gv.now, zone).public()
				gv.stand(s.Notes...)
			}
		}
	}
	gv.g.Partial = len(gv.g.PartialMetrics) > 0
}

// partial marks a metric partial when the period reaches past the days its
// figures are whole for, and records why.
func (gv *governor) partial(m *catalog.Metric, th through) {
	p, t := gv.period, today(gv.now, gv.e.cat.Zone())
	switch {
	case th.runsTo.IsZero():
		gv.gap(m, "%s: the source holds no rows, so the figures are null (no data), not zero.", "", "")
	case th.runsTo.Before(p.Start):
		gv.gap(m, "%s: the source holds rows only up to %s, before this period, so the figures are null (no data), not zero.",
			th.runsTo.Format(time.DateOnly), "")
	case th.runsTo.Before(p.End):
		gv.gap(m, "%s: the source holds rows only up to %s; later days are missing from the figures, not zero.",
			th.runsTo.Format(time.DateOnly), "")
	}
	if p.End.Equal(t) {
		gv.warn("Today is not over, so every figure for today is part of a day.")
	}
	if !th.complete.IsZero() && th.complete.Before(p.End) && !th.runsTo.Before(p.Start) {
		gv.gap(m, "%s: days after %s are not final yet (%s), so the figures will still change.",
			th.complete.Format(time.DateOnly), settleReason(m))
	}
	if th.complete.IsZero() || th.complete.Before(p.End) {
		gv.g.PartialMetrics = append(gv.g.PartialMetrics, m.ID)
	}
}

func (gv *governor) gap(m *catalog.Metric, format, date, reason string) {
	for i := range gv.gaps {
		if g := &gv.gaps[i]; g.format == format && g.date == date && g.reason == reason {
			g.metrics = append(g.metrics, m.ID)
			return
		}
	}
	gv.gaps = append(gv.gaps, gap{format: format, date: date, reason: reason, metrics: []string{m.ID}})
}

// finish writes the notes: warnings first, then, unless compact, how the
// figures were counted.
func (gv *governor) finish() {
	for _, g := range gv.gaps {
		args := []any{strings.Join(g.metrics, ", ")}
		if g.date != "" {
			args = append(args, g.date)
		}
		if g.reason != "" {
			args = append(args, g.reason)
		}
		gv.warn(fmt.Sprintf(g.format, args...))
	}
	gv.g.Notes = append(gv.g.Notes, dedupe(gv.warnings)...)
	if !gv.compact {
		gv.g.Notes = append(gv.g.Notes, dedupe(gv.standing)...)
	}
}

func (e *Engine) metricInfo(m *catalog.Metric, th through, compact, byRef bool) *MetricInfo {
	info := &MetricInfo{Label: m.Label, Unit: m.Unit, DataThrough: th.public()}
	if m.Basis != nil {
		info.SalesBasis = m.Basis.ID
	}
	if compact {
		return info
	}
	if byRef {
		info.DefinitionRef = m.ID + "@" + e.cat.Version()
	} else {
		info.Definition = m.Definition()
	}
	info.Formula = m.Formula()
	info.Source = m.Relation()
	return info
}

func settleReason(m *catalog.Metric) string {
	if m.Basis != nil && m.Basis.Settles != nil {
		return "on the " + m.Basis.ID + " basis, a day is " + m.Basis.Settles.String()
	}
	return "a day is " + m.Settles().String()
}

// countingNotes explain how figures over a scope and these metrics were
// counted.
func countingNotes(scope Scope, groupBy string, metrics []*catalog.Metric) []string {
	notes := []string{"Null means no data, never zero."}
	if scope.Kind == ScopeFloor {
		notes = append(notes, "The floor is the teams that counted as sales teams on each day; a team that joined or left the floor counts only for its days on it.")
	}
	if scope.Kind != ScopeAgent || groupBy == catalog.GroupTeam {
		notes = append(notes, "Each agent's day counts for the team the agent was on that day.")
	}
	if slices.ContainsFunc(metrics, (*catalog.Metric).IsRatio) {
		notes = append(notes, "Ratios are sums divided by sums over each row's group, never averages of rates; the summed numerator and denominator stand beside each ratio. A ratio is null when there is nothing to divide by.")
	}
	bases := map[string]bool{}
	for _, m := range metrics {
		if m.Basis != nil {
			bases[m.Basis.ID] = true
		}
	}
	if len(bases) > 1 {
		notes = append(notes, "These figures count sales on different bases ("+strings.Join(sortedSet(bases), ", ")+"); never add or compare figures across bases.")
	}
	return notes
}

func dedupe(notes []string) []string {
	var out []string
	for _, n := range notes {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
