package reference

import (
	"time"
)

// This file writes out the demo catalogue again, by hand: each metric as a
// function from one agent-day's raw rows to its parts, each source's settle
// rule, and the reports with their metrics and defaults.

type source struct {
	relation string
	live     bool
	days     int           // a day is whole this many days after it…
	at       time.Duration // …at this local time
}

var sources = map[string]source{
	"time":    {relation: "metrics.agent_time_daily", days: 2, at: 6 * time.Hour},
	"sales":   {relation: "metrics.agent_sales_daily", days: 1, at: 6 * time.Hour},
	"quality": {relation: "metrics.agent_quality_daily", days: 1, at: 6 * time.Hour},
	"board":   {relation: "live.sales_board", live: true, days: 1},
}

// unit kinds
const (
	count   = "count"
	hours   = "hours"
	share   = "share"
	perHour = "per_hour"
)

// metric is one figure: its unit, its sources, its settle rule, and what one
// agent-day gives it. parts returns whether the agent-day has a row in the
// metric's source (for a ratio over two sources, in either), and its parts
// (one for a sum, numerator then denominator for a ratio), nil where unknown.
type metric struct {
	id, unit string
	sources  []string
	days     int
	at       time.Duration
	parts    func(e *eval, agent string, day time.Time) (bool, []*float64)
	target   string // "additive" or "fixed" for a metric with targets
}

func (m metric) ratio() bool { return m.unit == share || m.unit == perHour }

func num(v int) *float64 { f := float64(v); return &f }

func timeParts(pick func(TimeRow) []*float64) func(*eval, string, time.Time) (bool, []*float64) {
	return func(e *eval, a string, d time.Time) (bool, []*float64) {
		r, ok := e.timeRow(a, d)
		if !ok {
			return false, nil
		}
		return true, pick(r)
	}
}

func salesParts(pick func(SalesRow) []*float64) func(*eval, string, time.Time) (bool, []*float64) {
	return func(e *eval, a string, d time.Time) (bool, []*float64) {
		r, ok := e.salesRow(a, d)
		if !ok {
			return false, nil
		}
		return true, pick(r)
	}
}

func qualityParts(pick func(QualityRow) []*float64) func(*eval, string, time.Time) (bool, []*float64) {
	return func(e *eval, a string, d time.Time) (bool, []*float64) {
		r, ok := e.qualityRow(a, d)
		if !ok {
			return false, nil
		}
		return true, pick(r)
	}
}

func approved(r SalesRow) *float64 {
	if r.Approved == nil {
		return nil
	}
	return num(*r.Approved)
}

var metricList = []metric{
	{id: "logged_hours", unit: hours, sources: []string{"time"}, days: 2, at: 6 * time.Hour,
		parts: timeParts(func(r TimeRow) []*float64 { return []*float64{r.Logged} })},
	{id: "available_hours", unit: hours, sources: []string{"time"}, days: 2, at: 6 * time.Hour,
		parts: timeParts(func(r TimeRow) []*float64 { return []*float64{r.Available} })},
	{id: "talk_hours", unit: hours, sources: []string{"time"}, days: 2, at: 6 * time.Hour,
		parts: timeParts(func(r TimeRow) []*float64 { return []*float64{r.Talk} })},
	{id: "talk_share", unit: share, sources: []string{"time"}, days: 2, at: 6 * time.Hour,
		parts: timeParts(func(r TimeRow) []*float64 { return []*float64{r.Talk, r.Logged} })},
	{id: "availability", unit: share, sources: []string{"time"}, days: 2, at: 6 * time.Hour,
		parts: timeParts(func(r TimeRow) []*float64 { return []*float64{r.Available, r.Logged} })},
	{id: "audits", unit: count, sources: []string{"quality"}, days: 1, at: 6 * time.Hour,
		parts: qualityParts(func(r QualityRow) []*float64 { return []*float64{num(r.Passed + r.Failed)} })},
	{id: "audits_passed", unit: count, sources: []string{"quality"}, days: 1, at: 6 * time.Hour,
		parts: qualityParts(func(r QualityRow) []*float64 { return []*float64{num(r.Passed)} })},
	{id: "audit_pass_rate", unit: share, sources: []string{"quality"}, days: 1, at: 6 * time.Hour,
		parts: qualityParts(func(r QualityRow) []*float64 { return []*float64{num(r.Passed), num(r.Passed + r.Failed)} })},
	{id: "board_sales", unit: count, sources: []string{"board"}, days: 1,
		parts: func(e *eval, a string, d time.Time) (bool, []*float64) {
			n, ok := e.f.Board[a][d]
			return ok, []*float64{num(n)}
		}},
	{id: "submitted_sales", unit: count, sources: []string{"sales"}, days: 1, at: 6 * time.Hour, target: "additive",
		parts: salesParts(func(r SalesRow) []*float64 { return []*float64{num(r.Submitted)} })},
	// The approved basis settles by its own rule: two weeks.
	{id: "approved_sales", unit: count, sources: []string{"sales"}, days: 14, at: 6 * time.Hour,
		parts: salesParts(func(r SalesRow) []*float64 { return []*float64{approved(r)} })},
	{id: "close_rate", unit: share, sources: []string{"sales"}, days: 1, at: 6 * time.Hour, target: "fixed",
		parts: salesParts(func(r SalesRow) []*float64 { return []*float64{num(r.Submitted), num(r.Submitted + r.Lost)} })},
	{id: "approval_rate", unit: share, sources: []string{"sales"}, days: 14, at: 6 * time.Hour,
		parts: salesParts(func(r SalesRow) []*float64 { return []*float64{approved(r), num(r.Submitted)} })},
	// Submitted over logged hours, joined by agent-day: a side with no row
	// is zero on a day its source is loaded, and unknown on one it is not.
	{id: "sales_per_hour", unit: perHour, sources: []string{"sales", "time"}, days: 2, at: 6 * time.Hour,
		parts: func(e *eval, a string, d time.Time) (bool, []*float64) {
			s, hasSales := e.salesRow(a, d)
			t, hasTime := e.timeRow(a, d)
			if !hasSales && !hasTime {
				return false, nil
			}
			var n, h *float64
			switch {
			case hasSales:
				n = num(s.Submitted)
			case e.loadedDay("sales", d):
				n = num(0)
			}
			switch {
			case hasTime:
				h = t.Logged
			case e.loadedDay("time", d):
				h = num(0)
			}
			return true, []*float64{n, h}
		}},
}

func metricByID(id string) metric {
	for _, m := range metricList {
		if m.id == id {
			return m
		}
	}
	panic("reference: no metric " + id)
}

// report is a report tool of the demo catalogue.
type report struct {
	id       string
	metrics  []string
	defaults []string
	live     []string // its metrics whose every source is live
	counts   []string // compare_counts: one count per basis, in report order
}

var reportList = []report{
	{id: "hours", metrics: []string{"logged_hours", "available_hours", "talk_hours", "talk_share", "availability"},
		defaults: []string{"logged_hours", "talk_hours", "talk_share"}},
	{id: "quality", metrics: []string{"audits", "audits_passed", "audit_pass_rate"}, defaults: []string{"audits", "audit_pass_rate"}},
	{id: "sales", metrics: []string{"submitted_sales", "close_rate", "board_sales", "approved_sales", "approval_rate", "sales_per_hour"},
		defaults: []string{"submitted_sales", "close_rate"}, live: []string{"board_sales"},
		counts: []string{"submitted_sales", "board_sales", "approved_sales"}},
}

func reportByID(id string) (report, bool) {
	for _, r := range reportList {
		if r.id == id {
			return r, true
		}
	}
	return report{}, false
}

// Reports lists the report tools of the demo catalogue and their metrics.
func Reports() map[string][]string {
	out := map[string][]string{}
	for _, r := range reportList {
		out[r.id] = r.metrics
	}
	return out
}
