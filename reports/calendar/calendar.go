package calendar

import (
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// Today returns the floor's current day at now, in the floor's zone.
func Today(now time.Time, zone *time.Location) time.Time { return civil(now.In(zone)) }

// civil returns the calendar day of t, in t's own location, as a date.
func civil(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// DaysBetween is how many days b is after a (negative when it is before).
func DaysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

// Later returns the later of two days.
func Later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Earlier returns the earlier of two days.
func Earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// ParseDate parses a YYYY-MM-DD date; false when it is not a calendar date.
func ParseDate(s string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}

// WeekOf returns the first day of the week holding day, for weeks starting
// on start.
func WeekOf(day time.Time, start time.Weekday) time.Time {
	back := (int(day.Weekday()) - int(start) + 7) % 7
	return day.AddDate(0, 0, -back)
}

// monthOf returns the 1st of the month holding day.
func monthOf(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// quarterOf returns the first day of the calendar quarter holding day.
func quarterOf(day time.Time) time.Time {
	return time.Date(day.Year(), (day.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
}

// yearOf returns the 1st of January of the year holding day.
func yearOf(day time.Time) time.Time {
	return time.Date(day.Year(), time.January, 1, 0, 0, 0, 0, time.UTC)
}

// LastWholeWeek is the latest whole week, starting on start, that ends
// before day: the week before day's own.
func LastWholeWeek(day time.Time, start time.Weekday) ask.Period {
	first := WeekOf(day, start).AddDate(0, 0, -7)
	return ask.Period{Start: first, End: first.AddDate(0, 0, 6)}
}

// ByTime reports whether rows grouped by groupBy are days, weeks, months
// or quarters.
func ByTime(groupBy string) bool {
	switch groupBy {
	case catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		return true
	}
	return false
}

// BucketEnd returns the last day of the week, month or quarter (by
// groupBy) starting on first; first itself for a day.
func BucketEnd(groupBy string, first time.Time) time.Time {
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

// BucketDays is how many days of p fall in the week, month or quarter (by
// groupBy) starting on the date key.
func BucketDays(groupBy, key string, p ask.Period) int {
	first, _ := ParseDate(key)
	return DaysBetween(Later(first, p.Start), Earlier(BucketEnd(groupBy, first), p.End)) + 1
}

// LastWholeDay returns the newest day that is whole at now under rule: day
// D is whole at local time rule.At on day D+rule.DaysAfter, in zone.
func LastWholeDay(rule catalog.Settle, now time.Time, zone *time.Location) time.Time {
	local := now.In(zone)
	d := civil(local).AddDate(0, 0, -rule.DaysAfter)
	// Compare wall-clock times: on the days the clocks change, the time
	// elapsed since midnight is an hour off the time on the clock.
	clock := time.Duration(local.Hour())*time.Hour + time.Duration(local.Minute())*time.Minute +
		time.Duration(local.Second())*time.Second
	if clock < rule.At {
		d = d.AddDate(0, 0, -1)
	}
	return d
}
