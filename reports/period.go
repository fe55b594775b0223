package reports

import (
	"fmt"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// This file resolves a period argument to dates on the floor's calendar
// (package calendar), refusing what cannot be answered.

// resolvePeriod turns a period argument into dates, as of now. A range
// runs to at most max_days days when its answer has rows by day (byDay),
// else to at most [grammar.MaxRangeMonths] months.
func resolvePeriod(arg grammar.PeriodArg, now time.Time, cat *catalog.Catalog, byDay bool) (ask.Period, *ask.Refusal) {
	t := calendar.Today(now, cat.Zone())
	maxDays := cat.Limits().MaxDays
	switch {
	case arg.Named != "":
		return calendar.Named(arg.Named, t, cat), nil
	case arg.Day != "":
		d, ok := calendar.ParseDate(arg.Day)
		switch {
		case !ok:
			return ask.Period{}, ask.Invalid("period.day", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case d.After(t):
			return ask.Period{}, ask.Invalid("period.day", "is after today ("+t.Format(time.DateOnly)+"); figures exist only up to today.")
		}
		return ask.Period{Start: d, End: d}, nil
	case arg.Week != "":
		d, ok := calendar.ParseDate(arg.Week)
		switch {
		case !ok:
			return ask.Period{}, ask.Invalid("period.week", "is not a calendar date; write a date that exists, as YYYY-MM-DD.")
		case d.After(t) && calendar.WeekOf(d, cat.WeekStart()).After(t):
			return ask.Period{}, ask.Invalid("period.week", "is a week that has not started; figures exist only up to today ("+t.Format(time.DateOnly)+").")
		}
		start := calendar.WeekOf(d, cat.WeekStart())
		p := ask.Period{Start: start, End: start.AddDate(0, 0, 6)}
		if p.End.After(t) {
			p.End, p.Clipped = t, true
		}
		return p, nil
	default:
		start, ok1 := calendar.ParseDate(arg.Start)
		end, ok2 := calendar.ParseDate(arg.End)
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
		case byDay && calendar.DaysBetween(start, end)+1 > maxDays:
			return ask.Period{}, ask.Invalid("period", "is longer than "+itoa(maxDays)+" days, the most that rows by day cover; "+
				"ask for a shorter range, or group by week, month, quarter, team or agent (or not at all) for a range of up to "+itoa(grammar.MaxRangeMonths)+" months.")
		}
		return ask.Period{Start: start, End: end}, nil
	}
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
	weeks := calendar.DaysBetween(calendar.WeekOf(p.Start, weekStart), calendar.WeekOf(p.End, weekStart))/7 + 1
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
