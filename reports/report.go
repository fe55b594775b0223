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
	a, r := c.arguments(raw)
	if r != nil {
		return c.refuse(r)
	}
	req, r := decodeReportArgs(rep, a, len(countedSums(rep)) > 1)
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
	newest, err := e.sourcesNewest(ctx, rep.Metrics)
	if err != nil {
		return e.fault(c, err)
	}
	metrics, r := e.chooseMetrics(rep, req)
	if r != nil {
		return c.refuse(r)
	}
	var notes []string
	if req.Metrics == nil && !req.CompareCounts {
		metrics, notes = e.liveInstead(rep, metrics, period, newest)
	}
	if req.Sort != nil || req.TopN > 0 {
		if r := e.unfinished(metrics, period, newest, c.now, "a ranking (sort or top_n)"); r != nil {
			return c.refuse(r)
		}
	}
	limit := e.cat.Limits().MaxRows
	if req.TopN > 0 {
		limit = req.TopN
	}
	plan := &Plan{Catalog: e.cat, Metrics: metrics, Scope: scope, Period: period,
		GroupBy: req.GroupBy, Sort: req.Sort, Limit: limit + 1}
	activity := e.cat.Activity()
	if activity == nil || scope.Kind != ScopeAgent || req.GroupBy != catalog.GroupDay {
		activity = nil
	} else {
		plan.Metrics = append(slices.Clip(metrics), activity)
	}
	results, err := e.store.Run(ctx, plan)
	if err != nil {
		return e.fault(c, err)
	}
	res := results[0]
	ans := e.assemble(c, req, plan, res, dir, activity)
	ans.Notes = append(notes, ans.Notes...)
	return &Answer{Body: ans, Rows: len(ans.Rows)}
}

// liveInstead swaps a report's default metrics for its live ones when the
// period lies wholly past what the nightly sources hold: today's sales come
// from the live board until the nightly build has loaded the day.
func (e *Engine) liveInstead(rep *catalog.Report, defaults []*catalog.Metric, p Period, newest map[string]time.Time) ([]*catalog.Metric, []string) {
	for _, m := range defaults {
		for _, s := range m.Sources() {
			if n, ok := newest[s.ID]; ok && !n.Before(p.Start) {
				return defaults, nil
			}
		}
	}
	var live []*catalog.Metric
	for _, m := range rep.Metrics {
		if !slices.ContainsFunc(m.Sources(), func(s *catalog.Source) bool { return s.Refresh != catalog.RefreshLive }) {
			live = append(live, m)
		}
	}
	if len(live) == 0 {
		return defaults, nil
	}
	var ids []string
	for _, m := range defaults {
		ids = append(ids, m.ID)
	}
	return live, []string{fmt.Sprintf("The nightly build has not loaded these days yet, so %s come from the live source instead of %s; "+
		"they are partial and the nightly figures replace them once it has.", joinIDs(live), strings.Join(ids, ", "))}
}

// unfinished refuses a comparison over days that are not final for every
// metric in it, and names periods that would work.
func (e *Engine) unfinished(metrics []*catalog.Metric, p Period, newest map[string]time.Time, now time.Time, what string) *Refusal {
	var last time.Time
	var blocking *catalog.Metric
	for _, m := range metrics {
		th := metricThrough(m, newest, now, e.cat.Zone())
		if th.complete.Before(p.End) && (blocking == nil || th.complete.Before(last)) {
			blocking, last = m, th.complete
		}
	}
	if blocking == nil {
		return nil
	}
	var choices []string
	for _, name := range NamedPeriods {
		if np := namedPeriod(name, today(now, e.cat.Zone()), e.cat.WeekStart()); !np.End.After(last) {
			choices = append(choices, name)
		}
	}
	rule := fmt.Sprintf("%s cannot include days that are not final: %s is final only through %s. End the period on or before %s",
		what, blocking.ID, dateOrNever(last), dateOrNever(last))
	if len(choices) > 0 {
		rule += ", for example with one of these named periods"
	}
	return &Refusal{Code: CodeNotComparable, Argument: "period", Rule: rule + ".", Choices: append([]string{}, choices...)}
}

func dateOrNever(d time.Time) string {
	if d.IsZero() {
		return "no day yet"
	}
	return d.Format(time.DateOnly)
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
func (e *Engine) assemble(c *call, req *Request, plan *Plan, res *Result, dir *Directory, activity *catalog.Metric) *ReportAnswer {
	shown := plan.Metrics
	if activity != nil {
		shown = shown[:len(shown)-1]
	}
	ans := &ReportAnswer{RequestID: c.id, Columns: columnsFor(plan.GroupBy, shown), Rows: [][]any{}}
	ans.Request = Echo{Tool: c.tool, Who: whoEcho(plan.Scope, dir), GroupBy: plan.GroupBy, TopN: req.TopN,
		Compact: req.Compact, CompareCounts: req.CompareCounts, Metrics: metricIDs(shown)}
	if plan.Sort != nil {
		ans.Request.Sort = &SortEcho{Metric: plan.Sort.Metric, Direction: plan.Sort.Direction}
	}
	if activity != nil {
		ans.Columns = append(ans.Columns, "no_activity")
	}
	rows := res.Rows
	if len(rows) > plan.Limit-1 {
		rows = rows[:plan.Limit-1]
		ans.Truncated = req.TopN == 0
	}
	for _, r := range rows {
		row := rowFor(plan.GroupBy, r, shown, dir)
		if activity != nil {
			row = append(row, noActivity(r.Sums[len(r.Sums)-1]))
		}
		ans.Rows = append(ans.Rows, row)
	}
	gv := e.governor(&ans.Governed, c.now, plan.Period, req.Compact, req.KnownDefinitions)
	gv.describe(shown, res.Newest)
	if activity != nil {
		for _, s := range activity.Sources() {
			ans.DataThrough[s.Relation] = dataThrough(res.Newest[s.ID], s.Settles, c.now, e.cat.Zone()).public()
			gv.stand(s.Notes...)
		}
	}
	if ans.Truncated {
		gv.warn(fmt.Sprintf("Only the first %d rows are shown; narrow the call (a team instead of the floor, a shorter period, or top_n with sort) to see the rest.", plan.Limit-1))
	}
	gv.stand(countingNotes(plan.Scope, plan.GroupBy, shown)...)
	if activity != nil {
		gv.stand("no_activity is true for a day with zero " + activity.ID + ", false when there was some, and null when " + activity.ID + " is not in yet or the day has no row.")
	}
	gv.finish()
	return ans
}

// noActivity reads the activity metric's sum: zero is no activity, null is
// not known.
func noActivity(v *float64) any {
	if v == nil {
		return nil
	}
	return *v == 0
}

func metricIDs(ms []*catalog.Metric) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
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
