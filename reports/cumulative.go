package reports

import (
	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// This file answers cumulative: true, a running total by day, week, month
// or quarter inside a period. A running ratio is the running sum of its
// numerator over the running sum of its denominator, never a running
// average of the rates of its rows.

// cumulates refuses a running total that is not over rows of time, or that
// is ranked: running totals read in time order.
func cumulates(req *grammar.Request, rep *catalog.Report) *ask.Refusal {
	switch {
	case !req.Cumulative:
		return nil
	case !calendar.ByTime(req.GroupBy):
		var choices []string
		for _, g := range rep.GroupBy {
			if calendar.ByTime(g) {
				choices = append(choices, g)
			}
		}
		return ask.Invalid(grammar.ArgCumulative, "is a running total over time, so it needs group_by "+orList(choices)+".", choices...)
	case req.Sort != nil || req.TopN > 0:
		return ask.Invalid(grammar.ArgCumulative, "gives running totals in time order; leave sort and top_n out, or cumulative.")
	}
	return nil
}

// declaredCumulative refuses a running total that asks for a metric the
// catalogue declares has no running figure (cumulative: none), naming those
// of offered that have one.
func declaredCumulative(metrics, offered []*catalog.Metric) *ask.Refusal {
	return lackingRule(grammar.ArgCumulative, "gives each metric's running figure by day, and a metric asked for is declared in the "+
		"catalogue as having none (cumulative: none); ask for metrics that have one, or leave cumulative out.",
		metrics, offered, func(m *catalog.Metric) bool { return m.Cumulative == catalog.CumulativeNone })
}

// runningTotals turns rows of days, weeks, months or quarters, in time
// order, into running totals of
// their first parts sums, which is each metric's cumulative rule: a sum's
// running total (running_sum), a ratio's running numerator over its running
// denominator (running_parts): each row holds the sums from the period's
// first day through its last. A row without data (null) stays null; later
// rows carry the total of the rows that had data.
func runningTotals(rows []ask.Row, parts int) {
	run := make([]*float64, parts)
	for i := range rows {
		sums := append([]*float64(nil), rows[i].Sums...)
		for k := 0; k < parts && k < len(sums); k++ {
			if sums[k] == nil {
				continue
			}
			if run[k] == nil {
				run[k] = new(float64)
			}
			*run[k] += *sums[k]
			v := *run[k]
			sums[k] = &v
		}
		rows[i].Sums = sums
	}
}
