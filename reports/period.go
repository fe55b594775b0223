package reports

import (
	"fmt"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// This file resolves a period argument to dates on the floor's calendar.
// Dates are civil dates, held as midnight UTC, so that arithmetic on them
// never meets a clock change; only the board's timestamps are converted, and
// they are converted with the floor's zone.

// today returns the floor's current day.
func today(now time.Time, zone *time.Location) time.Time { return civil(now.In(zone)) }

// civil returns the calendar day of t, in t's own location, as a date.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func daysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

// weekOf returns the first day of the week holding day.
func weekOf(day time.Time, start time.Weekday) time.Time {
	back := (int(day.Weekday()) - int(start) + 7) % 7
	return day.AddDate(0, 0, -back)
}

// quarterOf returns the first day of the calendar quarter holding day.
func quarterOf(day time.Time) time.Time {
	return time.Date(day.Year(), (day.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
}

// yearOf returns the 1st of January of the year holding day.
func yearOf(day time.Time) time.Time {
	return time.Date(day.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
}

// bucketEnd returns the last day of the week, month or quarter starting on
// first; first itself for a day.
func bucketEnd(groupBy string, first time.Time) time.Time {
	switch groupBy {
	case catalog.GroupWeek:
		return first.AddDate(0, 0, 6)
	case catalog.GroupMonth:
		return first.AddDate(0, 1, -1)
	case catalog.GroupQuarter:
		return first.AddDate(0, 3, -1)
	}
	return first
}

// byTime reports whether rows grouped by groupBy are days, weeks, months
// or quarters.
func byTime(groupBy string) bool {
	switch groupBy {
	case catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return true
	}
	return false
}

// parseDate parses a YYYY-MM-DD date; the decoder has checked the shape.
func parseDate(s string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}

// resolvePeriod turns a period argument into dates, as of now. A range
// runs to at most max_days days when its answer has rows by day (byDay),
// else to at most [grammar.MaxRangeMonths] months.
func resolvePeriod(arg grammar.PeriodArg, now time.Time, cat *catalog.Catalog, byDay bool) (ask.Period, *ask.Refusal) {
	t := today(now, cat.Zone())
	maxDays := cat.Limits().MaxDays
	switch {
	case arg.Named != "":
		return namedPeriod(arg.Named, t, cat), nil
	case arg.Day != "":
		d, ok := parseDate(arg.Day)
		switch {
		case !ok:
			return ask.Period{}, ask.Invalid("period.day", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case d.After(t):
			return ask.Period{}, ask.Invalid("period.day", "is after today ("+t.Format(time.DateOnly)+"); figures exist only up to today.")
		}
		return ask.Period{Start: d, End: d}, nil
	case arg.Week != "":
		d, ok := parseDate(arg.Week)
		switch {
		case !ok:
			return ask.Period{}, ask.Invalid("period.week", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case d.After(t) && weekOf(d, cat.WeekStart()).After(t):
			return ask.Period{}, ask.Invalid("period.week", "is a week that has not started; figures exist only up to today ("+t.Format(time.DateOnly)+").")
		}
		start := weekOf(d, cat.WeekStart())
		p := ask.Period{Start: start, End: start.AddDate(0, 0, 6)}
		if p.End.After(t) {
			p.End, p.Clipped = t, true
		}
		return p, nil
	default:
		start, ok1 := parseDate(arg.Start)
		end, ok2 := parseDate(arg.End)
		switch {
		case !ok1:
			return ask.Period{}, ask.Invalid("period.start", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case !ok2:
			return ask.Period{}, ask.Invalid("period.end", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case end.Before(start):
			return ask.Period{}, ask.Invalid("period", "ends before it starts; start and end are inclusive dates, so end on or after the start.")
		case end.After(t):
			return ask.Period{}, ask.Invalid("period.end", "is after today ("+t.Format(time.DateOnly)+"); end the range today or earlier.")
		case !end.Before(start.AddDate(0, grammar.MaxRangeMonths, 0)):
			return ask.Period{}, ask.Invalid("period", "is longer than "+itoa(grammar.MaxRangeMonths)+" months; ask for a shorter range, or several.")
		case byDay && daysBetween(start, end)+1 > maxDays:
			return ask.Period{}, ask.Invalid("period", "is longer than "+itoa(maxDays)+" days, the most that rows by day cover; "+
				"ask for a shorter range, or group by week, month, quarter, team or agent (or not at all) for a range of up to "+itoa(grammar.MaxRangeMonths)+" months.")
		}
		return ask.Period{Start: start, End: end}, nil
	}
}

// namedPeriod resolves a named period on day t. "last_7_days" and
// "last_28_days" are whole days ending yesterday, so they compare cleanly;
// "week_to_date", "month_to_date", "quarter_to_date" and "year_to_date"
// (and "this_week", "this_month", "this_quarter" and "this_year", their
// other names) run from the first day of the week, month, calendar quarter
// or year through today; "last_quarter" and "last_year" are the whole
// calendar quarter and year before today's. A period the catalogue
// declares is its latest run that has begun, through today while it lasts.
func namedPeriod(name string, t time.Time, cat *catalog.Catalog) ask.Period {
	weekStart := cat.WeekStart()
	p := ask.Period{Named: name}
	if own, ok := cat.Period(name); ok {
		p.Start, p.End = own.Latest(t)
		if p.End.After(t) {
			p.End, p.Ongoing = t, true
		}
		return p
	}
	month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	switch name {
	case "today":
		p.Start, p.End = t, t
	case "yesterday":
		p.Start = t.AddDate(0, 0, -1)
		p.End = p.Start
	case "this_week", "week_to_date":
		p.Start, p.End = weekOf(t, weekStart), t
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

// soFar names the calendar unit a period so far is part of, from its first
// day (a week, a month, a quarter, a year, or a season the catalogue names),
// or "" for any other period.
func soFar(p ask.Period) string {
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

// byDayBound refuses a period too long for rows by day: an answer by day
// (and a running total by day) holds at most maxDays days, the bound every
// range by day has, and only a named year is longer. It teaches the
// coarser groupings of offered that fit: by week when the period's weeks
// fit in an answer's maxRows rows, by month or quarter; without those, by
// team or agent or none.
func byDayBound(p ask.Period, groupBy string, cumulative bool, offered []string, limits catalog.Limits, weekStart time.Weekday) *ask.Refusal {
	if groupBy != catalog.GroupDay || p.Days() <= limits.MaxDays {
		return nil
	}
	what := "the period"
	if p.Named != "" {
		what = p.Named
	}
	weeks := daysBetween(weekOf(p.Start, weekStart), weekOf(p.End, weekStart))/7 + 1
	var coarser, said []string
	for _, g := range offered {
		switch {
		case g == catalog.GroupWeek && weeks <= limits.MaxRows:
			coarser, said = append(coarser, g), append(said, fmt.Sprintf("week (%d rows)", weeks))
		case g == catalog.GroupMonth || g == catalog.GroupQuarter:
			coarser, said = append(coarser, g), append(said, g)
		}
	}
	switch {
	case cumulative && len(coarser) > 0:
		return ask.Invalid(grammar.ArgCumulative, fmt.Sprintf("gives a running total a day for at most %d days, and %s holds %d days; "+
			"group by %s for a running total over coarser rows, or ask for a period of at most %d days.", limits.MaxDays, what, p.Days(), orList(said), limits.MaxDays),
			coarser...)
	case cumulative:
		return ask.Invalid(grammar.ArgCumulative, fmt.Sprintf("gives a running total a day for at most %d days, and %s holds %d days; "+
			"ask for a period of at most %d days, or leave cumulative and group_by out for one total.", limits.MaxDays, what, p.Days(), limits.MaxDays))
	}
	if len(coarser) > 0 {
		return ask.Invalid(grammar.ArgGroupBy, fmt.Sprintf("gives a row a day for at most %d days, and %s holds %d days; "+
			"group by %s instead, or ask for a period of at most %d days.", limits.MaxDays, what, p.Days(), orList(said), limits.MaxDays), coarser...)
	}
	var choices []string
	for _, g := range offered {
		if g == catalog.GroupTeam || g == catalog.GroupAgent {
			choices = append(choices, g)
		}
	}
	return ask.Invalid(grammar.ArgGroupBy, fmt.Sprintf("gives a row a day for at most %d days, and %s holds %d days in %d weeks, more than the %d rows an answer holds; "+
		"leave group_by out, group by team or agent, or ask for a period of at most %d days.", limits.MaxDays, what, p.Days(), weeks, limits.MaxRows, limits.MaxDays),
		choices...)
}

// orList joins words as a sentence lists choices: "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// LastWholeWeek is the latest whole week, starting on start, that ends
// before day: the week before day's own.
func LastWholeWeek(day time.Time, start time.Weekday) ask.Period {
	first := weekOf(day, start).AddDate(0, 0, -7)
	return ask.Period{Start: first, End: first.AddDate(0, 0, 6)}
}
