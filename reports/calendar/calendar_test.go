package calendar

import (
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

func demoCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// at is a moment on the floor, in New York.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	zone, _ := time.LoadLocation("America/New_York")
	v, err := time.ParseInLocation("2006-01-02 15:04", s, zone)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// asked is the period a case asks for at now: a span "first..last" (cut at
// today when clipped, as the current week is), or else a named period.
func asked(t *testing.T, cat *catalog.Catalog, now, span string, clipped bool) ask.Period {
	t.Helper()
	if first, last, ok := strings.Cut(span, ".."); ok {
		return ask.Period{Start: date(first), End: date(last), Clipped: clipped}
	}
	return Named(span, Today(at(t, now), cat.Zone()), cat)
}

func spanOf(p ask.Period) string {
	return p.Start.Format(time.DateOnly) + ".." + p.End.Format(time.DateOnly)
}

func TestNamedPeriods(t *testing.T) {
	cat := demoCatalog(t)
	// Wednesday 18 November 2026, afternoon in New York.
	day := Today(at(t, "2026-11-18 14:30"), cat.Zone())
	for _, tc := range []struct{ name, start, end string }{
		{"today", "2026-11-18", "2026-11-18"},
		{"yesterday", "2026-11-17", "2026-11-17"},
		{"this_week", "2026-11-16", "2026-11-18"},
		{"last_week", "2026-11-09", "2026-11-15"},
		{"this_month", "2026-11-01", "2026-11-18"},
		{"month_to_date", "2026-11-01", "2026-11-18"},
		{"last_month", "2026-10-01", "2026-10-31"},
		{"last_7_days", "2026-11-11", "2026-11-17"},
		{"last_28_days", "2026-10-21", "2026-11-17"},
	} {
		p := Named(tc.name, day, cat)
		if got := spanOf(p); got != tc.start+".."+tc.end || p.Named != tc.name {
			t.Errorf("%s = %s (named %q), want %s..%s", tc.name, got, p.Named, tc.start, tc.end)
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
		if got := spanOf(Named(tc.name, Today(at(t, tc.now), cat.Zone()), cat)); got != tc.want {
			t.Errorf("%s at %s = %s, want %s", tc.name, tc.now, got, tc.want)
		}
	}
}

// The last whole week before a day, found here by walking back day by day
// to the last day of a week that ends before it, for every week start and
// every day of four weeks.
func TestLastWholeWeek(t *testing.T) {
	for start := time.Sunday; start <= time.Saturday; start++ {
		for day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC); day.Before(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)); day = day.AddDate(0, 0, 1) {
			end := day.AddDate(0, 0, -1)
			for end.Weekday() != (start+6)%7 {
				end = end.AddDate(0, 0, -1)
			}
			got := LastWholeWeek(day, start)
			if !got.End.Equal(end) || !got.Start.Equal(end.AddDate(0, 0, -6)) || got.Start.Weekday() != start {
				t.Errorf("weeks from %s, day %s: %s to %s, want %s to %s", start, day.Format(time.DateOnly),
					got.Start.Format(time.DateOnly), got.End.Format(time.DateOnly),
					end.AddDate(0, 0, -6).Format(time.DateOnly), end.Format(time.DateOnly))
			}
		}
	}
}

// The previous period of each period form, on the calendar's awkward days:
// months of unequal length, a month so far on the 31st, a week not over, a
// quarter or a year so far set beside as many days of the quarter or year
// before, a whole quarter or year beside the calendar one before.
func TestPrevious(t *testing.T) {
	cat := demoCatalog(t)
	for _, tc := range []struct {
		now, asked string
		clipped    bool
		want       string
	}{
		{"2026-11-18 14:30", "yesterday", false, "2026-11-16..2026-11-16"},
		{"2026-11-18 14:30", "2026-11-16..2026-11-16", false, "2026-11-15..2026-11-15"},
		{"2026-11-18 14:30", "last_week", false, "2026-11-02..2026-11-08"},
		{"2026-11-18 14:30", "this_week", false, "2026-11-09..2026-11-11"},
		{"2026-11-18 14:30", "2026-11-16..2026-11-18", true, "2026-11-09..2026-11-11"}, // the week of 2026-11-17, cut at today
		{"2026-11-18 14:30", "2026-11-02..2026-11-08", false, "2026-10-26..2026-11-01"},
		{"2026-11-18 14:30", "last_month", false, "2026-09-01..2026-09-30"},
		{"2026-11-18 14:30", "month_to_date", false, "2026-10-01..2026-10-18"},
		{"2026-11-18 14:30", "last_7_days", false, "2026-11-04..2026-11-10"},
		{"2026-11-18 14:30", "last_28_days", false, "2026-09-23..2026-10-20"},
		{"2026-11-18 14:30", "2026-11-01..2026-11-10", false, "2026-10-22..2026-10-31"},
		{"2026-11-18 14:30", "2026-02-01..2026-02-28", false, "2026-01-01..2026-01-31"},
		{"2026-03-31 10:00", "this_month", false, "2026-02-01..2026-02-28"},
		{"2026-03-31 10:00", "last_month", false, "2026-01-01..2026-01-31"},
		{"2027-01-05 10:00", "last_month", false, "2026-11-01..2026-11-30"},
		{"2027-01-05 10:00", "month_to_date", false, "2026-12-01..2026-12-05"},
		{"2026-11-18 14:30", "week_to_date", false, "2026-11-09..2026-11-11"},
		{"2026-11-18 14:30", "quarter_to_date", false, "2026-07-01..2026-08-18"},
		{"2026-12-31 10:00", "quarter_to_date", false, "2026-07-01..2026-09-30"},
		{"2026-05-31 10:00", "quarter_to_date", false, "2026-01-01..2026-03-02"},
		{"2026-02-28 10:00", "quarter_to_date", false, "2025-10-01..2025-11-28"},
		{"2026-11-18 14:30", "this_quarter", false, "2026-07-01..2026-08-18"},
		{"2026-11-18 14:30", "last_quarter", false, "2026-04-01..2026-06-30"},
		{"2026-02-28 10:00", "last_quarter", false, "2025-07-01..2025-09-30"},
		{"2026-11-18 14:30", "2026-07-01..2026-09-30", false, "2026-04-01..2026-06-30"},
		{"2026-11-18 14:30", "2026-07-02..2026-09-30", false, "2026-04-02..2026-07-01"},
		{"2026-11-18 14:30", "year_to_date", false, "2025-01-01..2025-11-18"},
		{"2026-11-18 14:30", "this_year", false, "2025-01-01..2025-11-18"},
		{"2025-03-01 10:00", "year_to_date", false, "2024-01-01..2024-02-29"},
		{"2025-12-31 10:00", "this_year", false, "2024-01-01..2024-12-30"},
		{"2024-12-31 10:00", "this_year", false, "2023-01-01..2023-12-31"},
		{"2026-11-18 14:30", "last_year", false, "2024-01-01..2024-12-31"},
		{"2025-01-01 00:30", "last_year", false, "2023-01-01..2023-12-31"},
	} {
		p := asked(t, cat, tc.now, tc.asked, tc.clipped)
		if got := spanOf(Previous(p)); got != tc.want {
			t.Errorf("at %s, before %s (%s): %s, want %s", tc.now, tc.asked, spanOf(p), got, tc.want)
		}
	}
}

// The same days a year earlier: a week's same weekdays of the same ISO
// week (week 52 for a week 53 the year before lacks), a whole month,
// quarter or year the whole one, any other period the same dates, 29
// February as the 28th.
func TestYearEarlier(t *testing.T) {
	cat := demoCatalog(t)
	for _, tc := range []struct {
		now, asked string
		clipped    bool
		want, note string
	}{
		{"2026-11-18 14:30", "last_week", false, "2025-11-10..2025-11-16", "week 46 of 2025"},
		{"2026-11-18 14:30", "this_week", false, "2025-11-17..2025-11-19", "week 47 of 2025"},
		{"2026-11-18 14:30", "2026-11-02..2026-11-08", false, "2025-11-03..2025-11-09", "week 45 of 2025"},
		{"2027-01-05 10:00", "2026-12-28..2027-01-03", false, "2025-12-22..2025-12-28", "2025 has no week 53"}, // the week of 2026-12-30
		{"2027-01-12 10:00", "2027-01-04..2027-01-10", false, "2025-12-29..2026-01-04", "week 1 of 2026"},
		{"2026-11-18 14:30", "last_month", false, "2025-10-01..2025-10-31", "same calendar dates"},
		{"2025-03-10 10:00", "last_month", false, "2024-02-01..2024-02-29", "same calendar dates"},
		{"2024-03-10 10:00", "2024-02-29..2024-03-05", false, "2023-02-28..2023-03-05", "same calendar dates"},
		{"2026-11-18 14:30", "month_to_date", false, "2025-11-01..2025-11-18", "same calendar dates"},
		{"2026-11-18 14:30", "last_quarter", false, "2025-07-01..2025-09-30", "same calendar dates"},
		{"2026-11-18 14:30", "last_year", false, "2024-01-01..2024-12-31", "same calendar dates"},
		{"2026-11-18 14:30", "last_7_days", false, "2025-11-11..2025-11-17", "same calendar dates"},
	} {
		p := asked(t, cat, tc.now, tc.asked, tc.clipped)
		q, note := YearEarlier(p, cat.WeekStart())
		if got := spanOf(q); got != tc.want || !strings.Contains(note, tc.note) {
			t.Errorf("at %s, a year before %s (%s): %s (%s), want %s (%s)", tc.now, tc.asked, spanOf(p), got, note, tc.want, tc.note)
		}
	}
}

func TestLastWholeDay(t *testing.T) {
	zone, _ := time.LoadLocation("America/New_York")
	nextMorning := catalog.Settle{DaysAfter: 1, At: 6 * time.Hour}
	for now, want := range map[string]string{
		"2026-11-18 05:59": "2026-11-16",
		"2026-11-18 06:00": "2026-11-17",
		"2026-11-18 23:00": "2026-11-17",
		"2026-11-01 06:30": "2026-10-31", // the day the clocks go back
		"2026-03-08 06:30": "2026-03-07", // the day they go forward
	} {
		if got := LastWholeDay(nextMorning, at(t, now), zone).Format(time.DateOnly); got != want {
			t.Errorf("at %s the last whole day is %s, want %s", now, got, want)
		}
	}
	midnight := catalog.Settle{DaysAfter: 1}
	if got := LastWholeDay(midnight, at(t, "2026-11-18 00:01"), zone); got != date("2026-11-17") {
		t.Errorf("a live source's yesterday is not whole just after midnight: %s", got)
	}
}
