package reports

import "plumbline/reports/ask"

// over is the same plan over another period.
func over(p *ask.Plan, period ask.Period) *ask.Plan {
	q := *p
	q.Period = period
	return &q
}
