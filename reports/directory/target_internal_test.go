package directory

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

	"plumbline/reports/ask"
)

// A team's target versions are those among the roster's rows with its
// team, metric, kind and first day, in the order they were set, whatever
// the order the rows were read in: the same as a plain filter of the rows
// finds.
func TestATargetsVersionsAreItsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	day := func(n int) time.Time { return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n) }
	teams, metrics, kinds := []string{"hawks", "owls", "wrens"}, []string{"close_rate", "submitted_sales"}, []string{"month", "week"}
	var rows []ask.TargetSet
	for range 400 {
		rows = append(rows, ask.TargetSet{
			Team: teams[rng.IntN(len(teams))], Metric: metrics[rng.IntN(len(metrics))], Kind: kinds[rng.IntN(len(kinds))],
			Start: day(7 * rng.IntN(6)), Value: float64(rng.IntN(100)), SetBy: fmt.Sprint("lead ", rng.IntN(3)),
			SetAt: time.Date(2025, 12, 1, rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC), Reason: fmt.Sprint("plan ", rng.IntN(4)),
		})
	}
	d := New(&ask.Roster{Targets: slices.Clone(rows)}, day(0), nil)
	for _, team := range append(teams, "kites") {
		for _, metric := range metrics {
			for _, kind := range kinds {
				for w := -1; w <= 6; w++ {
					var want []ask.TargetSet
					for _, r := range rows {
						if r.Team == team && r.Metric == metric && r.Kind == kind && r.Start.Equal(day(7*w)) {
							want = append(want, r)
						}
					}
					slices.SortStableFunc(want, func(a, b ask.TargetSet) int { return a.SetAt.Compare(b.SetAt) })
					got := d.Target(team, metric, kind, day(7*w))
					if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %s %s from %s: %d versions, want %d", team, metric, kind, day(7*w).Format(time.DateOnly), len(got), len(want))
					}
				}
			}
		}
	}
}

// A target version kept by the directory stays small: a floor of hundreds
// of teams has tens of thousands of them.
func TestATargetIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(target{}); n > 56 {
		t.Errorf("a target version takes %d bytes, more than 56", n)
	}
}
