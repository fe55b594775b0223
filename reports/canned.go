package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
	"plumbline/reports/target"
)

// This file answers the canned reports: a manager's usual questions, each
// in one call, as labelled sections that state each definition once. Their
// sections are the catalogue's reports with their default metrics.

// canned is one canned call in flight.
type canned struct {
	e   *Engine
	c   *call
	dir *directory.Directory
	cov map[string]ask.Coverage
	ans *answer.Canned
	gv  *governor
}

func (e *Engine) startCanned(ctx context.Context, c *call, who grammar.WhoArg, p ask.Period, metrics []*catalog.Metric, compact bool, known string) (*canned, *Answer) {
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return nil, e.fault(c, err)
	}
	scope, cands, r := resolveWithin(dir, who, c.reach, c.caller.Person)
	switch {
	case r != nil:
		return nil, c.refuse(r)
	case cands != nil:
		return nil, e.candidates(c, who, cands)
	case scope.Totals:
		return nil, c.refuse(directory.TotalsOnly(c.reach, whoArgument(who), c.caller.Person))
	case c.tool == grammar.ToolTeamDay && scope.Kind == ask.ScopeAgent: // who left out, by someone who sees only their own figures
		return nil, c.refuse(ask.Invalid(grammar.ArgWho, "must name a team or the floor, as team_day is about one of those; for your own figures use hours, sales or quality."))
	}
	cov, err := e.sourcesCoverage(ctx, metrics)
	if err != nil {
		return nil, e.fault(c, err)
	}
	if r := e.beforeData(metrics, p, cov, c.now); r != nil {
		return nil, c.refuse(r)
	}
	k := &canned{e: e, c: c, dir: dir, cov: cov, ans: &answer.Canned{RequestID: c.id, Sections: []*answer.Section{}}}
	k.ans.Request = answer.Echo{Tool: c.tool, Who: whoEcho(scope, dir), Compact: compact}
	k.gv = e.governor(&k.ans.Governed, c.now, p, compact, known)
	return k, nil
}

// section is one labelled table a canned report asks for, ranked by sort
// when it is set.
type section struct {
	id, title string
	plan      *ask.Plan
	sort      *grammar.SortArg
	// previous, when set, is the plan of the weeks before: each week row
	// is set beside the week before it, and the total beside theirs.
	previous *ask.Plan
	// target, when set, sets each row beside its targets: a league's team
	// rows, ranked by the sort metric's attainment, or each week row beside
	// its week's.
	target *target.Comparison
}

// sections runs every section's plan, in one snapshot and one round trip,
// and adds each as a labelled table with its total.
func (k *canned) sections(ctx context.Context, specs []section) *Answer {
	plans := make([]*ask.Plan, len(specs))
	for i, sp := range specs {
		plans[i] = sp.plan
	}
	for _, sp := range specs {
		if sp.previous != nil {
			plans = append(plans, sp.previous)
		}
	}
	results, err := k.e.store.Run(ctx, plans...)
	if err != nil {
		return k.e.fault(k.c, err)
	}
	next := len(specs)
	for i, sp := range specs {
		var cmp *comparison
		if sp.previous != nil {
			cmp = &comparison{plan: sp.previous, res: results[next], weekBefore: true}
			next++
		}
		k.add(sp, results[i], cmp)
	}
	return nil
}

func (k *canned) add(sp section, res *ask.Result, cmp *comparison) {
	plan := sp.plan
	byFigure := sp.sort
	if sp.target != nil {
		byFigure = nil
	}
	t := k.e.table(plan, res, cmp, false, k.dir, k.c.now, k.gv, byFigure, 0, plan.Metrics, k.c.namer(plan.Scope))
	s := &answer.Section{ID: sp.id, Title: sp.title, Columns: t.columns, Rows: t.rows, Truncated: t.truncated}
	switch {
	case sp.target != nil && sp.sort != nil:
		s.Columns = append([]string{"rank", "team", "team_name"}, sp.target.Columns(plan.Metrics)...)
		s.Rows = rankedByAttainment(sp.target, t.kept, plan.Metrics, sp.sort, k.dir, plan.Period)
	case sp.target != nil:
		s.Columns = append(answer.KeyColumns(plan.GroupBy), sp.target.Columns(plan.Metrics)...)
		for i, r := range t.kept {
			s.Rows[i] = append(appendKeyCells(nil, plan.GroupBy, r, k.dir, plan.Period), sp.target.WeekBeside(r, plan)...)
		}
	case sp.sort != nil:
		s.Columns = append([]string{"rank"}, s.Columns...)
		for i, rank := range ranks(t.kept, plan.Metrics, sp.sort) {
			s.Rows[i] = append([]any{rank}, s.Rows[i]...)
		}
	}
	if !s.Truncated && plan.GroupBy != "" {
		keys := make([]any, len(answer.Columns(plan.GroupBy, nil)))
		keys[0] = "total"
		switch plan.GroupBy {
		case catalog.GroupTeam, catalog.GroupAgent:
			keys[1] = plan.Scope.Name
		case catalog.GroupWeek:
			keys[1] = plan.Period.Days()
		}
		if sp.sort != nil {
			keys = append([]any{nil}, keys...)
		}
		switch {
		case sp.target != nil && sp.sort != nil:
			s.Total = append(keys, sp.target.Beside(totalOf(t.kept, plan.NumParts()), plan.Metrics, "")...)
		case sp.target != nil:
			s.Total = append(keys, sp.target.WeeksTotal(totalOf(t.kept, plan.NumParts()), plan)...)
		case cmp != nil:
			s.Total = appendCompared(keys, totalOf(t.kept, plan.NumParts()), totalOf(t.before, plan.NumParts()), plan.Metrics)
		default:
			s.Total = appendRow(keys, "", totalOf(t.kept, plan.NumParts()), plan.Metrics, k.dir, plan.Period)
		}
	}
	k.ans.Sections = append(k.ans.Sections, s)
	k.gv.standCounting(plan.Scope, plan.GroupBy, plan.Metrics)
}

// finish closes the answer with the standing note that says how its
// sections read.
func (k *canned) finish(layoutNote string) *Answer {
	rows := 0
	for _, s := range k.ans.Sections {
		rows += len(s.Rows)
		if s.Truncated {
			k.gv.warn(WarnTruncated, fmt.Sprintf("Section %s lists only its first %d rows and so has no total; ask about one team to see them all.", s.ID, len(s.Rows)))
		}
	}
	k.gv.stand(layoutNote)
	return &Answer{Body: k.ans, Rows: rows, Warnings: k.gv.finish()}
}

// totalOf sums rows' parts: the group's total, from the same parts, so a
// ratio's total is still a sum over a sum.
func totalOf(rows []ask.Row, parts int) ask.Row {
	total := ask.Row{Sums: make([]*float64, parts)}
	for _, r := range rows {
		for i, v := range r.Sums {
			if v == nil {
				continue
			}
			if total.Sums[i] == nil {
				total.Sums[i] = new(float64)
			}
			*total.Sums[i] += *v
		}
	}
	return total
}

// cannedArgs reads the arguments every canned report shares, unless an
// earlier argument was already refused: the first refusal is the answer.
func cannedArgs(a *grammar.Args, earlier *ask.Refusal) (compact bool, known string, r *ask.Refusal) {
	if earlier != nil {
		return false, "", earlier
	}
	if compact, r = a.Flag(grammar.ArgCompact); r == nil {
		known, _, r = a.Text(grammar.ArgKnownDefinitions, grammar.MaxVersionLength)
	}
	return compact, known, r
}

func (e *Engine) teamDay(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only(grammar.ArgWho, grammar.ArgPeriod, grammar.ArgCompact, grammar.ArgKnownDefinitions)
	}
	var who grammar.WhoArg
	if r == nil {
		who, r = a.Who()
	}
	if r == nil && who.Agent != "" {
		r = ask.Invalid(grammar.ArgWho, "must be a team or the floor, as team_day is about one of those; for one agent use hours, sales or quality with who.agent.", "floor", "team")
	}
	arg := grammar.PeriodArg{Named: "yesterday"}
	if r == nil && a.Has(grammar.ArgPeriod) {
		if arg, r = a.Period(e.cat.PeriodNames()); r == nil && arg.Day == "" && arg.Named != "today" && arg.Named != "yesterday" {
			r = ask.Invalid(grammar.ArgPeriod, `must be one day, as team_day covers one: {"day": "YYYY-MM-DD"}, {"named": "today"} or {"named": "yesterday"}.`, "today", "yesterday", "day")
		}
	}
	compact, known, r := cannedArgs(a, r)
	var p ask.Period
	if r == nil {
		p, r = resolvePeriod(arg, c.now, e.cat, false)
	}
	if r != nil {
		return c.refuse(r)
	}
	k, stop := e.startCanned(ctx, c, who, p, e.allReportMetrics(), compact, known)
	if stop != nil {
		return stop
	}
	scope, _, _ := resolveWithin(k.dir, who, c.reach, c.caller.Person)
	k.ans.Request.Day = p.Start.Format(time.DateOnly)
	group := catalog.GroupAgent
	if scope.Kind == ask.ScopeFloor {
		group = catalog.GroupTeam
	}
	var specs []section
	for _, rep := range e.cat.Reports() {
		metrics, notes := e.liveInstead(rep, rep.Defaults, p, k.cov, c.now)
		for _, n := range notes {
			k.gv.warn(WarnLiveInstead, n)
		}
		plan := &ask.Plan{Catalog: e.cat, Metrics: metrics, Scope: scope, Period: p, Today: calendar.Today(c.now, e.cat.Zone()),
			GroupBy: group, Limit: e.cat.Limits().MaxRows + 1}
		specs = append(specs, section{id: rep.ID, title: rep.Title, plan: plan})
	}
	if stop := k.sections(ctx, specs); stop != nil {
		return stop
	}
	return k.finish(catalog.NoteTeamDay)
}

func (e *Engine) teamWeeks(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only(grammar.ArgWho, "weeks", grammar.ArgCompact, grammar.ArgKnownDefinitions, grammar.ArgCompareTo)
	}
	var who grammar.WhoArg
	if r == nil {
		who, r = a.Who()
	}
	weeks := grammar.DefaultWeeks
	if r == nil && a.Has("weeks") {
		weeks, r = a.Whole("weeks", 1, grammar.MaxWeeks)
	}
	var compareTo string
	if r == nil {
		compareTo, r = a.Choice(grammar.ArgCompareTo, grammar.TeamWeeksCompareTo)
	}
	shown := e.shownWeekly()
	if r == nil && compareTo == grammar.ComparePreviousPeriod {
		r = lackingRule(grammar.ArgCompareTo, "sets every figure of team_weeks beside the week before, and the catalogue declares one of "+
			"them as not set beside another period (compare: none); leave compare_to out, or ask a report tool for metrics that can be compared.",
			shown, nil, notCompared)
	}
	compact, known, r := cannedArgs(a, r)
	if r != nil {
		return c.refuse(r)
	}
	cov, err := e.sourcesCoverage(ctx, e.allReportMetrics())
	if err != nil {
		return e.fault(c, err)
	}
	// The weeks end with the last week whose every day is final for every
	// section, so no week in the comparison is half a week.
	end := calendar.WeekOf(calendar.Today(c.now, e.cat.Zone()), e.cat.WeekStart()).AddDate(0, 0, -1)
	final := end
	for _, rep := range e.cat.Reports() {
		for _, m := range rep.Defaults {
			if th := metricThrough(m, cov, c.now, e.cat.Zone()); th.complete.Before(final) {
				final = th.complete
			}
		}
	}
	var shifted string
	for end.After(final) && !final.IsZero() {
		end = end.AddDate(0, 0, -7)
		shifted = fmt.Sprintf("Last week is not final yet for every figure (final through %s), so the weeks end on %s.",
			calendar.DateOrNever(final), end.Format(time.DateOnly))
	}
	p := ask.Period{Start: end.AddDate(0, 0, 1-7*weeks), End: end}
	k, stop := e.startCanned(ctx, c, who, p, e.allReportMetrics(), compact, known)
	if stop != nil {
		return stop
	}
	// Against the week before: the weeks before the first are read too.
	before := ask.Period{Start: p.Start.AddDate(0, 0, -7*weeks), End: p.Start.AddDate(0, 0, -1)}
	scope, _, _ := resolveWithin(k.dir, who, c.reach, c.caller.Person)
	var tg *target.Comparison
	switch compareTo {
	case grammar.CompareTarget:
		if r := target.Comparable(scope, "", shown, e.cat); r != nil {
			return c.refuse(r)
		}
		tg = target.Weekly(k.dir, p, e.cat.WeekStart(), shown, e.loaded(k.cov, c.now))
		k.ans.Request.CompareTo = compareTo
	case grammar.ComparePreviousPeriod:
		if r := e.previousBeforeData(shown, before, "the previous period", k.cov, c.now); r != nil {
			return c.refuse(r)
		}
		info := answer.PeriodInfoOf(before, e.cat.Zone())
		k.ans.PreviousPeriod = &info
		k.ans.Request.CompareTo = compareTo
	}
	k.ans.Request.Weeks = weeks
	if shifted != "" {
		k.gv.warn(WarnWeeksShifted, shifted)
	}
	var specs []section
	for _, rep := range e.cat.Reports() {
		plan := &ask.Plan{Catalog: e.cat, Metrics: rep.Defaults, Scope: scope, Period: p, Today: calendar.Today(c.now, e.cat.Zone()),
			GroupBy: catalog.GroupWeek, Limit: e.cat.Limits().MaxRows + 1}
		sp := section{id: rep.ID, title: rep.Title, plan: plan}
		switch {
		case compareTo == grammar.ComparePreviousPeriod:
			sp.previous = over(plan, before)
		case tg != nil && slices.ContainsFunc(rep.Defaults, tg.Has):
			// A team's targets hold on its days on the floor, so the
			// figures beside them count those days only.
			plan.Scope.OnFloor = scope.Kind == ask.ScopeTeam
			sp.target = tg
		}
		specs = append(specs, sp)
	}
	if stop := k.sections(ctx, specs); stop != nil {
		return stop
	}
	if tg != nil {
		tg.Notes(k.gv.warn, shown)
		tg.Stamp(k.ans.Metrics, shown)
	}
	return k.finish(catalog.NoteTeamWeeks)
}

// shownWeekly are the metrics team_weeks shows: each report's defaults.
func (e *Engine) shownWeekly() []*catalog.Metric {
	var shown []*catalog.Metric
	for _, rep := range e.cat.Reports() {
		shown = append(shown, rep.Defaults...)
	}
	return shown
}

// allReportMetrics are the metrics of every report, each once: what the
// canned reports built from them may read.
func (e *Engine) allReportMetrics() []*catalog.Metric {
	var out []*catalog.Metric
	for _, rep := range e.cat.Reports() {
		for _, m := range rep.Metrics {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

func (e *Engine) league(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only(grammar.ArgPeriod, grammar.ArgMetrics, grammar.ArgSort, grammar.ArgRankBy, grammar.ArgCompact, grammar.ArgKnownDefinitions)
	}
	var arg grammar.PeriodArg
	if r == nil {
		arg, r = a.Period(e.cat.PeriodNames())
	}
	metrics := grammar.LeagueDefaults(e.cat)
	if r == nil && a.Has(grammar.ArgMetrics) {
		var ids []string
		if ids, r = a.MetricList(grammar.ArgMetrics, grammar.LeagueMetrics(e.cat)); r == nil && len(ids) > grammar.MaxLeagueMetrics {
			r = ask.Invalid(grammar.ArgMetrics, "lists more than "+itoa(grammar.MaxLeagueMetrics)+" metrics; a league ranks by a few.", grammar.LeagueMetrics(e.cat)...)
		}
		metrics = nil
		for _, id := range ids {
			m, _ := e.cat.Metric(id)
			metrics = append(metrics, m)
		}
	}
	sort := &grammar.SortArg{Direction: "desc"}
	if r == nil {
		var s *grammar.SortArg
		if s, r = a.Sort(&catalog.Report{Metrics: metrics}); s != nil {
			sort = s
		}
	}
	var rankBy string
	if r == nil {
		rankBy, r = a.Choice(grammar.ArgRankBy, []string{grammar.RankFigure, grammar.RankAttainment})
	}
	compact, known, r := cannedArgs(a, r)
	var p ask.Period
	if r == nil {
		p, r = resolvePeriod(arg, c.now, e.cat, false)
	}
	if r == nil && !c.reach.Floor {
		r = &ask.Refusal{Code: ask.CodeForbidden, Argument: "tool", Choices: directory.ReachChoices(c.reach, c.caller.Person),
			Rule: "needs the whole floor for league, which is more than you may see; ask team_weeks or a report tool about one of your teams or agents (choices)."}
	}
	if r != nil {
		return c.refuse(r)
	}
	if sort.Metric == "" {
		sort.Metric = metrics[0].ID
	}
	var ts target.Span
	if rankBy == grammar.RankAttainment {
		m, _ := e.cat.Metric(sort.Metric)
		if m.Target == nil {
			return c.refuse(ask.Invalid("sort.metric", "must be a metric with targets when rank_by is attainment; sort by one of these.", target.MetricIDs(e.cat)...))
		}
		if ts, r = target.SpanFor(p, calendar.Today(c.now, e.cat.Zone()), e.cat.WeekStart(), []*catalog.Metric{m}); r != nil {
			return c.refuse(r)
		}
	}
	cov, err := e.sourcesCoverage(ctx, metrics)
	if err != nil {
		return e.fault(c, err)
	}
	if r := e.beforeData(metrics, p, cov, c.now); r != nil {
		return c.refuse(r)
	}
	if r := e.unfinished(metrics, p, cov, c.now, "a league"); r != nil {
		return c.refuse(r)
	}
	k, stop := e.startCanned(ctx, c, grammar.WhoArg{Floor: true}, p, metrics, compact, known)
	if stop != nil {
		return stop
	}
	k.ans.Request.Metrics = metricIDs(metrics)
	k.ans.Request.Sort = &answer.Sort{Metric: sort.Metric, Direction: sort.Direction}
	k.ans.Request.RankBy = rankBy
	plan := &ask.Plan{Catalog: e.cat, Metrics: metrics, Scope: ask.Scope{Kind: ask.ScopeFloor, Name: "the floor"}, Period: p,
		Today: calendar.Today(c.now, e.cat.Zone()), GroupBy: catalog.GroupTeam, Ranked: true, Limit: e.cat.Limits().MaxRows + 1}
	sp := section{id: "league", title: "Teams on the floor, ranked by " + sort.Metric, plan: plan, sort: sort}
	if rankBy == grammar.RankAttainment {
		sp.title = "Teams on the floor, ranked by attainment of " + sort.Metric + " against target"
		sp.target = target.New(k.dir, ts, p, metrics, e.loaded(k.cov, c.now))
	}
	if stop := k.sections(ctx, []section{sp}); stop != nil {
		return stop
	}
	if sp.target != nil {
		sp.target.Notes(k.gv.warn, metrics)
		sp.target.Stamp(k.ans.Metrics, metrics)
		k.gv.stand(NoteRankedByAttainment)
	}
	return k.finish(catalog.NoteLeague)
}

// ranks numbers ranked rows by the sort's metric: tied rows share a rank,
// the next rank skips the tied places, and a row without a figure has no
// rank.
func ranks(rows []ask.Row, metrics []*catalog.Metric, sort *grammar.SortArg) []any {
	j := slices.IndexFunc(metrics, func(m *catalog.Metric) bool { return m.ID == sort.Metric })
	out := make([]any, len(rows))
	for i, r := range rows {
		v := value(r, metrics, j)
		switch {
		case v == nil:
		case i > 0 && compareValues(v, value(rows[i-1], metrics, j), sort.Direction) == 0:
			out[i] = out[i-1]
		default:
			out[i] = i + 1
		}
	}
	return out
}
