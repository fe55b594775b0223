package calendar

import (
	"fmt"
	"time"

	"plumbline/reports/ask"
)

// Previous is the period p is set beside: the day before a day, the week
// before a week, the calendar month, quarter or year before a whole one;
// for a period so far, as many days from the first day of the week, month,
// quarter, year or season before (so for a week the same weekdays), cut at
// its last day; and for any other range the days just before it.
func Previous(p ask.Period) ask.Period {
	month := monthOf(p.Start)
	var start, last time.Time
	switch SoFar(p) {
	case "week":
		start = p.Start.AddDate(0, 0, -7)
		last = p.Start.AddDate(0, 0, -1)
	case "month":
		start, last = month.AddDate(0, -1, 0), month.AddDate(0, 0, -1)
	case "quarter":
		start, last = p.Start.AddDate(0, -3, 0), p.Start.AddDate(0, 0, -1)
	case "year", "season":
		start, last = yearBack(p.Start), p.Start.AddDate(0, 0, -1)
	default:
		for _, months := range []int{1, 3, 12} {
			if wholeCalendar(p, months) {
				return ask.Period{Start: p.Start.AddDate(0, -months, 0), End: p.Start.AddDate(0, 0, -1)}
			}
		}
		n := p.Days()
		return ask.Period{Start: p.Start.AddDate(0, 0, -n), End: p.End.AddDate(0, 0, -n)}
	}
	return ask.Period{Start: start, End: Earlier(start.AddDate(0, 0, p.Days()-1), last)}
}

// YearEarlier is the period p is set beside a year earlier, for weeks
// starting on weekStart: for a week, whole or so far, the same weekdays of
// the week with the same ISO week number a year earlier (week 52 when that
// year has no week 53); for a whole calendar month, quarter or year, the
// whole one a year earlier; for any other period the same calendar dates a
// year earlier, 29 February as the 28th. It also says, in a note, which
// days those are.
func YearEarlier(p ask.Period, weekStart time.Weekday) (ask.Period, string) {
	if p.Start.Equal(WeekOf(p.Start, weekStart)) && (p.Days() == 7 || SoFar(p) == "week") {
		year, week := p.Start.ISOWeek()
		was := week
		if _, last := time.Date(year-1, time.December, 28, 0, 0, 0, 0, time.UTC).ISOWeek(); week > last {
			week = last
		}
		shift := DaysBetween(isoWeekMonday(year-1, week), isoWeekMonday(year, was))
		q := ask.Period{Start: p.Start.AddDate(0, 0, -shift), End: p.End.AddDate(0, 0, -shift)}
		note := fmt.Sprintf("Set beside the same weekdays of the same ISO week a year earlier: week %d of %d, %s.", week, year-1, SpanText(q))
		if week != was {
			note = fmt.Sprintf("Set beside the same weekdays of ISO week %d of %d, %s: %d has no week %d.", week, year-1, SpanText(q), year-1, was)
		}
		return q, note
	}
	q := ask.Period{Start: yearBack(p.Start), End: yearBack(p.End)}
	for _, months := range []int{1, 3, 12} {
		if wholeCalendar(p, months) {
			q.End = q.Start.AddDate(0, months, -1)
		}
	}
	return q, "Set beside the same calendar dates a year earlier, " + SpanText(q) + "."
}

// yearBack is the same date a year before day; 29 February is the 28th.
func yearBack(day time.Time) time.Time {
	if day.Month() == time.February && day.Day() == 29 {
		day = day.AddDate(0, 0, -1)
	}
	return day.AddDate(-1, 0, 0)
}

// isoWeekMonday is the Monday of ISO week week of year: week 1 holds the
// 4th of January.
func isoWeekMonday(year, week int) time.Time {
	jan4 := time.Date(year, time.January, 4, 0, 0, 0, 0, time.UTC)
	return jan4.AddDate(0, 0, -(int(jan4.Weekday())+6)%7+7*(week-1))
}

// wholeCalendar reports whether p is a whole calendar month (months 1), quarter (3)
// or year (12): last_month, last_quarter, last_year, or a range that is one.
func wholeCalendar(p ask.Period, months int) bool {
	var first time.Time
	switch months {
	case 1:
		first = monthOf(p.Start)
	case 3:
		first = quarterOf(p.Start)
	default:
		first = yearOf(p.Start)
	}
	return p.Start.Equal(first) && p.End.Equal(first.AddDate(0, months, -1))
}
