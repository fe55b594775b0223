package directory

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"plumbline/reports/ask"
)

// This file finds a team's targets. Targets are data, set by a person and
// dated: a team's target for a metric over a target period, the latest
// version holding.

// compareTargets orders target versions by team, metric, target period
// and when they were set.
func compareTargets(a, b ask.TargetSet) int {
	return cmp.Or(compareTargetTo(a, b.Team, b.Metric, b.Kind, b.Start), a.SetAt.Compare(b.SetAt))
}

// compareTargetTo orders a target version against a team's target of a
// metric over the target period of kind from start.
func compareTargetTo(t ask.TargetSet, team, metric, kind string, start time.Time) int {
	return cmp.Or(strings.Compare(t.Team, team), strings.Compare(t.Metric, metric), strings.Compare(t.Kind, kind), t.Start.Compare(start))
}

// Target returns the versions of a team's target for a metric over the
// target period of kind (a week or a month) from start, in the order they
// were set: the last one holds. Callers must not change them.
func (d *Directory) Target(team, metric, kind string, start time.Time) []ask.TargetSet {
	of := func(t ask.TargetSet, start time.Time) int { return compareTargetTo(t, team, metric, kind, start) }
	lo, _ := slices.BinarySearchFunc(d.Targets, start, of)
	hi := lo
	for hi < len(d.Targets) && of(d.Targets[hi], start) == 0 {
		hi++
	}
	return d.Targets[lo:hi:hi]
}
