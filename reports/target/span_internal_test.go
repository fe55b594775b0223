package target

import (
	"math"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// A period is a target period when it is a whole week or calendar month,
// or one from its first day through today; nothing else is.
func TestPeriodOf(t *testing.T) {
	today := day("2026-11-11") // a Wednesday
	for _, c := range []struct {
		start, end string
		want       string // the target period, or empty for none
		days       int
	}{
		{"2026-11-02", "2026-11-08", "the week of 2026-11-02", 7},
		{"2026-11-09", "2026-11-11", "the week of 2026-11-09", 7},
		{"2026-10-01", "2026-10-31", "the month of 2026-10", 31},
		{"2026-11-01", "2026-11-11", "the month of 2026-11", 30},
		{"2026-11-02", "2026-11-07", "", 0}, // a week cut short before today
		{"2026-11-03", "2026-11-09", "", 0}, // seven days across two weeks
		{"2026-10-01", "2026-11-11", "", 0}, // more than a month
		{"2026-10-02", "2026-10-31", "", 0}, // a month without its first day
		{"2026-11-01", "2026-11-10", "", 0}, // a month cut short before today
		{"2026-11-09", "2026-11-10", "", 0}, // a week cut short before today
		{"2026-11-09", "2026-11-15", "the week of 2026-11-09", 7},
	} {
		ts, ok := periodOf(ask.Period{Start: day(c.start), End: day(c.end)}, today, time.Monday)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s to %s is %s; want no target period", c.start, c.end, ts)
		case c.want != "" && (!ok || ts.String() != c.want || ts.days != c.days):
			t.Errorf("%s to %s is %v (%t, %d days); want %s, %d days", c.start, c.end, ts, ok, ts.days, c.want, c.days)
		}
	}
}

// SpanFor refuses a period that is no target period, and one whose kind
// none of the metrics has targets set for, naming the periods to ask for.
func TestSpanForRefuses(t *testing.T) {
	today := day("2026-11-11")
	weekly := []*catalog.Metric{{ID: "sales", Target: &catalog.Target{Periods: []string{catalog.TargetWeek}}}}
	if _, r := SpanFor(ask.Period{Start: day("2026-11-03"), End: day("2026-11-04")}, today, time.Monday, weekly); r == nil || r.Argument != "period" {
		t.Errorf("two days of a week: refusal %+v; want one naming period", r)
	}
	_, r := SpanFor(ask.Period{Start: day("2026-10-01"), End: day("2026-10-31")}, today, time.Monday, weekly)
	if r == nil || len(r.Choices) != 3 || r.Choices[0] != "last_week" {
		t.Errorf("a month of weekly targets: refusal %+v; want the week's named periods as choices", r)
	}
	ts, r := SpanFor(ask.Period{Start: day("2026-11-02"), End: day("2026-11-08")}, today, time.Monday, weekly)
	if r != nil || ts != week(day("2026-11-02")) {
		t.Errorf("a whole week: %v, %+v; want the week of 2026-11-02", ts, r)
	}
}

// Attainment is null without a figure or a target, and a gap of no points
// is written 0, never -0.
func TestAttainment(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	count := &catalog.Metric{ID: "sales", Sum: &catalog.Part{}, Target: &catalog.Target{}}
	rate := &catalog.Metric{ID: "conversion", Ratio: &catalog.Ratio{}, Target: &catalog.Target{Gap: catalog.TargetGapPoints}}
	for i, c := range []struct {
		m      *catalog.Metric
		sums   []*float64
		target *float64
		want   any
	}{
		{count, []*float64{f(30)}, f(40), 0.75},
		{count, []*float64{f(30)}, nil, nil},
		{count, []*float64{nil}, f(40), nil},
		{count, []*float64{f(30)}, f(0), nil},
		{count, []*float64{f(math.Copysign(0, -1))}, f(40), 0.0},
		{rate, []*float64{f(1), f(4)}, f(0.2), 5.0},
		{rate, []*float64{f(1), f(4)}, f(0.25), 0.0},
		{rate, []*float64{f(1), f(0)}, f(0.25), nil},
		{rate, []*float64{f(math.Copysign(0, -1)), f(4)}, f(0), 0.0},
	} {
		got := attainment(c.m, c.sums, c.target)
		if got != c.want {
			t.Errorf("case %d: %s attainment = %v; want %v", i, c.m.ID, got, c.want)
		}
		if v, ok := got.(float64); ok && v == 0 && 1/v < 0 {
			t.Errorf("case %d: %s attainment is -0", i, c.m.ID)
		}
	}
}
