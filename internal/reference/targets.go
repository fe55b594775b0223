package reference

import "slices"

// targetPeriod is the week or calendar month a call's targets are set for.
type targetPeriod struct {
	kind  string // week or month
	start int
	days  int
}

// targetPeriodOf finds the week or month a period is: from its first day
// through its last, or through today. False for any other period.
func (c *call) targetPeriodOf(p span) (targetPeriod, bool) {
	cal, today := c.w.cal, c.w.today
	if !cal.has(p.first) {
		return targetPeriod{}, false
	}
	through := func(end int) bool { return p.last == end || p.last == today && p.last < end }
	if cal.weekday[p.first] == 0 {
		sunday := p.first
		for cal.weekday[sunday] != 6 {
			sunday++
		}
		if through(sunday) {
			return targetPeriod{"week", p.first, sunday - p.first + 1}, true
		}
	}
	if cal.dom[p.first] == 1 {
		if end := cal.monthEnd(p.first); through(end) {
			return targetPeriod{"month", p.first, end - p.first + 1}, true
		}
	}
	return targetPeriod{}, false
}

// countedSpan is the days of a span a metric's figure covers: those every
// source of it is loaded for. False when there are none.
func (c *call) countedSpan(m *metric, p span) (span, bool) {
	cov, ok := c.w.coverage(m)
	if !ok {
		return span{}, false
	}
	return p.overlap(cov)
}

// targetStamp is metrics.<m>.target.
func (c *call) targetStamp(kind string, period span, counted span, some bool) TargetStamp {
	cal := c.w.cal
	s := TargetStamp{Period: kind, Start: cal.date(period.first), End: cal.date(period.last), Days: period.days()}
	if some {
		s.CountedFrom, s.CountedThrough, s.CountedDays = cal.date(counted.first), cal.date(counted.last), counted.days()
	}
	return s
}

// teamTarget is team t's target for a metric over the counted days: the
// latest version set, an additive one spread over the team's days on the
// floor among them, a fixed one as set when it had any. Null without a
// version (with a note) or without a day on the floor. Only a target used
// has its setting noted.
func (c *call) teamTarget(t int, m *metric, tp targetPeriod, counted span, some bool) *float64 {
	v, ok := c.w.targetOf(c.w.teams[t].key, m.id, tp.kind, tp.start)
	if !ok {
		c.warn("no_target")
		return nil
	}
	days := 0
	if some {
		days = c.w.floorDays(t, counted)
	}
	if days == 0 {
		return nil
	}
	c.warn("targets")
	if m.target.additive {
		v = fourDecimals(v * float64(days) / float64(tp.days))
	}
	return &v
}

// floorTarget is the floor's target: the sum of the additive targets of the
// teams on the floor on some counted day; null when one of them has none or
// none was on the floor. A fixed target has no floor total.
func (c *call) floorTarget(m *metric, tp targetPeriod, counted span, some bool) *float64 {
	if !m.target.additive {
		c.warn("no_target")
		return nil
	}
	if !some {
		return nil
	}
	sum, teams, missing := 0.0, 0, false
	for t := range c.w.teams {
		if c.w.floorDays(t, counted) == 0 {
			continue
		}
		teams++
		if v := c.teamTarget(t, m, tp, counted, some); v != nil {
			sum += *v
		} else {
			missing = true
		}
	}
	if missing || teams == 0 {
		return nil
	}
	sum = fourDecimals(sum)
	return &sum
}

// floorDaysNote notes a team whose target is used or shown (a team row, the
// team asked for, a team on the floor on some day of the period asked for
// the floor's) that was on the floor on fewer than all the counted days, or
// on none of them.
func (c *call) floorDaysNote(teams []int, counted span, some bool) {
	for _, t := range teams {
		if some && c.w.floorDays(t, counted) < counted.days() {
			c.warn("floor_days")
		}
	}
}

// floorTeams are the teams on the floor on some day of a span.
func (c *call) floorTeams(p span) []int {
	var out []int
	for t := range c.w.teams {
		if c.w.floorDays(t, p) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// attainment is a figure over its target, or a rate's gap to it in points;
// null when either is null or the target is zero.
func attainment(m *metric, f figure, target *float64) any {
	v, ok := m.value(f)
	if !ok || target == nil {
		return nil
	}
	if !m.target.additive {
		return sixDigits((v - *target) * 100)
	}
	if *target == 0 {
		return nil
	}
	return sixDigits(v / *target)
}

// besideTargetColumns appends to cols each metric's columns, and beside
// those of a metric whose targets are set for the kind of period its target
// and attainment (a rate's gap in points). A metric with targets only for
// another kind has none, and a note says so.
func (c *call) besideTargetColumns(cols []string, ms []*metric, kind string) []string {
	for _, m := range ms {
		cols = append(cols, figureColumns(m)...)
		switch {
		case m.declares(kind) && m.target.additive:
			cols = append(cols, m.id+"_target", m.id+"_attainment")
		case m.declares(kind):
			cols = append(cols, m.id+"_target", m.id+"_target_gap_points")
		case m.target != nil:
			c.warn("no_target")
		}
	}
	return cols
}

func cell(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// besideTargets answers a report with compare_to target: each figure whose
// metric has targets for the period's kind beside its team's target (a
// team row, the team asked for) or the floor's, and the attainment. A team's
// figures then count only its days on the floor.
func (c *call) besideTargets(wh who, p asked, ms []*metric, sorting *Sort) *Expected {
	r := c.r
	if wh.kind == "agent" || r.GroupBy != "" && r.GroupBy != "team" ||
		!slices.ContainsFunc(ms, func(m *metric) bool { return m.target != nil }) {
		return refuse("invalid_argument", "compare_to")
	}
	tp, ok := c.targetPeriodOf(p.span)
	if !ok || !slices.ContainsFunc(ms, func(m *metric) bool { return m.declares(tp.kind) }) {
		return refuse("invalid_argument", "period")
	}
	out := c.answer(p.span)
	out.Sort, out.Metrics, out.Targets = sorting, ids(ms), map[string]TargetStamp{}
	if p.clipped {
		c.warn("clipped")
	}
	l := lens{who: wh, floorOnly: wh.kind == "team", by: r.GroupBy}
	lg := c.w.tabulate(l, p.span, ms)
	var rank func(string) (float64, bool)
	if sorting != nil {
		rank = rankBy(lg, slices.Index(out.Metrics, sorting.Metric))
	}
	shown, truncated := c.keep(lg.groups, rank, sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = c.besideTargetColumns(groupColumns(r.GroupBy), ms, tp.kind)
	period := span{tp.start, tp.start + tp.days - 1}
	for _, g := range shown {
		row := c.groupCells(r.GroupBy, g, p.span)
		for i, m := range ms {
			f := lg.figure(g, i)
			row = append(row, m.cells(f)...)
			if !m.declares(tp.kind) {
				continue
			}
			counted, some := c.countedSpan(m, p.span)
			var target *float64
			switch {
			case r.GroupBy == "team":
				target = c.teamTarget(c.w.teamNo[g], m, tp, counted, some)
			case wh.kind == "team":
				target = c.teamTarget(wh.num, m, tp, counted, some)
			default:
				target = c.floorTarget(m, tp, counted, some)
			}
			row = append(row, cell(target), attainment(m, f, target))
		}
		out.Rows = append(out.Rows, row)
	}
	c.stamp(out, lg, p.span, ms)
	for _, m := range ms {
		if !m.declares(tp.kind) {
			continue
		}
		counted, some := c.countedSpan(m, p.span)
		out.Targets[m.id] = c.targetStamp(tp.kind, period, counted, some)
		if m.target.additive && some && counted.days() < tp.days {
			c.warn("prorated")
		}
		var used []int
		switch {
		case r.GroupBy == "team":
			for _, g := range shown {
				used = append(used, c.w.teamNo[g])
			}
		case wh.kind == "team":
			used = []int{wh.num}
		case m.target.additive:
			used = c.floorTeams(p.span)
		}
		c.floorDaysNote(used, counted, some)
	}
	return out
}
