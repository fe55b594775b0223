package calendar

import (
	"fmt"
	"strconv"
	"time"

	"plumbline/reports/ask"
)

// DayCount says a number of days in words ("1 day", "3 days"); zero reads
// as none when none is given.
func DayCount(n int, none string) string {
	switch {
	case n == 0 && none != "":
		return none
	case n == 1:
		return "1 day"
	}
	return strconv.Itoa(n) + " days"
}

// SpanText writes a run of days: one day, or its first and last
// ("2026-11-02 to 2026-11-08").
func SpanText(p ask.Period) string {
	if p.Start.Equal(p.End) {
		return p.Start.Format(time.DateOnly)
	}
	return p.Start.Format(time.DateOnly) + " to " + p.End.Format(time.DateOnly)
}

// DateOrNever writes a day as YYYY-MM-DD, or the zero day as "no day yet".
func DateOrNever(d time.Time) string {
	if d.IsZero() {
		return "no day yet"
	}
	return d.Format(time.DateOnly)
}

// Share says how many of a period's days something holds: all, none, or
// some of them.
func Share(n, of int) string {
	switch {
	case n == of && of == 1:
		return "the 1 day"
	case n == of:
		return fmt.Sprintf("all %s", DayCount(of, ""))
	case n == 0:
		return fmt.Sprintf("none of the %s", DayCount(of, ""))
	}
	return fmt.Sprintf("%d of the %s", n, DayCount(of, ""))
}
