package calendar

import (
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// Named resolves the named period name on day t. "last_7_days" and
// "last_28_days" are whole days ending yesterday, so they compare cleanly;
// "week_to_date", "month_to_date", "quarter_to_date" and "year_to_date"
// (and "this_week", "this_month", "this_quarter" and "this_year", their
// other names) run from the first day of the week, month, calendar quarter
// or year through today; "last_quarter" and "last_year" are the whole
// calendar quarter and year before today's. A period the catalogue
// declares is its latest run that has begun, through today while it lasts.
func Named(name string, t time.Time, cat *catalog.Catalog) ask.Period {
	weekStart := cat.WeekStart()
	p := ask.Period{Named: name}
	if own, ok := cat.Period(name); ok {
		p.Start, p.End = own.Latest(t)
		if p.End.After(t) {
			p.End, p.Ongoing = t, true
		}
		return p
	}
	month := monthOf(t)
	switch name {
	case "today":
		p.Start, p.End = t, t
	case "yesterday":
		p.Start = t.AddDate(0, 0, -1)
		p.End = p.Start
	case "this_week", "week_to_date":
		p.Start, p.End = WeekOf(t, weekStart), t
	case "last_week":
		w := LastWholeWeek(t, weekStart)
		p.Start, p.End = w.Start, w.End
	case "this_month", "month_to_date":
		p.Start, p.End = month, t
	case "this_quarter", "quarter_to_date":
		p.Start, p.End = quarterOf(t), t
	case "this_year", "year_to_date":
		p.Start, p.End = yearOf(t), t
	case "last_month":
		p.Start = month.AddDate(0, -1, 0)
		p.End = month.AddDate(0, 0, -1)
	case "last_quarter":
		p.Start = quarterOf(t).AddDate(0, -3, 0)
		p.End = quarterOf(t).AddDate(0, 0, -1)
	case "last_year":
		p.Start = yearOf(t).AddDate(-1, 0, 0)
		p.End = yearOf(t).AddDate(0, 0, -1)
	case "last_7_days":
		p.Start, p.End = t.AddDate(0, 0, -7), t.AddDate(0, 0, -1)
	case "last_28_days":
		p.Start, p.End = t.AddDate(0, 0, -28), t.AddDate(0, 0, -1)
	}
	return p
}

// SoFar names the calendar unit a period so far is part of, from its first
// day ("week", "month", "quarter", "year", or "season" for a period the
// catalogue names), or "" for any other period.
func SoFar(p ask.Period) string {
	switch {
	case p.Named == "this_week" || p.Named == "week_to_date" || p.Clipped:
		return "week"
	case p.Named == "this_month" || p.Named == "month_to_date":
		return "month"
	case p.Named == "this_quarter" || p.Named == "quarter_to_date":
		return "quarter"
	case p.Named == "this_year" || p.Named == "year_to_date":
		return "year"
	case p.Ongoing:
		return "season"
	}
	return ""
}
