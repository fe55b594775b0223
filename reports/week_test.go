package reports_test

import (
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/ask"
)

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
			got := reports.LastWholeWeek(day, start)
			if !got.End.Equal(end) || !got.Start.Equal(end.AddDate(0, 0, -6)) || got.Start.Weekday() != start {
				t.Errorf("weeks from %s, day %s: %s to %s, want %s to %s", start, day.Format(time.DateOnly),
					got.Start.Format(time.DateOnly), got.End.Format(time.DateOnly),
					end.AddDate(0, 0, -6).Format(time.DateOnly), end.Format(time.DateOnly))
			}
		}
	}
}

// A plan's row holds each metric's parts in turn: a ratio's two, a sum's one.
func TestPlanSpan(t *testing.T) {
	cat, err := catalog.LoadDir("../testdata/diff/old")
	if err != nil {
		t.Fatal(err)
	}
	var ms []*catalog.Metric
	for _, id := range []string{"close_rate", "submitted_sales", "talk_share", "lost"} {
		m, ok := cat.Metric(id)
		if !ok {
			t.Fatalf("no metric %s", id)
		}
		ms = append(ms, m)
	}
	plan := &ask.Plan{Metrics: ms}
	parts := plan.Parts()
	for i, want := range [][2]int{{0, 2}, {2, 1}, {3, 2}, {5, 1}} {
		at, n := plan.Span(i)
		if at != want[0] || n != want[1] {
			t.Errorf("%s: parts %d..%d, want %d..%d", ms[i].ID, at, at+n, want[0], want[0]+want[1])
		}
		for k, p := range ms[i].Parts() {
			if parts[at+k] != p {
				t.Errorf("%s: part %d is not the plan's column %d", ms[i].ID, k, at+k)
			}
		}
	}
}
