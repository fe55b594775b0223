package reference

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// toDate says what a period runs through today from the first day of: a
// week (this_week, week_to_date, a week clipped at today), a month
// (this_month, month_to_date), a quarter (this_quarter, quarter_to_date) or
// a year (this_year, year_to_date) or the catalogue's season not yet ended;
// "" for any other period.
func toDate(q Period, p asked) string {
	switch q.Named {
	case "this_week", "week_to_date":
		return "week"
	case "this_month", "month_to_date":
		return "month"
	case "this_quarter", "quarter_to_date":
		return "quarter"
	case "this_year", "year_to_date":
		return "year"
	}
	if p.clipped {
		return "week"
	}
	if p.ongoing {
		return "season"
	}
	return ""
}

// previousOf is the period a finished period is set beside: the calendar
// month, quarter or year before a whole one, else as many days just before.
// A whole quarter or year starts where its last day's does, and the day
// after it starts the next.
func (c *call) previousOf(p span) span {
	cal := c.w.cal
	before := p.first - 1
	switch {
	case cal.yearStart(p.last) == p.first && cal.yearStart(p.last+1) == p.last+1:
		return span{cal.yearStart(before), before}
	case cal.quarterStart(p.last) == p.first && cal.quarterStart(p.last+1) == p.last+1:
		return span{cal.quarterStart(before), before}
	case cal.has(p.first) && cal.dom[p.first] == 1 && cal.monthEnd(p.first) == p.last:
		return span{cal.monthStart(before), before}
	}
	return span{p.first - p.days(), p.last - p.days()}
}

// yearEarlierOf is the span a period is set beside a year earlier: a week
// (a Monday and the six days after it, or a week run to today) by the
// Monday, 52 or 53 weeks back, whose ISO week and year say "the same week
// last year" (else week 52 of that year); a whole calendar month, quarter
// or year by the whole one a year earlier; any other span by the days of
// the same month and day a year earlier, 29 February as the 28th.
func (c *call) yearEarlierOf(p span, week bool) span {
	cal := c.w.cal
	if week || cal.weekday[p.first] == 0 && p.days() == 7 {
		year, wk := isoWeek(cal.date(p.first))
		for _, want := range []int{wk, 52} {
			for _, back := range []int{364, 371} {
				if y, w := isoWeek(cal.date(p.first - back)); y == year-1 && w == want {
					return span{p.first - back, p.last - back}
				}
			}
		}
	}
	first := cal.number[lastYear(cal.date(p.first))]
	last := cal.number[lastYear(cal.date(p.last))]
	switch {
	case cal.yearStart(p.last) == p.first && cal.yearStart(p.last+1) == p.last+1:
		last = cal.yearStart(first+366) - 1
	case cal.quarterStart(p.last) == p.first && cal.quarterStart(p.last+1) == p.last+1:
		last = cal.quarterStart(first+93) - 1
	case cal.dom[p.first] == 1 && cal.monthEnd(p.first) == p.last:
		last = cal.monthEnd(first)
	}
	return span{first, last}
}

// isoWeek is a written date's ISO year and week.
func isoWeek(date string) (int, int) {
	d, _ := time.Parse(time.DateOnly, date)
	return d.ISOWeek()
}

// lastYear writes a date's month and day in the year before; 29 February
// becomes the 28th.
func lastYear(date string) string {
	var y, m, d int
	fmt.Sscanf(date, "%d-%d-%d", &y, &m, &d)
	if m == 2 && d == 29 {
		d = 28
	}
	return fmt.Sprintf("%04d-%02d-%02d", y-1, m, d)
}

// besidePrevious answers a report with compare_to previous_period or
// previous_year: each group's figures beside the previous period's, or the
// same days' a year earlier, and the change. A period run to today is cut
// at its last final day and set beside as many days from the start of the
// week, month, quarter or year before, or the same days a year earlier.
func (c *call) besidePrevious(wh who, p asked, ms []*metric, sorting *Sort) *Expected {
	r, cal := c.r, c.w.cal
	cur, prev := p.span, span{}
	askedEnd := ""
	yearEarlier := r.CompareTo == "previous_year"
	switch kind := toDate(*r.Period, p); kind {
	case "":
		if c.unfinished(ms, cur) {
			return refuse("not_comparable", "period")
		}
		prev = c.previousOf(cur)
		if yearEarlier {
			prev = c.yearEarlierOf(cur, false)
		}
	default:
		last, ok := c.lastFinal(ms)
		if !ok || last < cur.first {
			return refuse("not_comparable", "period")
		}
		askedEnd = cal.date(cur.last)
		cur.last = min(cur.last, last)
		bound := cur.first - 1 // the last day of the week, month, quarter or year before
		start := cal.monday(bound)
		switch kind {
		case "month":
			start = cal.monthStart(bound)
		case "quarter":
			start = cal.quarterStart(bound)
		case "year":
			start = cal.yearStart(bound)
		case "season":
			start = cal.number[lastYear(cal.date(cur.first))]
		}
		prev = span{start, min(start+cur.days()-1, bound)}
		if yearEarlier {
			prev = c.yearEarlierOf(cur, kind == "week")
		}
		c.warn("to_date")
	}
	if yearEarlier {
		c.warn("year_earlier")
	}
	for _, m := range ms {
		if cov, ok := c.w.coverage(m); ok && cov.first > prev.first {
			return refuse("invalid_argument", "compare_to")
		}
	}
	out := c.answer(cur)
	out.AskedEnd = askedEnd
	out.Previous = []string{cal.date(prev.first), cal.date(prev.last)}
	out.Sort, out.Metrics = sorting, ids(ms)
	if p.clipped {
		c.warn("clipped")
	}
	l := lens{who: wh, by: r.GroupBy}
	now, before := c.w.tabulate(l, cur, ms), c.w.tabulate(l, prev, ms)
	groups := append(slices.Clone(now.groups), before.groups...)
	sort.Strings(groups)
	groups = slices.Compact(groups)
	var rank func(string) (float64, bool)
	if sorting != nil {
		rank = rankBy(now, slices.Index(out.Metrics, sorting.Metric))
	}
	shown, truncated := c.keep(groups, rank, sorting, r.TopN)
	out.Truncated = truncated
	out.Columns = previousColumns(groupColumns(r.GroupBy), ms)
	for _, g := range shown {
		row := c.groupCells(r.GroupBy, g, cur)
		for i, m := range ms {
			a, b := now.figure(g, i), before.figure(g, i)
			row = append(append(append(row, m.cells(a)...), m.cells(b)...), m.change(a, b))
		}
		out.Rows = append(out.Rows, row)
	}
	c.stamp(out, now, cur, ms)
	c.addLeftOut(out, before)
	if cur.days() != prev.days() || c.workingDays(l, cur) != c.workingDays(l, prev) {
		c.warn("unlike_periods")
	}
	if c.membersDiffer(wh, cur, prev) {
		c.warn("members")
	}
	c.presence(l, cur, presenceOf(l, shown))
	c.presence(l, prev, presenceOf(l, shown))
	return out
}

// previousColumns appends to cols each metric's columns beside the
// previous period: the figure and the previous one (a ratio's with their
// parts), then the change, in points for a share.
func previousColumns(cols []string, ms []*metric) []string {
	for _, m := range ms {
		cols = append(cols, figureColumns(m)...)
		for _, name := range figureColumns(m) {
			if name == m.id {
				cols = append(cols, m.id+"_previous")
			} else {
				cols = append(cols, m.id+"_previous"+name[len(m.id):])
			}
		}
		if m.unit == unitShare {
			cols = append(cols, m.id+"_change_points")
		} else {
			cols = append(cols, m.id+"_change")
		}
	}
	return cols
}

// workingDays counts the days of a span on which someone counted logged
// some time.
func (c *call) workingDays(l lens, p span) int {
	w := c.w
	logged := metricNamed("logged_hours")
	n := 0
	for d := p.first; d <= p.last; d++ {
		for _, a := range w.agents {
			if row, v, known := w.agentDay(logged, a, d); row && known[0] && v[0] > 0 && w.counts(l, a, d) {
				n++
				break
			}
		}
	}
	return n
}

// membersDiffer says whether what a comparison counts changed between its
// two periods: for a team, an agent counted for it on some day of one and
// no day of the other, or on only some days of either; for the floor, a
// team on the floor likewise. An agent's own figures name none.
func (c *call) membersDiffer(wh who, p, q span) bool {
	w := c.w
	changed := func(on func(d int) bool) bool {
		n, m := 0, 0
		for d := p.first; d <= p.last; d++ {
			if on(d) {
				n++
			}
		}
		for d := q.first; d <= q.last; d++ {
			if on(d) {
				m++
			}
		}
		return n+m > 0 && (n < p.days() || m < q.days())
	}
	switch wh.kind {
	case "team":
		for _, a := range w.agents {
			if changed(func(d int) bool { return w.staffOn(a, d) && w.teamOn(a, d) == wh.num }) {
				return true
			}
		}
	case "floor":
		for t := range w.teams {
			if changed(func(d int) bool { return w.floorOn(t, d) }) {
				return true
			}
		}
	}
	return false
}
