package reports

import (
	"slices"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/grammar"
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

func at(t *testing.T, s string) time.Time {
	t.Helper()
	zone, _ := time.LoadLocation("America/New_York")
	v, err := time.ParseInLocation("2006-01-02 15:04", s, zone)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Late on New Year's Eve in New York it is already the new year in UTC; the
// floor's day is still the 31st, and "last_month" is November.
func TestPeriodsAtTheYearEnd(t *testing.T) {
	cat := demoCatalog(t)
	now := at(t, "2026-12-31 22:00")
	for name, want := range map[string]string{
		"today":      "2026-12-31..2026-12-31",
		"last_month": "2026-11-01..2026-11-30",
		"this_week":  "2026-12-28..2026-12-31",
	} {
		p, _ := resolvePeriod(grammar.PeriodArg{Named: name}, now, cat, true)
		if got := p.Start.Format(time.DateOnly) + ".." + p.End.Format(time.DateOnly); got != want {
			t.Errorf("%s on New Year's Eve = %s, want %s", name, got, want)
		}
	}
	// In the first days of January, last week and last month are last year's.
	now = at(t, "2027-01-02 09:00")
	for name, want := range map[string]string{
		"last_month": "2026-12-01..2026-12-31",
		"last_week":  "2026-12-21..2026-12-27",
		"this_week":  "2026-12-28..2027-01-02",
	} {
		p, _ := resolvePeriod(grammar.PeriodArg{Named: name}, now, cat, true)
		if got := p.Start.Format(time.DateOnly) + ".." + p.End.Format(time.DateOnly); got != want {
			t.Errorf("%s on 2 January = %s, want %s", name, got, want)
		}
	}
	// A week given by any of its days, across the year end.
	p, r := resolvePeriod(grammar.PeriodArg{Week: "2027-01-01"}, at(t, "2027-02-01 09:00"), cat, true)
	if r != nil || p.Start != date("2026-12-28") || p.End != date("2027-01-03") || p.Days() != 7 {
		t.Errorf("week of 2027-01-01 = %+v %v", p, r)
	}
}

// Weeks that hold a clock change still have seven days, from Monday.
func TestWeeksAcrossClockChanges(t *testing.T) {
	cat := demoCatalog(t)
	now := at(t, "2026-12-01 12:00")
	for given, want := range map[string]string{
		"2026-03-08": "2026-03-02..2026-03-08", // spring forward, Sunday 8 March
		"2026-03-09": "2026-03-09..2026-03-15",
		"2026-11-01": "2026-10-26..2026-11-01", // fall back, Sunday 1 November
		"2026-10-29": "2026-10-26..2026-11-01",
	} {
		p, r := resolvePeriod(grammar.PeriodArg{Week: given}, now, cat, true)
		if r != nil {
			t.Fatal(r)
		}
		if got := p.Start.Format(time.DateOnly) + ".." + p.End.Format(time.DateOnly); got != want || p.Days() != 7 {
			t.Errorf("week of %s = %s (%d days), want %s", given, got, p.Days(), want)
		}
	}
	// "yesterday" just after midnight on the day the clocks go back.
	p, _ := resolvePeriod(grammar.PeriodArg{Named: "yesterday"}, at(t, "2026-11-01 00:30"), cat, true)
	if p.Start != date("2026-10-31") {
		t.Errorf("yesterday at 00:30 on 1 November = %s", p.Start)
	}
}

func TestPeriodRules(t *testing.T) {
	cat := demoCatalog(t)
	now := at(t, "2026-11-18 14:30")
	for _, tc := range []struct {
		arg      grammar.PeriodArg
		argument string
	}{
		{grammar.PeriodArg{Day: "2026-11-19"}, "period.day"},
		{grammar.PeriodArg{Day: "2026-02-30"}, "period.day"},
		{grammar.PeriodArg{Week: "2026-11-23"}, "period.week"},
		{grammar.PeriodArg{Start: "2026-11-10", End: "2026-11-01"}, "period"},
		{grammar.PeriodArg{Start: "2026-11-10", End: "2026-11-19"}, "period.end"},
		{grammar.PeriodArg{Start: "2026-07-01", End: "2026-11-17"}, "period"},
	} {
		_, r := resolvePeriod(tc.arg, now, cat, true)
		if r == nil || r.Argument != tc.argument || r.Code != ask.CodeInvalidArgument {
			t.Errorf("%+v: refusal %+v, want one about %s", tc.arg, r, tc.argument)
		}
	}
	// 120 days exactly is allowed; the current week is cut at today.
	if _, r := resolvePeriod(grammar.PeriodArg{Start: "2026-07-21", End: "2026-11-17"}, now, cat, true); r != nil {
		t.Errorf("a 120-day range was refused: %v", r)
	}
	// Without rows by day a range runs to 24 months, to the day before the
	// same date two years on (1 March after 29 February).
	for _, tc := range []struct {
		start, end string
		byDay, ok  bool
	}{
		{"2024-11-18", "2026-11-17", false, true},
		{"2024-11-18", "2026-11-18", false, false},
		{"2024-11-17", "2026-11-17", false, false},
		{"2024-02-29", "2026-02-28", false, true},
		{"2024-02-29", "2026-03-01", false, false},
		{"2026-07-01", "2026-11-17", false, true},
		{"2026-07-01", "2026-11-17", true, false},
	} {
		_, r := resolvePeriod(grammar.PeriodArg{Start: tc.start, End: tc.end}, now, cat, tc.byDay)
		if (r == nil) != tc.ok || r != nil && r.Argument != grammar.ArgPeriod {
			t.Errorf("%s to %s (by day %v): refusal %v, want answered %v", tc.start, tc.end, tc.byDay, r, tc.ok)
		}
	}
	p, r := resolvePeriod(grammar.PeriodArg{Week: "2026-11-20"}, now, cat, true)
	if r != nil || p.End != date("2026-11-18") || !p.Clipped {
		t.Errorf("the current week = %+v, %v; want it cut at today", p, r)
	}
}

// Rows by day hold at most max_days days, and only a named year runs
// longer: by day it is refused, taught to group by week while its weeks fit
// in an answer's rows, by month or quarter, and without those by team or
// agent or not at all; a running total by day is taught the coarser rows.
// A quarter by day, and a year by week, month or not grouped, pass.
func TestYearsByDay(t *testing.T) {
	cat := demoCatalog(t)
	offered := []string{catalog.GroupTeam, catalog.GroupAgent, catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter}
	coarse := []string{catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter}
	for _, tc := range []struct {
		now, name, groupBy string
		cumulative         bool
		argument           string
		choices            []string
	}{
		{"2026-11-18 14:30", "year_to_date", catalog.GroupDay, false, grammar.ArgGroupBy, coarse},
		{"2026-11-18 14:30", "last_year", catalog.GroupDay, false, grammar.ArgGroupBy, []string{catalog.GroupMonth, catalog.GroupQuarter}},
		{"2026-11-18 14:30", "this_year", catalog.GroupDay, true, grammar.ArgCumulative, coarse},
		{"2026-04-30 14:30", "this_year", catalog.GroupDay, false, "", nil},
		{"2026-05-01 14:30", "this_year", catalog.GroupDay, false, grammar.ArgGroupBy, coarse},
		{"2026-11-18 14:30", "last_year", catalog.GroupWeek, false, "", nil},
		{"2026-11-18 14:30", "last_year", catalog.GroupMonth, true, "", nil},
		{"2026-11-18 14:30", "last_year", "", false, "", nil},
		{"2026-11-18 14:30", "last_quarter", catalog.GroupDay, true, "", nil},
		{"2026-12-31 14:30", "this_quarter", catalog.GroupDay, false, "", nil},
	} {
		p, r := resolvePeriod(grammar.PeriodArg{Named: tc.name}, at(t, tc.now), cat, true)
		if r == nil {
			r = byDayBound(p, tc.groupBy, tc.cumulative, offered, cat.Limits(), cat.WeekStart())
		}
		switch {
		case tc.argument == "" && r != nil:
			t.Errorf("%s by %q at %s (%d days) was refused: %v", tc.name, tc.groupBy, tc.now, p.Days(), r)
		case tc.argument == "":
		case r == nil:
			t.Errorf("%s by %q at %s (%d days) was answered, want a refusal about %s", tc.name, tc.groupBy, tc.now, p.Days(), tc.argument)
		case r.Argument != tc.argument || r.Code != ask.CodeInvalidArgument || !slices.Equal(r.Choices, append([]string{}, tc.choices...)) ||
			!strings.Contains(r.Rule, "at most 120 days"):
			t.Errorf("%s by %q at %s: %+v", tc.name, tc.groupBy, tc.now, r)
		}
	}
	// A report without coarser rows than weeks teaches team, agent or none.
	p, _ := resolvePeriod(grammar.PeriodArg{Named: "last_year"}, at(t, "2026-11-18 14:30"), cat, true)
	r := byDayBound(p, catalog.GroupDay, false, offered[:4], cat.Limits(), cat.WeekStart())
	if r == nil || !slices.Equal(r.Choices, []string{catalog.GroupTeam, catalog.GroupAgent}) {
		t.Errorf("last_year by day without months: %+v", r)
	}
}

// How far a source's figures run and are whole: through the last day
// loaded, and whole through the earlier of that and its last whole day.
func TestDataThrough(t *testing.T) {
	zone, _ := time.LoadLocation("America/New_York")
	nextMorning := catalog.Settle{DaysAfter: 1, At: 6 * time.Hour}
	th := dataThrough(ask.Coverage{First: date("2025-10-15"), Through: date("2026-11-17")}, catalog.Settle{DaysAfter: 2, At: 6 * time.Hour}, at(t, "2026-11-18 14:30"), zone)
	if th.runsTo != date("2026-11-17") || th.complete != date("2026-11-16") {
		t.Errorf("hours through = %+v", th)
	}
	if th := dataThrough(ask.Coverage{}, nextMorning, at(t, "2026-11-18 14:30"), zone); th.public().RunsTo != nil {
		t.Errorf("an empty source has data through %v", *th.public().RunsTo)
	}
}
