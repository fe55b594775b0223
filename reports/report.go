package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
)

// This file answers the report tools declared in the catalogue.

func (e *Engine) report(ctx context.Context, c *call, rep *catalog.Report, raw json.RawMessage) *Answer {
	req, r := decodeReport(rep, raw, len(countedSums(rep)) > 1)
	if r != nil {
		return c.refuse(r)
	}
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return e.fault(c, err)
	}
	scope, cands, r := dir.resolveWho(req.Who)
	if r != nil {
		return c.refuse(r)
	}
	if cands != nil {
		return e.candidates(c, req.Who, cands)
	}
	period, r := resolvePeriod(req.Period, c.now, e.cat)
	if r != nil {
		return c.refuse(r)
	}
	metrics, r := e.chooseMetrics(rep, req)
	if r != nil {
		return c.refuse(r)
	}
	limit := e.cat.Limits().MaxRows
	if req.TopN > 0 {
		limit = req.TopN
	}
	plan := &Plan{Catalog: e.cat, Metrics: metrics, Scope: scope, Period: period,
		GroupBy: req.GroupBy, Sort: req.Sort, Limit: limit + 1}
	res, err := e.store.Run(ctx, plan)
	if err != nil {
		return e.fault(c, err)
	}
	ans := e.assemble(c, req, plan, res, dir)
	return &Answer{Body: ans, Rows: len(ans.Rows)}
}

// countedSums returns a report's count metrics that carry a counting basis,
// one per basis, in report order: what compare_counts sets side by side.
func countedSums(rep *catalog.Report) []*catalog.Metric {
	var out []*catalog.Metric
	seen := map[*catalog.Basis]bool{}
	for _, m := range rep.Metrics {
		if m.Basis != nil && !m.IsRatio() && m.Unit == catalog.UnitCount && !seen[m.Basis] {
			seen[m.Basis] = true
			out = append(out, m)
		}
	}
	return out
}

// chooseMetrics picks the metrics a call asked for, the defaults, or for
// compare_counts one count per basis; and checks the sort against them.
func (e *Engine) chooseMetrics(rep *catalog.Report, req *Request) ([]*catalog.Metric, *Refusal) {
	metrics := rep.Defaults
	switch {
	case req.CompareCounts && req.Metrics != nil:
		return nil, invalid(argCompareCounts, "chooses its own metrics (one count per basis); leave metrics out or set compare_counts to false")
	case req.CompareCounts:
		metrics = countedSums(rep)
	case req.Metrics != nil:
		metrics = nil
		for _, id := range req.Metrics {
			m, _ := e.cat.Metric(id)
			metrics = append(metrics, m)
		}
	}
	if req.Sort != nil && !slices.ContainsFunc(metrics, func(m *catalog.Metric) bool { return m.ID == req.Sort.Metric }) {
		ids := make([]string, len(metrics))
		for i, m := range metrics {
			ids[i] = m.ID
		}
		return nil, invalid("sort.metric", "must be one of the metrics this call returns; add it to metrics or sort by another", ids...)
	}
	return metrics, nil
}

// assemble builds the answer: rows, definitions, freshness, partial flags
// and notes.
func (e *Engine) assemble(c *call, req *Request, plan *Plan, res *Result, dir *Directory) *ReportAnswer {
	zone := e.cat.Zone()
	ans := &ReportAnswer{
		RequestID:      c.id,
		Columns:        columnsFor(plan.GroupBy, plan.Metrics),
		Rows:           [][]any{},
		Metrics:        map[string]*MetricInfo{},
		Period:         periodInfo(plan.Period, zone),
		DataThrough:    map[string]DataThrough{},
		Notes:          []string{},
		PartialMetrics: []string{},
		CatalogVersion: e.cat.Version(),
	}
	ans.Request = Echo{Tool: c.tool, Who: whoEcho(plan.Scope, dir), GroupBy: plan.GroupBy, TopN: req.TopN,
		Compact: req.Compact, CompareCounts: req.CompareCounts}
	for _, m := range plan.Metrics {
		ans.Request.Metrics = append(ans.Request.Metrics, m.ID)
	}
	if plan.Sort != nil {
		ans.Request.Sort = &SortEcho{Metric: plan.Sort.Metric, Direction: plan.Sort.Direction}
	}
	rows := res.Rows
	if len(rows) > plan.Limit-1 {
		rows = rows[:plan.Limit-1]
		ans.Truncated = req.TopN == 0
	}
	for _, r := range rows {
		ans.Rows = append(ans.Rows, rowFor(plan.GroupBy, r, plan.Metrics, dir))
	}
	var warnings, standing []string
	byRef := req.KnownDefinitions == e.cat.Version()
	if req.KnownDefinitions != "" && !byRef {
		warnings = append(warnings, "known_definitions does not match this catalogue (catalog_version "+e.cat.Version()+"), so the full definitions are included.")
	}
	for _, m := range plan.Metrics {
		th := metricThrough(m, res.Newest, c.now, zone)
		ans.Metrics[m.ID] = e.metricInfo(m, th, req.Compact, byRef)
		warnings = append(warnings, e.partial(ans, m, th, plan.Period, c.now)...)
	}
	for _, s := range plan.Sources() {
		th := dataThrough(res.Newest[s.ID], s.Settles, c.now, zone)
		ans.DataThrough[s.Relation] = th.public()
		standing = append(standing, s.Notes...)
	}
	ans.Partial = len(ans.PartialMetrics) > 0
	if plan.Period.Clipped {
		warnings = append(warnings, "The week asked for has not ended, so the period stops today.")
	}
	if ans.Truncated {
		warnings = append(warnings, fmt.Sprintf("Only the first %d rows are shown; narrow the call (a team instead of the floor, a shorter period, or top_n with sort) to see the rest.", plan.Limit-1))
	}
	ans.Notes = append(ans.Notes, dedupe(warnings)...)
	if !req.Compact {
		ans.Notes = append(ans.Notes, e.standingNotes(plan)...)
		ans.Notes = append(ans.Notes, dedupe(standing)...)
	}
	return ans
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

// partial marks a metric partial when the period reaches past the days its
// figures are whole for, and says why.
func (e *Engine) partial(ans *ReportAnswer, m *catalog.Metric, th through, p Period, now time.Time) []string {
	t := today(now, e.cat.Zone())
	var notes []string
	switch {
	case th.runsTo.IsZero():
		notes = append(notes, m.ID+": its source holds no rows, so the figure is null (no data), not zero.")
	case th.runsTo.Before(p.Start):
		notes = append(notes, fmt.Sprintf("%s: its source holds rows only up to %s, before this period, so the figure is null (no data), not zero.",
			m.ID, th.runsTo.Format(time.DateOnly)))
	case th.runsTo.Before(p.End):
		notes = append(notes, fmt.Sprintf("%s: its source holds rows only up to %s; days after that are missing from the figure, not zero.",
			m.ID, th.runsTo.Format(time.DateOnly)))
	}
	if p.End.Equal(t) {
		notes = append(notes, "Today is not over, so every figure for today is part of a day.")
	}
	if !th.complete.IsZero() && th.complete.Before(p.End) && !th.runsTo.Before(p.Start) {
		notes = append(notes, fmt.Sprintf("%s: days after %s are not final yet (%s), so the figure will still change.",
			m.ID, th.complete.Format(time.DateOnly), settleReason(m)))
	}
	if th.complete.IsZero() || th.complete.Before(p.End) {
		ans.PartialMetrics = append(ans.PartialMetrics, m.ID)
	}
	return notes
}

func settleReason(m *catalog.Metric) string {
	if m.Basis != nil && m.Basis.Settles != nil {
		return "on the " + m.Basis.ID + " basis, a day is " + m.Basis.Settles.String()
	}
	return "a day is " + m.Settles().String()
}

// standingNotes explain how the figures were counted; compact drops them.
func (e *Engine) standingNotes(plan *Plan) []string {
	notes := []string{"Null means no data, never zero."}
	switch plan.Scope.Kind {
	case ScopeFloor:
		notes = append(notes, "The floor is the teams that counted as sales teams on each day; a team that joined or left the floor counts only for its days on it.")
	}
	if plan.Scope.Kind != ScopeAgent || plan.GroupBy == catalog.GroupTeam {
		notes = append(notes, "Each agent's day counts for the team the agent was on that day.")
	}
	if slices.ContainsFunc(plan.Metrics, (*catalog.Metric).IsRatio) {
		notes = append(notes, "Ratios are sums divided by sums over each row's group, never averages of rates; the summed numerator and denominator stand beside each ratio. A ratio is null when there is nothing to divide by.")
	}
	bases := map[string]bool{}
	for _, m := range plan.Metrics {
		if m.Basis != nil {
			bases[m.Basis.ID] = true
		}
	}
	if len(bases) > 1 {
		notes = append(notes, "These figures count sales on different bases ("+strings.Join(sortedSet(bases), ", ")+"); never add or compare figures across bases.")
	}
	return notes
}

func (e *Engine) candidates(c *call, w WhoArg, cands []Candidate) *Answer {
	arg, what, key := "who.agent", "agents", "agent_key"
	if w.Team != "" {
		arg, what, key = "who.team", "teams", "team_key"
	}
	return &Answer{Body: &CandidatesAnswer{
		RequestID:  c.id,
		Argument:   arg,
		Candidates: cands,
		Notes: []string{"Several " + what + " match, so no figures are returned. Ask which one is meant, then call again with " +
			arg + " set to its " + key + "."},
		CatalogVersion: e.cat.Version(),
	}}
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
