package reports_test

import (
	"testing"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

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
