package reports

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
)

// This file builds the governed part of an answer: definitions, freshness,
// partial flags and notes.

// Kinds of warning: the notes about one answer, which compact keeps and
// Answer.Warnings names.
const (
	WarnCatalogChanged = "catalog_changed" // known_definitions did not match
	WarnClipped        = "clipped"         // the week asked for was cut at today
	WarnToday          = "today"           // the period includes today
	WarnNoData         = "no_data"         // a source holds no data at all
	WarnNotLoaded      = "not_loaded"      // a source is loaded only to before the period
	WarnPartlyLoaded   = "partly_loaded"   // a source is loaded only to inside the period
	WarnNotFinal       = "not_final"       // some days' figures will still change
	WarnLeftOut        = "left_out"        // agent-days with an unknown part were left out
	WarnBeforeData     = "before_data"     // the period starts before the first day of data
	WarnLiveInstead    = "live_instead"    // live figures stand in for nightly ones
	WarnPresence       = "presence"        // agents counted only on some days
	WarnCutWeeks       = "cut_weeks"       // the period cuts weeks short
	WarnCutMonths      = "cut_months"      // the period cuts calendar months or quarters short
	WarnTruncated      = "truncated"       // rows past the cap are not shown
	WarnTies           = "ties"            // rows tied at a top_n cut are kept
	WarnTieCut         = "tie_cut"         // the row cap splits a tie
	WarnWeeksShifted   = "weeks_shifted"   // team_weeks ends a week earlier
	WarnUnlikePeriods  = "unlike_periods"  // compared periods differ in calendar or working days
	WarnMembers        = "members"         // compared periods count different agents or teams
	WarnToDate         = "to_date"         // a period so far compared through its last final day
	WarnTotalsOnly     = "totals_only"     // the caller sees the floor's totals, not its teams' or agents' figures
	WarnYearEarlier    = "year_earlier"    // which days a year earlier the figures are set beside
)

// note is a warning with its kind.
type note struct{ kind, text string }

// governor fills an answer's answer.Governed as its figures are gathered.
type governor struct {
	e        *Engine
	g        *answer.Governed
	now      time.Time
	period   ask.Period
	compact  bool
	byRef    bool
	warnings []note   // about this result: kept by compact
	standing []string // how figures are counted, by note ID: dropped by compact
	gaps     []gap    // metrics whose figures are missing days or not final

	room [8]string // standing's first notes, as many as an answer usually has

	// stated is the last through the answer stated, as it stated it:
	// metrics read from one source, and the source, state the same dates,
	// written once.
	stated     through
	statedAs   answer.DataThrough
	statedOnce bool
}

// gap is one reason some metrics' figures are incomplete; metrics that share
// a reason share a note.
type gap struct {
	kind    string
	format  string // with %s for the metric list, then the date, then the reason
	date    string
	reason  string
	metrics []string
}

func (e *Engine) governor(g *answer.Governed, now time.Time, p ask.Period, compact bool, knownDefinitions string) *governor {
	*g = answer.Governed{
		Metrics:        map[string]*answer.MetricInfo{},
		Period:         answer.PeriodInfoOf(p, e.cat.Zone()),
		DataThrough:    map[string]answer.DataThrough{},
		Notes:          []string{},
		PartialMetrics: []string{},
		CatalogVersion: e.cat.Version(),
	}
	gv := &governor{e: e, g: g, now: now, period: p, compact: compact, byRef: knownDefinitions == e.cat.Version()}
	gv.standing = gv.room[:0]
	if knownDefinitions != "" && !gv.byRef {
		gv.warn(WarnCatalogChanged, "known_definitions does not match this catalogue (catalog_version "+e.cat.Version()+"), so the full definitions and notes are included.")
	}
	if p.Clipped {
		gv.warn(WarnClipped, "The week asked for has not ended, so the period stops today.")
	}
	return gv
}

func (gv *governor) warn(kind, text string) { gv.warnings = append(gv.warnings, note{kind, text}) }

// stand adds standing notes by their catalogue IDs (catalog.Note), each
// once.
func (gv *governor) stand(ids ...string) {
	for _, id := range ids {
		if !slices.Contains(gv.standing, id) {
			gv.standing = append(gv.standing, id)
		}
	}
}

// describe adds what figures of these metrics, read with this coverage,
// need beside them; leftOut counts, by metric id, the agent-days left out of
// each. A metric already described is skipped.
func (gv *governor) describe(metrics []*catalog.Metric, cov map[string]ask.Coverage, leftOut map[string]int64) {
	zone := gv.e.cat.Zone()
	for _, m := range metrics {
		if _, done := gv.g.Metrics[m.ID]; done {
			continue
		}
		th := metricThrough(m, cov, gv.now, zone)
		info := gv.e.metricInfo(m, gv.public(th), gv.compact, gv.byRef)
		info.LeftOut = leftOut[m.ID]
		gv.g.Metrics[m.ID] = info
		gv.partial(m, th, info.LeftOut)
		for _, s := range m.Sources() {
			if _, done := gv.g.DataThrough[s.Relation]; !done {
				gv.g.DataThrough[s.Relation] = gv.public(sourceThrough(s, cov, gv.now, zone))
				gv.stand(gv.e.cat.SourceNotes(s)...)
			}
		}
	}
	gv.g.Partial = len(gv.g.PartialMetrics) > 0
}

// public is th as the answer states it (through.public), the dates of the
// through stated last not written again. The times compare whole, zone
// included, as the dates are written in it.
func (gv *governor) public(th through) answer.DataThrough {
	if !gv.statedOnce || th != gv.stated {
		gv.stated, gv.statedAs, gv.statedOnce = th, th.public(), true
	}
	return gv.statedAs
}

// partial marks a metric partial when the period reaches past the days its
// figures are whole for, or some agent-days were left out of it, and
// records why.
func (gv *governor) partial(m *catalog.Metric, th through, leftOut int64) {
	p, t := gv.period, calendar.Today(gv.now, gv.e.cat.Zone())
	switch {
	case th.runsTo.IsZero():
		gv.gap(m, WarnNoData, "%s: the source holds no data, so the figures are null (no data), not zero.", "", "")
	case th.runsTo.Before(p.Start):
		gv.gap(m, WarnNotLoaded, "%s: the source is loaded only through %s, before this period, so the figures are null (no data), not zero.",
			th.runsTo.Format(time.DateOnly), "")
	case th.runsTo.Before(p.End):
		gv.gap(m, WarnPartlyLoaded, "%s: the source is loaded only through %s; later days are missing from the figures, not zero.",
			th.runsTo.Format(time.DateOnly), "")
	}
	if p.End.Equal(t) {
		gv.warn(WarnToday, "Today is not over, so every figure for today is part of a day.")
	}
	if !th.complete.IsZero() && th.complete.Before(p.End) && !th.runsTo.Before(p.Start) {
		gv.gap(m, WarnNotFinal, "%s: days after %s are not final yet (%s), so the figures will still change.",
			th.complete.Format(time.DateOnly), settleReason(m))
	}
	if !th.first.IsZero() && p.Start.Before(th.first) && !p.End.Before(th.first) {
		gv.gap(m, WarnBeforeData, "%s: the data starts on %s; the days of the period before it have no figures.", th.first.Format(time.DateOnly), "")
	}
	if leftOut > 0 {
		// Metrics that left out as many agent-days share a note, which
		// finish completes with what can be unknown.
		verb := "are"
		if leftOut == 1 {
			verb = "is"
		}
		gv.gap(m, WarnLeftOut, fmt.Sprintf("%%s: %s with a part not known yet (%%s) %s left out of every part of the figures; "+
			"the figures cover the other agent-days and are partial.", AgentDays(leftOut), verb), "", "")
	}
	if th.complete.IsZero() || th.complete.Before(p.End) || leftOut > 0 {
		gv.g.PartialMetrics = append(gv.g.PartialMetrics, m.ID)
		gv.g.Metrics[m.ID].Partial = true
	}
}

// AgentDays counts agent-days in words.
func AgentDays(n int64) string {
	if n == 1 {
		return "1 agent-day"
	}
	return strconv.FormatInt(n, 10) + " agent-days"
}

// unknownParts says what can be unknown on an agent-day for metrics.
func (gv *governor) unknownParts(ids []string) string {
	var cols []string
	sources := false
	for _, id := range ids {
		m, _ := gv.e.cat.Metric(id)
		for _, p := range m.Parts() {
			for _, c := range p.Expr.Columns() {
				if slices.Contains(p.Source.Nullable, c) && !slices.Contains(cols, c) {
					cols = append(cols, c)
				}
			}
		}
		sources = sources || len(m.Sources()) > 1
	}
	var why []string
	if len(cols) > 0 {
		why = append(why, strings.Join(cols, ", ")+" not in yet")
	}
	if sources {
		why = append(why, "or a source not loaded for the day")
	}
	return strings.Join(why, ", ")
}

func (gv *governor) gap(m *catalog.Metric, kind, format, date, reason string) {
	for i := range gv.gaps {
		if g := &gv.gaps[i]; g.format == format && g.date == date && g.reason == reason {
			g.metrics = append(g.metrics, m.ID)
			return
		}
	}
	gv.gaps = append(gv.gaps, gap{kind: kind, format: format, date: date, reason: reason, metrics: []string{m.ID}})
}

// finish writes the notes: warnings first, then, unless compact, how the
// figures were counted, by reference when the caller holds this
// catalogue's texts. A standing note the catalogue does not name is said in
// full. It returns the kinds of the warnings written.
func (gv *governor) finish() []string {
	for _, g := range gv.gaps {
		if g.kind == WarnLeftOut {
			g.reason = gv.unknownParts(g.metrics)
		}
		args := []any{strings.Join(g.metrics, ", ")}
		if g.date != "" {
			args = append(args, g.date)
		}
		if g.reason != "" {
			args = append(args, g.reason)
		}
		gv.warn(g.kind, fmt.Sprintf(g.format, args...))
	}
	gv.g.Notes = slices.Grow(gv.g.Notes, len(gv.warnings)+len(gv.standing))
	var kinds []string
	for _, n := range gv.warnings {
		if !slices.Contains(gv.g.Notes, n.text) {
			gv.g.Notes = append(gv.g.Notes, n.text)
			if !slices.Contains(kinds, n.kind) {
				kinds = append(kinds, n.kind)
			}
		}
	}
	if gv.compact {
		return kinds
	}
	for _, id := range gv.standing {
		n, named := gv.e.cat.Note(id)
		switch {
		case !named:
			gv.g.Notes = append(gv.g.Notes, id)
		case gv.byRef:
			gv.g.NoteRefs = append(gv.g.NoteRefs, id+"@"+gv.e.cat.Version())
		default:
			gv.g.Notes = append(gv.g.Notes, n.Text)
		}
	}
	return kinds
}

func (e *Engine) metricInfo(m *catalog.Metric, th answer.DataThrough, compact, byRef bool) *answer.MetricInfo {
	info := &answer.MetricInfo{Label: m.Label, Unit: m.Unit, DataThrough: th}
	if m.Basis != nil {
		info.SalesBasis = m.Basis.ID
	}
	if compact {
		return info
	}
	if byRef {
		// The label and unit stay: a figure cannot be shown without them.
		info.DefinitionRef = m.ID + "@" + e.cat.Version()
		return info
	}
	info.Definition = m.Definition()
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

// standCounting adds the standing notes that explain how figures over a
// scope and these metrics were counted.
func (gv *governor) standCounting(scope ask.Scope, groupBy string, metrics []*catalog.Metric) {
	gv.stand(catalog.NoteNull)
	if scope.Kind == ask.ScopeFloor {
		gv.stand(catalog.NoteFloor)
	}
	if scope.Kind != ask.ScopeAgent || groupBy == catalog.GroupTeam {
		gv.stand(catalog.NoteTeamOfDay)
	}
	if slices.ContainsFunc(metrics, (*catalog.Metric).IsRatio) {
		gv.stand(catalog.NoteRatios)
	}
	if slices.ContainsFunc(metrics, func(m *catalog.Metric) bool { return m.LeaveOut }) {
		gv.stand(catalog.NoteLeftOut)
	}
	bases := map[string]bool{}
	for _, m := range metrics {
		if m.Basis != nil {
			bases[m.Basis.ID] = true
		}
	}
	if len(bases) > 1 {
		gv.stand(catalog.NoteBases)
	}
}
