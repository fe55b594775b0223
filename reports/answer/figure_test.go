package answer

import (
	"slices"
	"testing"

	"plumbline/catalog"
)

// A figure is written in its unit: a count whole, hours to the hundredth,
// a ratio divided from its summed parts to six significant digits with the
// parts beside it; null for no data or nothing to divide by.
func TestCells(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	metric := func(id string) *catalog.Metric {
		m, ok := cat.Metric(id)
		if !ok {
			t.Fatalf("no metric %s", id)
		}
		return m
	}
	v := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		metric string
		sums   []*float64
		want   []any
	}{
		{"submitted_sales", []*float64{v(41.4)}, []any{int64(41)}},
		{"submitted_sales", []*float64{nil}, []any{nil}},
		{"logged_hours", []*float64{v(7.3349)}, []any{7.33}},
		{"logged_hours", []*float64{v(0)}, []any{0.0}},
		{"talk_share", []*float64{v(1), v(3)}, []any{0.333333, 1.0, 3.0}},
		{"talk_share", []*float64{v(1.005), v(0)}, []any{nil, 1.0, 0.0}},
		{"talk_share", []*float64{nil, v(3)}, []any{nil, nil, 3.0}},
	} {
		m := metric(tc.metric)
		if got := AppendCells(nil, m, tc.sums); !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.metric, tc.sums, got, tc.want)
		}
		cols := Columns("", []*catalog.Metric{m})
		if len(cols) != len(tc.want) {
			t.Errorf("%s: columns %v for %d cells", tc.metric, cols, len(tc.want))
		}
	}
	if got := KeyColumns(catalog.GroupWeek); !slices.Equal(got, []string{"week", "days"}) {
		t.Errorf("key columns by week: %v", got)
	}
	if Nullable("") != nil || Nullable("Falcons") != "Falcons" {
		t.Error("a text an answer may lack is not null when empty")
	}
}
