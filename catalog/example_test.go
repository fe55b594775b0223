package catalog_test

import (
	"fmt"
	"testing/fstest"

	"plumbline/catalog"
)

// The demo floor's catalogue: its reports and the metrics each offers.
func ExampleDemo() {
	cat, err := catalog.Demo()
	if err != nil {
		panic(err)
	}
	fmt.Println("time zone:", cat.Zone())
	for _, r := range cat.Reports() {
		fmt.Print(r.ID, ":")
		for _, m := range r.Metrics {
			fmt.Print(" ", m.ID)
		}
		fmt.Println()
	}
	// Output:
	// time zone: America/New_York
	// hours: logged_hours available_hours talk_hours talk_share availability
	// quality: audits audits_passed audit_pass_rate
	// sales: submitted_sales close_rate board_sales approved_sales approval_rate sales_per_hour
}

// A metric is a sum or a ratio of two sums, each column arithmetic over one
// source's columns.
func ExampleCatalog_Metric() {
	cat, err := catalog.Demo()
	if err != nil {
		panic(err)
	}
	m, _ := cat.Metric("close_rate")
	fmt.Println(m.Label, "in", m.Unit)
	fmt.Println("numerator:", m.Ratio.Numerator.Expr, "from", m.Ratio.Numerator.Source.Relation)
	fmt.Println("denominator:", m.Ratio.Denominator.Expr, "from", m.Ratio.Denominator.Source.Relation)
	// Output:
	// Close rate in share
	// numerator: submitted from metrics.agent_sales_daily
	// denominator: submitted + lost from metrics.agent_sales_daily
}

// Loading reports every problem at once, each with its file, line and
// column.
func ExampleLoad_errors() {
	fsys := fstest.MapFS{"catalog.yaml": {Data: []byte(`version: 1
time_zone: Mars/Olympus_Mons
`)}}
	_, err := catalog.Load(fsys, "example")
	fmt.Println(err)
	// Output:
	// example/catalog.yaml:1:1: the catalogue has no roster (hint: add a roster: section naming the teams, agents, team_history and floor_history relations)
	// example/catalog.yaml:1:1: the catalogue offers no reports (hint: add a reports: section offering at least one report)
	// example/catalog.yaml:2:12: unknown time zone "Mars/Olympus_Mons" (hint: use an IANA zone name such as America/New_York)
}

// A formula is parsed once and rendered with each column replaced, as the
// query builder does with quoted column references.
func ExampleParseExpr() {
	e, err := catalog.ParseExpr("audits_passed + audits_failed")
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Columns())
	fmt.Println(e.SQL(func(name string) string { return `s."` + name + `"` }))
	_, err = catalog.ParseExpr("audits_passed +")
	fmt.Println(err)
	// Output:
	// [audits_passed audits_failed]
	// (s."audits_passed" + s."audits_failed")
	// the formula ends too early
}
