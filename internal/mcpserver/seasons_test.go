package mcpserver_test

import (
	"slices"
	"strings"
	"testing"
)

// The demo catalogue's enrollment season (aep, 15 October to 7 December),
// over MCP on Wednesday 18 November 2026: by name it is this year's season
// so far, from 15 October through today, partial, with the figures plain
// SQL sums over the raw tables and the catalogue's definition beside them;
// beside last year's season with compare_to previous_year, the same days so
// far; and the floor's volumes show the season, its conversations a day
// above the weeks before it.
func TestTheEnrollmentSeasonByName(t *testing.T) {
	f := newFloor(t)
	cs := f.client(t)
	a := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"aep"},"metrics":["submitted_sales","close_rate"]}`)
	if p := a["period"].(map[string]any); p["start"] != "2026-10-15" || p["end"] != "2026-11-18" || p["named"] != "aep" {
		t.Fatalf("aep on 18 November: %v", p)
	}
	sub, conv := teamSales(t, f, "hawks", "2026-10-15", "2026-11-18")
	if sub == 0 {
		t.Fatal("no sales in the season; the test proves nothing")
	}
	for col, w := range map[string]float64{"submitted_sales": sub, "close_rate_numerator": sub, "close_rate_denominator": conv} {
		if g, ok := a.total(t, col).(float64); !ok || !near(g, w) {
			t.Errorf("the season so far: %s = %v, want %v", col, a.total(t, col), w)
		}
	}
	if !slices.Contains(toStrings(a["partial_metrics"]), "submitted_sales") {
		t.Errorf("a season through today is not partial: %v", a["partial_metrics"])
	}
	if n := strings.Join(notes(a), " "); !strings.Contains(n, "aep runs from 15 October to 7 December every year: The Medicare Annual Enrollment Period") {
		t.Errorf("the answer does not say what aep is: %s", n)
	}

	// Beside the season before: the days so far, cut at the last final day,
	// and the same days a year earlier.
	b := report(t, cs, "sales", `{"who":{"team":"hawks"},"period":{"named":"aep"},"metrics":["submitted_sales"],"compare_to":"previous_year"}`)
	p, prev := b["period"].(map[string]any), b["previous_period"].(map[string]any)
	if p["start"] != "2026-10-15" || p["end"] != "2026-11-17" || prev["start"] != "2025-10-15" || prev["end"] != "2025-11-17" {
		t.Fatalf("the season so far beside the one before: %v beside %v", p, prev)
	}
	now, _ := teamSales(t, f, "hawks", "2026-10-15", "2026-11-17")
	then, _ := teamSales(t, f, "hawks", "2025-10-15", "2025-11-17")
	if then == 0 {
		t.Fatal("no sales in last year's season; the comparison proves nothing")
	}
	for col, w := range map[string]float64{"submitted_sales": now, "submitted_sales_previous": then, "submitted_sales_change": now - then} {
		if g, ok := b.total(t, col).(float64); !ok || !near(g, w) {
			t.Errorf("the season beside the one before: %s = %v, want %v", col, b.total(t, col), w)
		}
	}

	// Conversations a day, over the days anyone on the floor talked, in the
	// season and in the 28 days before it.
	perDay := func(from, to string) float64 {
		return f.sqlFloats(t, `SELECT 'x', sum(submitted + lost)::float8 / count(DISTINCT day) FROM metrics.agent_sales_daily
			WHERE day BETWEEN $1::date AND $2::date AND submitted + lost > 0`, from, to)["x"]
	}
	in, before := perDay("2026-10-15", "2026-11-17"), perDay("2026-09-17", "2026-10-14")
	t.Logf("conversations a working day: %.0f in the season, %.0f in the 28 days before", in, before)
	if in < 1.2*before {
		t.Errorf("the season is not busier: %.0f conversations a day against %.0f before it", in, before)
	}
}
