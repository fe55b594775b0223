package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
	"plumbline/reports/target"
)

// This file answers the report tools declared in the catalogue.

func (e *Engine) report(ctx context.Context, c *call, rep *catalog.Report, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r != nil {
		return c.refuse(r)
	}
	req, r := a.Report(rep, e.cat.PeriodNames())
	if r == nil {
		r = ranksGroups(req, rep)
	}
	if r == nil {
		r = comparable(req, rep)
	}
	if r == nil {
		r = cumulates(req, rep)
	}
	if r != nil {
		return c.refuse(r)
	}
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return e.fault(c, err)
	}
	scope, cands, r := resolveWithin(dir, req.Who, c.reach, c.caller.Person)
	if r != nil {
		return c.refuse(r)
	}
	if cands != nil {
		return e.candidates(c, req.Who, cands)
	}
	if r := totalsGrouped(scope, req.GroupBy, rep.GroupBy); r != nil {
		return c.refuse(r)
	}
	period, r := resolvePeriod(req.Period, c.now, e.cat, req.GroupBy == catalog.GroupDay)
	if r == nil {
		r = byDayBound(period, req.GroupBy, req.Cumulative, rep.GroupBy, e.cat.Limits(), e.cat.WeekStart())
	}
	if r != nil {
		return c.refuse(r)
	}
	cov, err := e.sourcesCoverage(ctx, rep.Metrics)
	if err != nil {
		return e.fault(c, err)
	}
	metrics, r := e.chooseMetrics(rep, req)
	if r != nil {
		return c.refuse(r)
	}
	var live []string
	if req.Metrics == nil && !req.CompareCounts && req.CompareTo != grammar.CompareTarget {
		// Targets are set for the nightly figures, so a call against them
		// keeps those even before the nightly build has loaded a day.
		metrics, live = e.liveInstead(rep, metrics, period, cov, c.now)
	}
	if req.Cumulative {
		if r := declaredCumulative(metrics, rep.Metrics); r != nil {
			return c.refuse(r)
		}
	}
	if req.Sort != nil && !slices.ContainsFunc(metrics, func(m *catalog.Metric) bool { return m.ID == req.Sort.Metric }) {
		return c.refuse(ask.Invalid("sort.metric", "must be one of the metrics this call returns; add it to metrics or sort by another.", metricIDs(metrics)...))
	}
	if req.TopN > 0 && req.Sort == nil {
		req.Sort = &grammar.SortArg{Metric: metrics[0].ID, Direction: "desc"}
	}
	if r := e.beforeData(metrics, period, cov, c.now); r != nil {
		return c.refuse(r)
	}
	against := "the previous period"
	if req.CompareTo == grammar.ComparePreviousYear {
		against = "the same days a year earlier"
	}
	if req.AgainstPeriod() {
		if r := declaredComparable(metrics, rep.Metrics); r != nil {
			return c.refuse(r)
		}
		if r := e.unfinished(metrics, period, cov, c.now, "a comparison with "+against+" (compare_to)"); r != nil {
			final, ok := e.finalSoFar(metrics, period, cov, c.now)
			if !ok {
				return c.refuse(r)
			}
			period = final
		}
	}
	if req.Sort != nil {
		if r := e.unfinished(metrics, period, cov, c.now, "a ranking (sort or top_n)"); r != nil {
			return c.refuse(r)
		}
	}
	var previous ask.Period
	var yearNote string
	var tg *target.Comparison
	switch req.CompareTo {
	case grammar.CompareTarget:
		if r := totalsTargeted(scope); r != nil {
			return c.refuse(r)
		}
		if r := target.Comparable(scope, req.GroupBy, metrics, e.cat); r != nil {
			return c.refuse(r)
		}
		ts, r := target.SpanFor(period, calendar.Today(c.now, e.cat.Zone()), e.cat.WeekStart(), metrics)
		if r != nil {
			return c.refuse(r)
		}
		// A team's target holds on its days on the floor, so its figures
		// beside the target count those days only.
		scope.OnFloor = scope.Kind == ask.ScopeTeam
		tg = target.New(dir, ts, period, metrics, e.loaded(cov, c.now))
	case grammar.ComparePreviousPeriod:
		previous = calendar.Previous(period)
	case grammar.ComparePreviousYear:
		previous, yearNote = calendar.YearEarlier(period, e.cat.WeekStart())
	}
	if req.AgainstPeriod() {
		if r := e.previousBeforeData(metrics, previous, against, cov, c.now); r != nil {
			return c.refuse(r)
		}
	}
	plan := &ask.Plan{Catalog: e.cat, Metrics: metrics, Scope: scope, Period: period, Today: calendar.Today(c.now, e.cat.Zone()),
		GroupBy: req.GroupBy, Ranked: req.Sort != nil, Limit: e.cat.Limits().MaxRows + 1}
	activity := e.cat.Activity()
	if activity == nil || scope.Kind != ask.ScopeAgent || req.GroupBy != catalog.GroupDay {
		activity = nil
	} else {
		plan.Metrics = append(slices.Clip(metrics), activity)
	}
	plans := []*ask.Plan{plan}
	if req.AgainstPeriod() {
		plans = append(plans, over(plan, previous))
		if a := e.cat.Activity(); a != nil {
			// The days anyone in scope was active, in each period.
			days := &ask.Plan{Catalog: e.cat, Metrics: []*catalog.Metric{a}, Scope: scope, Period: period, Today: plan.Today,
				GroupBy: catalog.GroupDay, Limit: max(e.cat.Limits().MaxDays, period.Days(), previous.Days()) + 1} // every day, of a year too
			plans = append(plans, days, over(days, previous))
		}
	}
	results, err := e.store.Run(ctx, plans...)
	if err != nil {
		return e.fault(c, err)
	}
	ans := &answer.Report{RequestID: c.id, Rows: [][]any{}}
	ans.Request = answer.Echo{Tool: c.tool, Who: whoEcho(plan.Scope, dir), GroupBy: plan.GroupBy, TopN: req.TopN,
		Compact: req.Compact, CompareCounts: req.CompareCounts, CompareTo: req.CompareTo, Cumulative: req.Cumulative, Metrics: metricIDs(metrics)}
	if req.Sort != nil {
		ans.Request.Sort = &answer.Sort{Metric: req.Sort.Metric, Direction: req.Sort.Direction}
	}
	gv := e.governor(&ans.Governed, c.now, plan.Period, req.Compact, req.KnownDefinitions)
	if scope.Totals {
		gv.warn(WarnTotalsOnly, "These are the floor's totals: your reach shows them, and not each team's or agent's figures on the floor beyond your own.")
	}
	for _, n := range live {
		gv.warn(WarnLiveInstead, n)
	}
	if !period.AskedEnd.IsZero() {
		gv.warn(WarnToDate, soFarNote(period, previous, req.CompareTo == grammar.ComparePreviousYear))
	}
	if yearNote != "" {
		gv.warn(WarnYearEarlier, yearNote)
	}

	var cmp *comparison
	if req.AgainstPeriod() {
		cmp = &comparison{plan: plans[1], res: results[1]}
		info := answer.PeriodInfoOf(previous, e.cat.Zone())
		ans.PreviousPeriod = &info
		if len(results) == 4 {
			if n := unlikePeriods(period, previous, against, workingDays(results[2]), workingDays(results[3])); n != "" {
				gv.warn(WarnUnlikePeriods, n)
			}
		}
	}
	t := e.table(plan, results[0], cmp, req.Cumulative, dir, c.now, gv, req.Sort, req.TopN, metrics, c.namer(plan.Scope))
	if tg != nil {
		t.columns = append(answer.KeyColumns(plan.GroupBy), tg.Columns(metrics)...)
		for i, r := range t.kept {
			holder := r.Key
			if plan.GroupBy == "" {
				holder = target.Holder(scope)
			}
			t.rows[i] = append(appendKeyCells(nil, plan.GroupBy, r, dir, period), tg.Beside(r, metrics, holder)...)
		}
		tg.Notes(gv.warn, metrics)
		tg.Stamp(ans.Metrics, metrics)
	}
	ans.Columns, ans.Rows, ans.Truncated = t.columns, t.rows, t.truncated
	if activity != nil {
		ans.Columns = append(ans.Columns, "no_activity")
		for i, r := range t.kept {
			ans.Rows[i] = append(ans.Rows[i], noActivity(r.Sums[len(r.Sums)-1]))
		}
		for _, s := range activity.Sources() {
			ans.DataThrough[s.Relation] = sourceThrough(s, results[0].Coverage, c.now, e.cat.Zone()).public()
			gv.stand(e.cat.SourceNotes(s)...)
		}
		gv.stand(catalog.NoteNoActivity)
	}
	gv.standCounting(plan.Scope, plan.GroupBy, metrics)
	if own, ok := e.cat.Period(period.Named); ok {
		gv.stand(own.NoteID())
	}
	return &Answer{Body: ans, Rows: len(ans.Rows), Warnings: gv.finish()}
}

// ranksGroups refuses a ranking with nothing to rank: top_n and sort order
// groups, so they need group_by.
func ranksGroups(req *grammar.Request, rep *catalog.Report) *ask.Refusal {
	if req.GroupBy != "" {
		return nil
	}
	switch {
	case req.TopN > 0:
		return ask.Invalid(grammar.ArgTopN, "keeps the first groups of a ranking, so it needs group_by; add group_by or leave top_n out.", rep.GroupBy...)
	case req.Sort != nil:
		return ask.Invalid(grammar.ArgSort, "orders groups, so it needs group_by; add group_by or leave sort out.", rep.GroupBy...)
	}
	return nil
}

// shownTable is a plan's rows as an answer shows them.
type shownTable struct {
	columns   []string
	rows      [][]any
	kept      []ask.Row // the groups shown, with their figures
	before    []ask.Row // the compared period's groups, with their figures
	truncated bool
}

// table fills, ranks and cuts a plan's rows, renders them under metrics (the
// plan's metrics but for any it reads only for a column of its own), and
// adds to gv what they need: definitions, freshness, and the notes on cut
// rows, ties, cut weeks and agents counted on only some days.
//
// With a comparison, each row sets the group's figures beside the compared
// period's, and the groups shown are those of either period.
//
// Cumulative rows hold running totals of metrics, day by day.
func (e *Engine) table(plan *ask.Plan, res *ask.Result, cmp *comparison, cumulative bool, dir *directory.Directory, now time.Time, gv *governor, sort *grammar.SortArg, topN int,
	metrics []*catalog.Metric, named func(team string) bool) shownTable {
	// Who counts on which days, worked out once for each period.
	stints := dir.Stints(plan.Scope, plan.Period)
	var stintsBefore []directory.Stint
	var extra []string
	var before []ask.Row
	previous := map[string]ask.Row{}
	if cmp != nil {
		stintsBefore = dir.Stints(cmp.plan.Scope, cmp.plan.Period)
		extra = groupKeys(cmp.plan, cmp.res, dir)
		before = fill(cmp.plan, cmp.res, dir, stintsBefore, cmp.res.Coverage, now, groupKeys(plan, res, dir))
		for _, r := range before {
			previous[r.Key] = r
		}
	}
	rows := fill(plan, res, dir, stints, res.Coverage, now, extra)
	if cmp != nil && cmp.weekBefore {
		for _, r := range rows {
			previous[r.Key] = r
		}
	}
	if cumulative {
		runningTotals(rows, (&ask.Plan{Metrics: metrics}).NumParts())
	}
	if sort != nil {
		rank(rows, plan.Metrics, sort)
	}
	max := e.cat.Limits().MaxRows
	n := max
	if topN > 0 {
		n = topN
	}
	kept, tied, split := cutRows(rows, plan.Metrics, sort, n, max)
	t := shownTable{columns: answer.Columns(plan.GroupBy, metrics), rows: make([][]any, len(kept)), kept: kept, before: before,
		truncated: topN == 0 && len(rows) > max || split}
	if cmp != nil {
		t.columns = append(answer.KeyColumns(plan.GroupBy), comparedColumns(metrics)...)
	}
	// Every row's cells in one array, each row capped at its own end.
	cells := make([]any, 0, len(kept)*len(t.columns))
	for i, r := range kept {
		start := len(cells)
		if cmp != nil {
			cells = appendKeyCells(cells, plan.GroupBy, r, dir, plan.Period)
			cells = appendCompared(cells, r, previous[cmp.previousKey(r.Key)], metrics)
		} else {
			cells = appendRow(cells, plan.GroupBy, r, metrics, dir, plan.Period)
		}
		t.rows[i] = cells[start:len(cells):len(cells)]
	}
	if plan.GroupBy == catalog.GroupTeam {
		// An agent's days on a team the answer may not name (outside the
		// caller's reach) show without its key or name, as in the agent's
		// teams over time on the roster.
		for i, r := range kept {
			if !named(r.Key) {
				t.rows[i][0], t.rows[i][1] = nil, nil
			}
		}
	}
	leftOut := map[string]int64{}
	for j, m := range plan.Metrics {
		if j < len(res.LeftOut) {
			leftOut[m.ID] = res.LeftOut[j]
		}
		if cmp != nil && j < len(cmp.res.LeftOut) {
			leftOut[m.ID] += cmp.res.LeftOut[j]
		}
	}
	gv.describe(metrics, res.Coverage, leftOut)
	switch {
	case split:
		gv.warn(WarnTieCut, fmt.Sprintf("More rows tie on %s with the last row shown than the cap of %d rows holds, so the cut splits a tie; "+
			"narrow the call (a team instead of the floor, or a shorter period) to see every tied row.", sort.Metric, max))
	case t.truncated:
		gv.warn(WarnTruncated, fmt.Sprintf("Only the first %d rows are shown; narrow the call (a team instead of the floor, a shorter period, or top_n with sort) to see the rest.", max))
	}
	if tied > 0 {
		gv.warn(WarnTies, fmt.Sprintf("%d more rows tie on %s with row %d, so %d rows are shown instead of %d.", tied, sort.Metric, n, len(kept), n))
	}
	switch plan.GroupBy {
	case catalog.GroupWeek:
		if cut := cutBuckets(plan.GroupBy, kept, plan.Period); len(cut) > 0 {
			gv.warn(WarnCutWeeks, "The period cuts weeks short: "+strings.Join(cut, "; ")+". Their figures cover only those days; compare whole weeks only.")
		}
	case catalog.GroupMonth, catalog.GroupQuarter:
		if cut := cutBuckets(plan.GroupBy, kept, plan.Period); len(cut) > 0 {
			gv.warn(WarnCutMonths, "The period cuts "+plan.GroupBy+"s short: "+strings.Join(cut, "; ")+". Their figures cover only those days; compare whole "+
				plan.GroupBy+"s only.")
		}
	}
	var agents []string
	switch {
	case plan.Scope.Kind == ask.ScopeAgent:
		agents = []string{plan.Scope.Key}
	case plan.GroupBy == catalog.GroupAgent:
		for _, r := range kept {
			agents = append(agents, r.Key)
		}
	}
	if who := dir.Presence(plan.Scope, plan.Period, agents, stints, named); len(who) > 0 {
		gv.warn(WarnPresence, "Counted on only some days of the period, or with a change of team: "+strings.Join(who, ", ")+
			". Days outside their time here have no figures for them.")
	}
	if cmp != nil {
		p := cmp.plan.Period
		if who := dir.Presence(plan.Scope, p, agents, stintsBefore, named); len(who) > 0 {
			gv.warn(WarnPresence, "In the previous period, counted on only some days, or with a change of team: "+strings.Join(who, ", ")+
				". Each day counts for the team of that day.")
		}
		if who := changes(dir, plan.Scope, plan.Period, p, stints, stintsBefore, named); len(who) > 0 {
			what, rule := "agents are counted for the team", "each agent's day counts for the team of that day"
			if plan.Scope.Kind == ask.ScopeFloor {
				what, rule = "teams are on the floor", "a team counts for the floor only on its days on it"
			}
			gv.warn(WarnMembers, "Not the same "+what+" in both periods, so part of the change is who is counted ("+rule+"): "+
				strings.Join(who, "; ")+".")
		}
	}
	return t
}

// comparison is the plan of the period a table's figures are set beside,
// and its rows. Rows are set beside the compared period's row of the same
// group, or, with weekBefore, week rows beside the week before, from either
// period.
type comparison struct {
	plan       *ask.Plan
	res        *ask.Result
	weekBefore bool
}

// previousKey is the key of the row a row of key is set beside.
func (c *comparison) previousKey(key string) string {
	if !c.weekBefore {
		return key
	}
	w, _ := calendar.ParseDate(key)
	return w.AddDate(0, 0, -7).Format(time.DateOnly)
}

// beforeData refuses a period that ends before the first day of data of
// every metric asked for, and names the first day as the choice.
func (e *Engine) beforeData(metrics []*catalog.Metric, p ask.Period, cov map[string]ask.Coverage, now time.Time) *ask.Refusal {
	var first time.Time
	for _, m := range metrics {
		if c := metricCoverage(m, cov, now, e.cat.Zone()); !c.First.IsZero() && (first.IsZero() || c.First.Before(first)) {
			first = c.First
		}
	}
	if first.IsZero() || !p.End.Before(first) {
		return nil
	}
	day := first.Format(time.DateOnly)
	return ask.Invalid(grammar.ArgPeriod, "ends before the first day of data ("+day+"); ask about that day or later.", day)
}

// liveInstead swaps a report's default metrics for its live ones when the
// period lies wholly past what the nightly sources hold: today's sales come
// from the live board until the nightly build has loaded the day.
func (e *Engine) liveInstead(rep *catalog.Report, defaults []*catalog.Metric, p ask.Period, cov map[string]ask.Coverage, now time.Time) ([]*catalog.Metric, []string) {
	for _, m := range defaults {
		for _, s := range m.Sources() {
			if c := loaded(s, cov[s.ID], now, e.cat.Zone()); !c.Through.IsZero() && !c.Through.Before(p.Start) {
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
		"they are partial and the nightly figures replace them once it has.", strings.Join(metricIDs(live), ", "), strings.Join(ids, ", "))}
}

// unfinished refuses a comparison over days that are not final for every
// metric in it, and names periods that would work.
func (e *Engine) unfinished(metrics []*catalog.Metric, p ask.Period, cov map[string]ask.Coverage, now time.Time, what string) *ask.Refusal {
	var last time.Time
	var blocking *catalog.Metric
	for _, m := range metrics {
		th := metricThrough(m, cov, now, e.cat.Zone())
		if th.complete.Before(p.End) && (blocking == nil || th.complete.Before(last)) {
			blocking, last = m, th.complete
		}
	}
	if blocking == nil {
		return nil
	}
	var choices []string
	for _, name := range e.cat.PeriodNames() {
		if np := calendar.Named(name, calendar.Today(now, e.cat.Zone()), e.cat); !np.End.After(last) {
			choices = append(choices, name)
		}
	}
	example := ""
	if len(choices) > 0 {
		example = ", for example with one of these named periods"
	}
	return &ask.Refusal{Code: ask.CodeNotComparable, Argument: "period", Choices: append([]string{}, choices...),
		Rule: fmt.Sprintf("includes days that are not final, and %s cannot: %s is final only through %s. End the period on or before %s%s.",
			what, blocking.ID, calendar.DateOrNever(last), calendar.DateOrNever(last), example)}
}

// chooseMetrics picks the metrics a call asked for, the defaults, or for
// compare_counts one count per basis.
func (e *Engine) chooseMetrics(rep *catalog.Report, req *grammar.Request) ([]*catalog.Metric, *ask.Refusal) {
	metrics := rep.Defaults
	switch {
	case req.CompareCounts && req.Metrics != nil:
		return nil, ask.Invalid(grammar.ArgCompareCounts, "chooses its own metrics (one count per basis); leave metrics out or set compare_counts to false.")
	case req.CompareCounts:
		metrics = grammar.CountedSums(rep)
	case req.Metrics != nil:
		metrics = make([]*catalog.Metric, 0, len(req.Metrics))
		for _, id := range req.Metrics {
			m, _ := e.cat.Metric(id)
			metrics = append(metrics, m)
		}
	}
	return metrics, nil
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

func (e *Engine) candidates(c *call, w grammar.WhoArg, cands []directory.Candidate) *Answer {
	arg, what, key := "who.agent", "agents", "agent_key"
	if w.Team != "" {
		arg, what, key = "who.team", "teams", "team_key"
	}
	note := "Several " + what + " match, so no figures are returned. Ask which one is meant, then call again with " +
		arg + " set to its " + key + "."
	if len(cands) > 0 && cands[0].Suggestion() {
		note = "No " + strings.TrimSuffix(what, "s") + " has that name, but these names are close to it, the closest first, so no figures are returned. " +
			"Ask whether one of them is meant, then call again with " + arg + " set to its " + key + "."
	}
	return &Answer{Body: &CandidatesAnswer{
		RequestID:      c.id,
		Argument:       arg,
		Candidates:     cands,
		Notes:          []string{note},
		CatalogVersion: e.cat.Version(),
	}}
}
