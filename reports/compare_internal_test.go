package reports

import (
	"plumbline/reports/grammar"
	"strings"
	"testing"
	"time"
)

// The previous period of each period form, on the calendar's awkward days:
// months of unequal length, a month so far on the 31st, a week not over, a
// quarter or a year so far set beside as many days of the quarter or year
// before, a whole quarter or year beside the calendar one before.
func TestPreviousPeriod(t *testing.T) {
	cat := demoCatalog(t)
	for _, tc := range []struct {
		now  string
		arg  grammar.PeriodArg
		want string
	}{
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "yesterday"}, "2026-11-16..2026-11-16"},
		{"2026-11-18 14:30", grammar.PeriodArg{Day: "2026-11-16"}, "2026-11-15..2026-11-15"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_week"}, "2026-11-02..2026-11-08"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "this_week"}, "2026-11-09..2026-11-11"},
		{"2026-11-18 14:30", grammar.PeriodArg{Week: "2026-11-17"}, "2026-11-09..2026-11-11"},
		{"2026-11-18 14:30", grammar.PeriodArg{Week: "2026-11-05"}, "2026-10-26..2026-11-01"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_month"}, "2026-09-01..2026-09-30"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "month_to_date"}, "2026-10-01..2026-10-18"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_7_days"}, "2026-11-04..2026-11-10"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_28_days"}, "2026-09-23..2026-10-20"},
		{"2026-11-18 14:30", grammar.PeriodArg{Start: "2026-11-01", End: "2026-11-10"}, "2026-10-22..2026-10-31"},
		{"2026-11-18 14:30", grammar.PeriodArg{Start: "2026-02-01", End: "2026-02-28"}, "2026-01-01..2026-01-31"},
		{"2026-03-31 10:00", grammar.PeriodArg{Named: "this_month"}, "2026-02-01..2026-02-28"},
		{"2026-03-31 10:00", grammar.PeriodArg{Named: "last_month"}, "2026-01-01..2026-01-31"},
		{"2027-01-05 10:00", grammar.PeriodArg{Named: "last_month"}, "2026-11-01..2026-11-30"},
		{"2027-01-05 10:00", grammar.PeriodArg{Named: "month_to_date"}, "2026-12-01..2026-12-05"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "week_to_date"}, "2026-11-09..2026-11-11"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "quarter_to_date"}, "2026-07-01..2026-08-18"},
		{"2026-12-31 10:00", grammar.PeriodArg{Named: "quarter_to_date"}, "2026-07-01..2026-09-30"},
		{"2026-05-31 10:00", grammar.PeriodArg{Named: "quarter_to_date"}, "2026-01-01..2026-03-02"},
		{"2026-02-28 10:00", grammar.PeriodArg{Named: "quarter_to_date"}, "2025-10-01..2025-11-28"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "this_quarter"}, "2026-07-01..2026-08-18"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_quarter"}, "2026-04-01..2026-06-30"},
		{"2026-02-28 10:00", grammar.PeriodArg{Named: "last_quarter"}, "2025-07-01..2025-09-30"},
		{"2026-11-18 14:30", grammar.PeriodArg{Start: "2026-07-01", End: "2026-09-30"}, "2026-04-01..2026-06-30"},
		{"2026-11-18 14:30", grammar.PeriodArg{Start: "2026-07-02", End: "2026-09-30"}, "2026-04-02..2026-07-01"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "year_to_date"}, "2025-01-01..2025-11-18"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "this_year"}, "2025-01-01..2025-11-18"},
		{"2025-03-01 10:00", grammar.PeriodArg{Named: "year_to_date"}, "2024-01-01..2024-02-29"},
		{"2025-12-31 10:00", grammar.PeriodArg{Named: "this_year"}, "2024-01-01..2024-12-30"},
		{"2024-12-31 10:00", grammar.PeriodArg{Named: "this_year"}, "2023-01-01..2023-12-31"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_year"}, "2024-01-01..2024-12-31"},
		{"2025-01-01 00:30", grammar.PeriodArg{Named: "last_year"}, "2023-01-01..2023-12-31"},
	} {
		p, r := resolvePeriod(tc.arg, at(t, tc.now), cat, true)
		if r != nil {
			t.Fatalf("%+v: %v", tc.arg, r)
		}
		q := previousPeriod(p)
		if got := q.Start.Format(time.DateOnly) + ".." + q.End.Format(time.DateOnly); got != tc.want {
			t.Errorf("at %s, before %+v (%s..%s): %s, want %s", tc.now, tc.arg, p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly), got, tc.want)
		}
	}
}

// The same days a year earlier: a week's same weekdays of the same ISO
// week (week 52 for a week 53 the year before lacks), a whole month,
// quarter or year the whole one, any other period the same dates, 29
// February as the 28th.
func TestPreviousYear(t *testing.T) {
	cat := demoCatalog(t)
	for _, tc := range []struct {
		now  string
		arg  grammar.PeriodArg
		want string
		note string
	}{
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_week"}, "2025-11-10..2025-11-16", "week 46 of 2025"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "this_week"}, "2025-11-17..2025-11-19", "week 47 of 2025"},
		{"2026-11-18 14:30", grammar.PeriodArg{Start: "2026-11-02", End: "2026-11-08"}, "2025-11-03..2025-11-09", "week 45 of 2025"},
		{"2027-01-05 10:00", grammar.PeriodArg{Week: "2026-12-30"}, "2025-12-22..2025-12-28", "2025 has no week 53"},
		{"2027-01-12 10:00", grammar.PeriodArg{Week: "2027-01-04"}, "2025-12-29..2026-01-04", "week 1 of 2026"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_month"}, "2025-10-01..2025-10-31", "same calendar dates"},
		{"2025-03-10 10:00", grammar.PeriodArg{Named: "last_month"}, "2024-02-01..2024-02-29", "same calendar dates"},
		{"2024-03-10 10:00", grammar.PeriodArg{Start: "2024-02-29", End: "2024-03-05"}, "2023-02-28..2023-03-05", "same calendar dates"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "month_to_date"}, "2025-11-01..2025-11-18", "same calendar dates"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_quarter"}, "2025-07-01..2025-09-30", "same calendar dates"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_year"}, "2024-01-01..2024-12-31", "same calendar dates"},
		{"2026-11-18 14:30", grammar.PeriodArg{Named: "last_7_days"}, "2025-11-11..2025-11-17", "same calendar dates"},
	} {
		p, r := resolvePeriod(tc.arg, at(t, tc.now), cat, true)
		if r != nil {
			t.Fatalf("%+v: %v", tc.arg, r)
		}
		q, note := previousYear(p, cat.WeekStart())
		if got := q.Start.Format(time.DateOnly) + ".." + q.End.Format(time.DateOnly); got != tc.want || !strings.Contains(note, tc.note) {
			t.Errorf("at %s, a year before %+v (%s..%s): %s (%s), want %s (%s)", tc.now, tc.arg, p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly),
				got, note, tc.want, tc.note)
		}
	}
}

// The periods to date start on the first day of the week, the month, the
// calendar quarter and the year, and end today; the last quarter and year
// are the calendar ones before today's, in New York.
func TestPeriodsToDate(t *testing.T) {
	cat := demoCatalog(t)
	for _, tc := range []struct{ now, name, want string }{
		{"2026-11-18 14:30", "week_to_date", "2026-11-16..2026-11-18"},
		{"2026-11-16 09:00", "week_to_date", "2026-11-16..2026-11-16"},
		{"2026-11-18 14:30", "quarter_to_date", "2026-10-01..2026-11-18"},
		{"2026-10-01 08:00", "quarter_to_date", "2026-10-01..2026-10-01"},
		{"2026-03-31 23:30", "quarter_to_date", "2026-01-01..2026-03-31"},
		{"2026-04-01 00:30", "quarter_to_date", "2026-04-01..2026-04-01"},
		{"2026-11-18 14:30", "this_quarter", "2026-10-01..2026-11-18"},
		{"2026-11-18 14:30", "last_quarter", "2026-07-01..2026-09-30"},
		{"2026-01-15 09:00", "last_quarter", "2025-10-01..2025-12-31"},
		{"2026-04-01 00:30", "last_quarter", "2026-01-01..2026-03-31"},
		{"2026-11-18 14:30", "year_to_date", "2026-01-01..2026-11-18"},
		{"2026-11-18 14:30", "this_year", "2026-01-01..2026-11-18"},
		{"2026-01-01 00:30", "year_to_date", "2026-01-01..2026-01-01"},
		{"2026-12-31 23:30", "this_year", "2026-01-01..2026-12-31"},
		{"2026-11-18 14:30", "last_year", "2025-01-01..2025-12-31"},
		{"2026-01-01 00:30", "last_year", "2025-01-01..2025-12-31"},
		{"2025-12-31 23:30", "last_year", "2024-01-01..2024-12-31"},
	} {
		p, r := resolvePeriod(grammar.PeriodArg{Named: tc.name}, at(t, tc.now), cat, true)
		if got := p.Start.Format(time.DateOnly) + ".." + p.End.Format(time.DateOnly); r != nil || got != tc.want {
			t.Errorf("%s at %s = %s (%v), want %s", tc.name, tc.now, got, r, tc.want)
		}
	}
}
