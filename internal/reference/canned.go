package reference

import (
	"slices"
)

// every metric any report offers
func everyMetric() []*metric {
	var out []*metric
	for _, rep := range reportList {
		out = append(out, metricsNamed(rep.metrics)...)
	}
	return out
}

// totalCells are a section total's cells before its figures.
func totalCells(by string, wh who, p span) []any {
	switch by {
	case "team", "agent":
		return []any{"total", wh.name}
	case "week":
		return []any{"total", float64(p.days())}
	}
	return nil
}

// ranks numbers ranked groups: tied groups share a rank, the next skips
// their places, and a group without a figure has none.
func ranks(shown []string, rank func(string) (float64, bool), desc bool) []any {
	out := make([]any, len(shown))
	prev := ""
	for i, g := range shown {
		v, ok := rank(g)
		key := rankKey(v, ok, desc, g)
		switch {
		case !ok:
		case i > 0 && tied(key, prev):
			out[i] = out[i-1]
		default:
			out[i] = float64(i + 1)
		}
		prev = key
	}
	return out
}

// section computes one canned section: a row per group and the total
// (unless rows were cut), ranked when sorting is given.
func (c *call) section(out *Expected, id string, l lens, p span, ms []*metric, sorting *Sort) {
	lg := c.w.tabulate(l, p, ms)
	var rank func(string) (float64, bool)
	if sorting != nil {
		rank = rankBy(lg, slices.Index(ids(ms), sorting.Metric))
	}
	shown, truncated := c.keep(lg.groups, rank, sorting, 0)
	sec := Section{ID: id, Columns: groupColumns(l.by), Truncated: truncated}
	for _, m := range ms {
		sec.Columns = append(sec.Columns, figureColumns(m)...)
	}
	var numbers []any
	if sorting != nil {
		sec.Columns = append([]string{"rank"}, sec.Columns...)
		numbers = ranks(shown, rank, sorting.Direction != "asc")
	}
	for n, g := range shown {
		var row []any
		if sorting != nil {
			row = append(row, numbers[n])
		}
		row = append(row, c.groupCells(l.by, g, p)...)
		for i, m := range ms {
			row = append(row, m.cells(lg.figure(g, i))...)
		}
		sec.Rows = append(sec.Rows, row)
	}
	if !truncated {
		whole := c.w.tabulate(lens{who: l.who, floorOnly: l.floorOnly}, p, ms)
		if sorting != nil {
			sec.Total = append(sec.Total, nil)
		}
		sec.Total = append(sec.Total, totalCells(l.by, l.who, p)...)
		for i, m := range ms {
			sec.Total = append(sec.Total, m.cells(whole.figure("", i))...)
		}
	}
	out.Sections = append(out.Sections, sec)
	c.stamp(out, lg, p, ms)
	c.presence(l, p, presenceOf(l, shown))
}

func (c *call) teamDay() *Expected {
	r := c.r
	if r.Who.Agent != "" {
		return refuse("invalid_argument", "who")
	}
	p := asked{span: span{c.w.today - 1, c.w.today - 1}}
	if r.Period != nil {
		var end *Expected
		if p, end = c.resolve(*r.Period, false); end != nil {
			return end
		}
	}
	wh, end := c.w.resolveWho(*r.Who)
	if end != nil {
		return end
	}
	if c.beforeData(everyMetric(), p.span) {
		return refuse("invalid_argument", "period")
	}
	out := c.answer(p.span)
	by := "agent"
	if wh.kind == "floor" {
		by = "team"
	}
	for _, rep := range reportList {
		c.section(out, rep.id, lens{who: wh, by: by}, p.span, metricsNamed(c.liveSwap(rep, rep.defaults, p.span)), nil)
	}
	return out
}

// teamWeeks answers team_weeks: the last whole weeks final for every
// report's defaults, by week.
func (c *call) teamWeeks() *Expected {
	r, cal := c.r, c.w.cal
	weeks := 4
	if r.Weeks > 0 {
		weeks = r.Weeks
	}
	last := cal.monday(c.w.today) - 1
	var defaults []*metric
	for _, rep := range reportList {
		defaults = append(defaults, metricsNamed(rep.defaults)...)
	}
	shifted := false
	if final, ok := c.lastFinal(defaults); ok {
		for last > final {
			last, shifted = last-7, true
		}
	}
	p := span{last - 7*weeks + 1, last}
	wh, end := c.w.resolveWho(*r.Who)
	if end != nil {
		return end
	}
	if c.beforeData(everyMetric(), p) {
		return refuse("invalid_argument", "period")
	}
	out := c.answer(p)
	l := lens{who: wh, by: "week"}
	switch r.CompareTo {
	case "target":
		if wh.kind == "agent" {
			return refuse("invalid_argument", "compare_to")
		}
		for _, rep := range reportList {
			c.weeksBesideTargets(out, rep.id, wh, p, metricsNamed(rep.defaults))
		}
	case "previous_period":
		prev := span{p.first - 7*weeks, p.first - 1}
		for _, m := range defaults {
			if cov, ok := c.w.coverage(m); ok && cov.first > prev.first {
				return refuse("invalid_argument", "compare_to")
			}
		}
		out.Previous = []string{cal.date(prev.first), cal.date(prev.last)}
		for _, rep := range reportList {
			c.weeksBesidePrevious(out, rep.id, l, p, prev, metricsNamed(rep.defaults))
		}
		if c.membersDiffer(wh, p, prev) {
			c.warn("members")
		}
	default:
		for _, rep := range reportList {
			c.section(out, rep.id, l, p, metricsNamed(rep.defaults), nil)
		}
	}
	if shifted {
		c.warn("weeks_shifted")
	}
	return out
}

// weeksBesideTargets is a team_weeks section with each week beside that
// week's targets: a team's spread over its days on the floor that week, or
// the sum of the floor's teams'. Its figures for a team then count only the
// team's days on the floor; a section without weekly targets is as ever.
func (c *call) weeksBesideTargets(out *Expected, id string, wh who, p span, ms []*metric) {
	if !slices.ContainsFunc(ms, func(m *metric) bool { return m.declares("week") }) {
		c.section(out, id, lens{who: wh, by: "week"}, p, ms, nil)
		return
	}
	if out.Targets == nil {
		out.Targets = map[string]TargetStamp{}
	}
	l := lens{who: wh, floorOnly: wh.kind == "team", by: "week"}
	lg := c.w.tabulate(l, p, ms)
	sec := Section{ID: id, Columns: c.besideTargetColumns(groupColumns("week"), ms, "week")}
	sums := make([]float64, len(ms))
	missing := make([]bool, len(ms))
	for monday := p.first; monday <= p.last; monday += 7 {
		g := c.w.cal.date(monday)
		row := c.groupCells("week", g, p)
		for i, m := range ms {
			f := lg.figure(g, i)
			row = append(row, m.cells(f)...)
			if !m.declares("week") {
				continue
			}
			counted, some := c.countedSpan(m, span{monday, monday + 6})
			tp := targetPeriod{"week", monday, 7}
			var target *float64
			if wh.kind == "team" {
				target = c.teamTarget(wh.num, m, tp, counted, some)
			} else {
				target = c.floorTarget(m, tp, counted, some)
			}
			if target == nil {
				missing[i] = true
			} else {
				sums[i] += *target
			}
			row = append(row, cell(target), attainment(m, f, target))
		}
		sec.Rows = append(sec.Rows, row)
	}
	whole := c.w.tabulate(lens{who: wh, floorOnly: l.floorOnly}, p, ms)
	sec.Total = totalCells("week", wh, p)
	for i, m := range ms {
		f := whole.figure("", i)
		sec.Total = append(sec.Total, m.cells(f)...)
		if !m.declares("week") {
			continue
		}
		var target *float64
		if m.target.additive && !missing[i] {
			v := fourDecimals(sums[i])
			target = &v
		}
		sec.Total = append(sec.Total, cell(target), attainment(m, f, target))
	}
	out.Sections = append(out.Sections, sec)
	c.stamp(out, lg, p, ms)
	for _, m := range ms {
		if !m.declares("week") {
			continue
		}
		counted, some := c.countedSpan(m, p)
		out.Targets[m.id] = c.targetStamp("weeks", p, counted, some)
		used := c.floorTeams(p)
		if wh.kind == "team" {
			used = []int{wh.num}
		}
		c.floorDaysNote(used, counted, some)
	}
}

// weeksBesidePrevious is a team_weeks section with each week beside the
// week before it, and the total beside the weeks before's.
func (c *call) weeksBesidePrevious(out *Expected, id string, l lens, p, prev span, ms []*metric) {
	both := c.w.tabulate(l, span{prev.first, p.last}, ms)
	now := c.w.tabulate(lens{who: l.who}, p, ms)
	before := c.w.tabulate(lens{who: l.who}, prev, ms)
	sec := Section{ID: id, Columns: previousColumns(groupColumns("week"), ms)}
	for monday := p.first; monday <= p.last; monday += 7 {
		g, was := c.w.cal.date(monday), c.w.cal.date(monday-7)
		row := c.groupCells("week", g, p)
		for i, m := range ms {
			a, b := both.figure(g, i), both.figure(was, i)
			row = append(append(append(row, m.cells(a)...), m.cells(b)...), m.change(a, b))
		}
		sec.Rows = append(sec.Rows, row)
	}
	sec.Total = totalCells("week", l.who, p)
	for i, m := range ms {
		a, b := now.figure("", i), before.figure("", i)
		sec.Total = append(append(append(sec.Total, m.cells(a)...), m.cells(b)...), m.change(a, b))
	}
	out.Sections = append(out.Sections, sec)
	c.stamp(out, now, p, ms)
	c.addLeftOut(out, before)
	if l.who.kind == "agent" {
		c.presence(l, p, []string{l.who.key})
		c.presence(l, prev, []string{l.who.key})
	}
}

// league ranks the floor's teams by a figure, or by attainment against
// their targets.
func (c *call) league() *Expected {
	r := c.r
	chosen := leagueDefaults
	if r.Metrics != nil {
		chosen = r.Metrics
	}
	if r.Sort != nil && !slices.Contains(chosen, r.Sort.Metric) {
		return refuse("invalid_argument", "sort.metric")
	}
	p, end := c.resolve(*r.Period, false)
	if end != nil {
		return end
	}
	sorting := r.Sort
	if sorting == nil {
		sorting = &Sort{chosen[0], "desc"}
	}
	ms := metricsNamed(chosen)
	var tp targetPeriod
	if r.RankBy == "attainment" {
		by := metricNamed(sorting.Metric)
		if by.target == nil {
			return refuse("invalid_argument", "sort.metric")
		}
		var ok bool
		if tp, ok = c.targetPeriodOf(p.span); !ok || !by.declares(tp.kind) {
			return refuse("invalid_argument", "period")
		}
	}
	if c.beforeData(ms, p.span) {
		return refuse("invalid_argument", "period")
	}
	if c.unfinished(ms, p.span) {
		return refuse("not_comparable", "period")
	}
	out := c.answer(p.span)
	out.Sort, out.Metrics = sorting, chosen
	floor := lens{who: who{kind: "floor", name: "the floor", num: -1}, by: "team"}
	if r.RankBy != "attainment" {
		c.section(out, "league", floor, p.span, ms, sorting)
		return out
	}
	c.leagueByAttainment(out, floor, p.span, ms, sorting, tp)
	return out
}

// leagueByAttainment ranks each team beside its own targets by the sort
// metric's attainment (or a rate's gap), teams without one last and
// unranked; the total sets the floor beside the floor's target.
func (c *call) leagueByAttainment(out *Expected, floor lens, p span, ms []*metric, sorting *Sort, tp targetPeriod) {
	out.Targets = map[string]TargetStamp{}
	lg := c.w.tabulate(floor, p, ms)
	shown, truncated := c.keep(lg.groups, nil, nil, 0)
	sec := Section{ID: "league", Columns: c.besideTargetColumns(append([]string{"rank"}, groupColumns("team")...), ms, tp.kind), Truncated: truncated}
	by := slices.Index(ids(ms), sorting.Metric)
	standing := map[string]any{} // each team's attainment of the sort metric, as stated
	rows := map[string][]any{}
	for _, g := range shown {
		row := c.groupCells("team", g, p)
		for i, m := range ms {
			f := lg.figure(g, i)
			row = append(row, m.cells(f)...)
			if !m.declares(tp.kind) {
				continue
			}
			counted, some := c.countedSpan(m, p)
			target := c.teamTarget(c.w.teamNo[g], m, tp, counted, some)
			got := attainment(m, f, target)
			if i == by {
				standing[g] = got
			}
			row = append(row, cell(target), got)
		}
		rows[g] = row
	}
	rank := func(g string) (float64, bool) {
		v, ok := standing[g].(float64)
		return v, ok
	}
	ordered, _ := c.keep(shown, rank, sorting, 0)
	numbers := ranks(ordered, rank, sorting.Direction != "asc")
	for n, g := range ordered {
		sec.Rows = append(sec.Rows, append([]any{numbers[n]}, rows[g]...))
	}
	if !truncated {
		whole := c.w.tabulate(lens{who: floor.who}, p, ms)
		sec.Total = append([]any{nil}, totalCells("team", floor.who, p)...)
		for i, m := range ms {
			f := whole.figure("", i)
			sec.Total = append(sec.Total, m.cells(f)...)
			if !m.declares(tp.kind) {
				continue
			}
			counted, some := c.countedSpan(m, p)
			target := c.floorTarget(m, tp, counted, some)
			sec.Total = append(sec.Total, cell(target), attainment(m, f, target))
		}
	}
	out.Sections = append(out.Sections, sec)
	c.stamp(out, lg, p, ms)
	period := span{tp.start, tp.start + tp.days - 1}
	for _, m := range ms {
		if !m.declares(tp.kind) {
			continue
		}
		counted, some := c.countedSpan(m, p)
		out.Targets[m.id] = c.targetStamp(tp.kind, period, counted, some)
		if m.target.additive && some && counted.days() < tp.days {
			c.warn("prorated")
		}
		used := make([]int, 0, len(shown))
		for _, g := range shown {
			used = append(used, c.w.teamNo[g])
		}
		c.floorDaysNote(used, counted, some)
	}
}

func (c *call) freshness() *Expected {
	w := c.w
	out := &Expected{Through: map[string][2]any{}}
	for _, s := range everySource {
		l, ok := w.loaded[s]
		if !ok {
			out.Through[s.relation] = [2]any{nil, nil}
			out.Through[s.relation+" first_day"] = [2]any{nil, nil}
			continue
		}
		out.Through[s.relation] = [2]any{w.cal.date(l.last), w.cal.date(min(l.last, w.lastWhole(s.settle)))}
		out.Through[s.relation+" first_day"] = [2]any{w.cal.date(l.first), nil}
	}
	return out
}

func (c *call) roster() *Expected {
	w := c.w
	day := w.today
	if c.r.Day != "" {
		d, valid := w.cal.dayOf(c.r.Day)
		if !valid || d > w.today {
			return refuse("invalid_argument", "day")
		}
		day = d
	}
	wh, end := w.resolveWho(*c.r.Who)
	if end != nil {
		return end
	}
	out := &Expected{Teams: [][]any{}}
	if wh.kind == "agent" {
		a := w.agents[wh.num]
		for d := range w.cal.text {
			if a.team[d] >= 0 && (d == 0 || a.team[d] != a.team[d-1]) {
				out.Teams = append(out.Teams, []any{w.teams[a.team[d]].key, w.cal.date(d)})
			}
		}
		return out
	}
	for t, td := range w.teams {
		if wh.kind == "team" && t != wh.num || wh.kind == "floor" && !w.floorOn(t, day) {
			continue
		}
		agents := 0
		for _, a := range w.agents {
			if w.staffOn(a, day) && w.teamOn(a, day) == t {
				agents++
			}
		}
		var on any
		if w.cal.has(day) && td.decided[day] {
			on = w.floorOn(t, day)
		}
		out.Teams = append(out.Teams, []any{td.key, on, float64(agents)})
	}
	return out
}
