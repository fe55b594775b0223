package reports

import (
	"context"
	"fmt"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
)

// This file previews a catalogue change's effect on the figures (plumbline
// check --diff): each redefined metric summed under its old and its new
// definition, over the same week of the same data.

// PreviewChanges sums the changed metrics for the floor over the last whole
// week that every source they read holds (a live source holds up to now's
// day on the new catalogue's floor): the old definitions from oldSt, the
// new ones from newSt, stores over old and cur on the same data. It
// returns the week and each change's parts, in the order of changed.
func PreviewChanges(ctx context.Context, oldSt, newSt ask.Store, old, cur *catalog.Catalog, changed []catalog.Change,
	now time.Time) (ask.Period, []answer.Preview, error) {
	var oldMs, newMs []*catalog.Metric
	for _, c := range changed {
		oldMs, newMs = append(oldMs, c.Old), append(newMs, c.New)
	}
	sides := []struct {
		name string
		st   ask.Store
		cat  *catalog.Catalog
		ms   []*catalog.Metric
	}{{"old", oldSt, old, oldMs}, {"new", newSt, cur, newMs}}
	var newest time.Time
	for _, side := range sides {
		plan := &ask.Plan{Metrics: side.ms}
		cov, err := side.st.Coverage(ctx, plan.Sources())
		if err != nil {
			return ask.Period{}, nil, fmt.Errorf("read how far the sources are loaded: %w", err)
		}
		for _, s := range plan.Sources() {
			c := cov[s.ID]
			if c.First.IsZero() {
				return ask.Period{}, nil, fmt.Errorf("%s holds no data, so there is no week to preview", s.Relation)
			}
			d := c.Through
			if d.IsZero() { // a live source runs up to now
				d = calendar.Today(now, cur.Zone())
			}
			if newest.IsZero() || d.Before(newest) {
				newest = d
			}
		}
	}
	week := calendar.LastWholeWeek(newest, cur.WeekStart())
	out := make([]answer.Preview, len(changed))
	for i, side := range sides {
		plan := &ask.Plan{Catalog: side.cat, Metrics: side.ms, Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: week, Limit: 1}
		results, err := side.st.Run(ctx, plan)
		if err != nil {
			return week, nil, fmt.Errorf("run the %s catalogue's plan: %w", side.name, err)
		}
		var sums []*float64
		if res := results[0]; len(res.Rows) == 1 {
			sums = res.Rows[0].Sums
		}
		for j := range changed {
			at, n := plan.Span(j)
			parts := make([]*float64, n)
			if sums != nil {
				parts = sums[at : at+n]
			}
			if i == 0 {
				out[j].Old = parts
			} else {
				out[j].New = parts
			}
		}
	}
	return week, out, nil
}
