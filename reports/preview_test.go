package reports_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
)

// previewRows are one team of two agents, loaded through Tuesday 17
// November 2026, with activity inside the week of Monday 9 November and
// outside it on either side.
func previewRows() tables {
	t := tables{
		"analytics.dim_team": {{"team_key": "hawks", "team_name": "Hawks"}},
		"analytics.dim_agent": {
			{"agent_key": "a1", "full_name": "Ana Reyes", "email": "ana@floor.example", "hired_on": "2025-01-06", "left_on": nil},
			{"agent_key": "a2", "full_name": "Ben Okafor", "email": "ben@floor.example", "hired_on": "2025-01-06", "left_on": nil},
		},
		"analytics.agent_team_history": {
			{"agent_key": "a1", "team_key": "hawks", "effective_from": "2025-01-06"},
			{"agent_key": "a2", "team_key": "hawks", "effective_from": "2025-01-06"},
		},
		"analytics.team_floor_history": {
			{"team_key": "hawks", "effective_from": "2025-01-01", "counts_as_sales": true, "decided_by": "ops", "reason": "sales team"},
		},
		"metrics.agent_time_daily": {
			{"agent_key": "a2", "day": "2026-11-06", "logged_hours": 9.0, "available_hours": 9.0, "talk_hours": 9.0},
			{"agent_key": "a1", "day": "2026-11-10", "logged_hours": 8.0, "available_hours": 6.0, "talk_hours": 3.0},
			{"agent_key": "a2", "day": "2026-11-12", "logged_hours": 7.5, "available_hours": 5.0, "talk_hours": 2.5},
			{"agent_key": "a1", "day": "2026-11-16", "logged_hours": 8.0, "available_hours": 8.0, "talk_hours": 8.0},
		},
		"metrics.agent_sales_daily": {
			{"agent_key": "a1", "day": "2026-11-10", "submitted": 3.0, "lost": 1.0, "approved": nil},
			{"agent_key": "a2", "day": "2026-11-13", "submitted": 2.0, "lost": 2.0, "approved": nil},
			{"agent_key": "a1", "day": "2026-11-17", "submitted": 9.0, "lost": 0.0, "approved": nil},
		},
	}
	for d := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC); !d.After(time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		for _, rel := range []string{"metrics.agent_time_daily", "metrics.agent_sales_daily"} {
			t["metrics.load_runs"] = append(t["metrics.load_runs"], map[string]any{"relation": rel,
				"covers_day": d.Format(time.DateOnly), "finished_at": d.AddDate(0, 0, 1).Format(time.DateOnly) + "T10:00:00Z"})
		}
	}
	return t
}

// A change's preview sums each redefined metric under both definitions over
// the last whole week the sources hold; the figures are the rows above
// summed by hand over 9 to 15 November.
func TestPreviewChanges(t *testing.T) {
	old, err := catalog.LoadDir("../testdata/diff/old")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := catalog.LoadDir("../testdata/diff/new")
	if err != nil {
		t.Fatal(err)
	}
	rows := previewRows()
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	d := catalog.Diff(old, cur)
	week, previews, err := reports.PreviewChanges(context.Background(), &memStore{cat: old, rows: rows}, &memStore{cat: cur, rows: rows},
		old, cur, d.Changed, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := week.Start.Format(time.DateOnly) + " to " + week.End.Format(time.DateOnly); got != "2026-11-09 to 2026-11-15" {
		t.Errorf("week %s, want 2026-11-09 to 2026-11-15", got)
	}
	want := map[string][2][]float64{
		"close_rate": {{3 + 2, 3 + 1 + 2 + 2}, {3 + 2, 3 + 1 + 2 + 2}},
		"talk_share": {{3 + 2.5, 8 + 7.5}, {3 + 2.5, 6 + 5}},
	}
	if len(previews) != len(d.Changed) || len(d.Changed) != len(want) {
		t.Fatalf("%d previews of %d changes, want %d", len(previews), len(d.Changed), len(want))
	}
	for i, c := range d.Changed {
		for side, got := range [][]*float64{previews[i].Old, previews[i].New} {
			w := want[c.ID][side]
			if len(got) != len(w) {
				t.Errorf("%s side %d: %d parts, want %d", c.ID, side, len(got), len(w))
				continue
			}
			for k := range w {
				if got[k] == nil || *got[k] != w[k] {
					t.Errorf("%s side %d part %d: %v, want %v", c.ID, side, k, got[k], w[k])
				}
			}
		}
	}

	rows["metrics.agent_sales_daily"], rows["metrics.load_runs"] = nil, nil
	_, _, err = reports.PreviewChanges(context.Background(), &memStore{cat: old, rows: rows}, &memStore{cat: cur, rows: rows},
		old, cur, d.Changed, now)
	if err == nil || !strings.Contains(err.Error(), "holds no data, so there is no week to preview") {
		t.Errorf("sources with no data: %v", err)
	}
}
