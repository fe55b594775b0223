package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
)

// exampleRows are a floor of three agents on one team, with two days of
// nightly sales loaded; the third agent sold nothing.
var exampleRows = tables{
	"analytics.dim_team": {{"team_key": "hawks", "team_name": "Hawks"}},
	"analytics.dim_agent": {
		{"agent_key": "a1", "full_name": "Ana Reyes", "email": "ana@floor.example", "hired_on": "2025-01-06", "left_on": nil},
		{"agent_key": "a2", "full_name": "Ben Okafor", "email": "ben@floor.example", "hired_on": "2025-01-06", "left_on": nil},
		{"agent_key": "a3", "full_name": "Ana Romero", "email": "ana.romero@floor.example", "hired_on": "2025-01-06", "left_on": nil},
	},
	"analytics.agent_team_history": {
		{"agent_key": "a1", "team_key": "hawks", "effective_from": "2025-01-06"},
		{"agent_key": "a2", "team_key": "hawks", "effective_from": "2025-01-06"},
		{"agent_key": "a3", "team_key": "hawks", "effective_from": "2025-01-06"},
	},
	"analytics.team_floor_history": {
		{"team_key": "hawks", "effective_from": "2025-01-01", "counts_as_sales": true, "decided_by": "ops", "reason": "sales team"},
	},
	"metrics.agent_sales_daily": {
		{"agent_key": "a1", "day": "2026-11-16", "submitted": 3.0, "lost": 1.0, "approved": nil},
		{"agent_key": "a2", "day": "2026-11-16", "submitted": 2.0, "lost": 1.0, "approved": nil},
		{"agent_key": "a1", "day": "2026-11-17", "submitted": 1.0, "lost": 3.0, "approved": nil},
	},
	"metrics.load_runs": {
		{"relation": "metrics.agent_sales_daily", "covers_day": "2026-11-16", "finished_at": "2026-11-17T10:20:00Z"},
		{"relation": "metrics.agent_sales_daily", "covers_day": "2026-11-17", "finished_at": "2026-11-18T10:20:00Z"},
	},
}

// exampleEngine answers over exampleRows at 10:00 in New York on
// 2026-11-18, after the night's load.
func exampleEngine() *reports.Engine {
	cat, err := catalog.Demo()
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	return newMemEngine(cat, exampleRows, now)
}

// A report call: sales by agent over two days. Ratios are divided from the
// parts summed over the group, and the parts travel with them. An agent in
// scope with no rows on loaded days is listed with zero: no activity, not
// missing data.
func ExampleEngine_Call() {
	e := exampleEngine()
	args := `{"who": {"team": "hawks"}, "period": {"start": "2026-11-16", "end": "2026-11-17"}, "group_by": "agent"}`
	a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, "sales", json.RawMessage(args))
	r := a.Body.(*answer.Report)
	fmt.Println(r.Columns)
	for _, row := range r.Rows {
		b, _ := json.Marshal(row)
		fmt.Println(string(b))
	}
	fmt.Println("close rate:", r.Metrics["close_rate"].Formula)
	fmt.Println("final through:", *r.Metrics["close_rate"].DataThrough.CompleteThrough)
	// Output:
	// [agent agent_name submitted_sales close_rate close_rate_numerator close_rate_denominator]
	// ["a1","Ana Reyes",4,0.5,4,8]
	// ["a2","Ben Okafor",2,0.666667,2,3]
	// ["a3","Ana Romero",0,null,0,0]
	// close rate: sum(submitted) / sum(submitted + lost)
	// final through: 2026-11-17
}

// A name that matches more than one person gets candidates to choose
// from, and no figures.
func ExampleEngine_Call_candidates() {
	e := exampleEngine()
	args := `{"who": {"agent": "ana"}, "period": {"named": "yesterday"}}`
	a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, "sales", json.RawMessage(args))
	for _, c := range a.Body.(*reports.CandidatesAnswer).Candidates {
		fmt.Println(c.AgentKey, c.Name, c.Team)
	}
	// Output:
	// a1 Ana Reyes Hawks
	// a3 Ana Romero Hawks
}

// A bad argument is refused with a rule to fix it by, naming the argument
// and the valid choices, and never repeating what was sent.
func ExampleEngine_Call_refusal() {
	e := exampleEngine()
	args := `{"who": {"floor": true}, "period": {"named": "last_fortnight"}}`
	a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, "sales", json.RawMessage(args))
	fmt.Println(a.Refusal.Code, a.Refusal.Argument)
	fmt.Println(a.Refusal.Rule)
	fmt.Println(a.Refusal.Choices)
	// Output:
	// invalid_argument period.named
	// must be one of the choices.
	// [today yesterday this_week last_week this_month last_month this_quarter last_quarter this_year last_year last_7_days last_28_days week_to_date month_to_date quarter_to_date year_to_date aep]
}
