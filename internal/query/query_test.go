package query_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/internal/query"
	"plumbline/reports/ask"
)

var update = flag.Bool("update", false, "rewrite golden files")

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func metrics(t *testing.T, cat *catalog.Catalog, ids ...string) []*catalog.Metric {
	var out []*catalog.Metric
	for _, id := range ids {
		m, ok := cat.Metric(id)
		if !ok {
			t.Fatalf("no metric %s", id)
		}
		out = append(out, m)
	}
	return out
}

// Golden SQL: each plan compiles to the statement in testdata/query, with
// its bound arguments listed after it.
func TestBuildGolden(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	period := ask.Period{Start: day("2026-10-19"), End: day("2026-11-15")}
	today := day("2026-11-18")
	for _, tc := range []struct {
		name string
		plan ask.Plan
	}{
		{"floor_by_team", ask.Plan{Metrics: metrics(t, cat, "submitted_sales", "close_rate"),
			Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: period, GroupBy: "team", Limit: 51}},
		{"floor_total", ask.Plan{Metrics: metrics(t, cat, "logged_hours", "talk_share"),
			Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: period, Limit: 51}},
		{"team_by_week", ask.Plan{Metrics: metrics(t, cat, "audits", "audit_pass_rate"),
			Scope: ask.Scope{Kind: ask.ScopeTeam, Key: "falcons"}, Period: period, GroupBy: "week", Limit: 51}},
		{"agent_by_day_two_sources", ask.Plan{Metrics: metrics(t, cat, "board_sales", "sales_per_hour"),
			Scope: ask.Scope{Kind: ask.ScopeAgent, Key: "a005"}, Period: period, GroupBy: "day", Limit: 51}},
		{"floor_by_agent_top", ask.Plan{Metrics: metrics(t, cat, "submitted_sales", "close_rate"),
			Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: period, GroupBy: "agent", Ranked: true}},
		{"team_approvals_left_out", ask.Plan{Metrics: metrics(t, cat, "approved_sales", "approval_rate"),
			Scope: ask.Scope{Kind: ask.ScopeTeam, Key: "hawks"}, Period: period, GroupBy: "agent", Limit: 51}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.plan.Catalog, tc.plan.Today = cat, today
			stmt, args, err := query.Build(&tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			got := stmt + "\n"
			for i, a := range args {
				if d, ok := a.(time.Time); ok {
					a = d.Format(time.RFC3339)
				}
				got += fmt.Sprintf("-- $%d = %v\n", i+1, a)
			}
			golden := filepath.Join("../../testdata/query", tc.name+".sql")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("SQL for %s:\n%s\nwant:\n%s", tc.name, got, want)
			}
			if strings.Contains(stmt, "a005") || strings.Contains(stmt, "falcons") {
				t.Errorf("a key was written into the SQL instead of bound:\n%s", stmt)
			}
		})
	}
}

// The board is summed per day in the floor's zone, so its period bounds are
// local midnights: across the November clock change the day is 25 hours.
func TestBoardBoundsAreLocalMidnights(t *testing.T) {
	cat, _ := catalog.Demo()
	plan := &ask.Plan{Catalog: cat, Metrics: metrics(t, cat, "board_sales"),
		Scope: ask.Scope{Kind: ask.ScopeFloor}, Period: ask.Period{Start: day("2026-11-01"), End: day("2026-11-01")}, Limit: 2}
	_, args, err := query.Build(plan)
	if err != nil {
		t.Fatal(err)
	}
	var bounds []time.Time // the instants, in the floor's zone; days are UTC midnights
	for _, a := range args {
		if ts, ok := a.(time.Time); ok && ts.Location() != time.UTC {
			bounds = append(bounds, ts)
		}
	}
	if len(bounds) != 2 {
		t.Fatalf("want two timestamp bounds, got %v", args)
	}
	if got := bounds[1].Sub(bounds[0]); got != 25*time.Hour {
		t.Errorf("1 November 2026 in New York lasts %v by the bounds, want 25h", got)
	}
	if bounds[0].UTC().Hour() != 4 || bounds[1].UTC().Hour() != 5 {
		t.Errorf("bounds %v are not New York midnights (04:00 and 05:00 UTC)", bounds)
	}
}
