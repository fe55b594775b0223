package reports

import (
	"time"

	"plumbline/catalog"
)

// This file holds the one function that says how far a source's figures go
// and how far they are whole. Notes, the metric stamps and the freshness tool
// all read it.

// DataThrough says how far figures run and how far they are whole. A null
// means the source holds no rows at all.
type DataThrough struct {
	RunsTo          *string `json:"runs_to"`
	CompleteThrough *string `json:"complete_through"`
}

// through is DataThrough as dates; zero dates mean no data.
type through struct {
	runsTo, complete time.Time
}

// lastWholeDay returns the newest day that is whole at now under rule: day D
// is whole at local time rule.At on day D+rule.DaysAfter.
func lastWholeDay(rule catalog.Settle, now time.Time, zone *time.Location) time.Time {
	local := now.In(zone)
	d := civil(local).AddDate(0, 0, -rule.DaysAfter)
	// Compare wall-clock times: on the days the clocks change, the time
	// elapsed since midnight is an hour off the time on the clock.
	clock := time.Duration(local.Hour())*time.Hour + time.Duration(local.Minute())*time.Minute +
		time.Duration(local.Second())*time.Second
	if clock < rule.At {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// dataThrough combines the newest day a source holds with the settle rule:
// figures run to the newest day, and are whole through the earlier of that
// day and the last day the rule calls whole.
func dataThrough(newest time.Time, rule catalog.Settle, now time.Time, zone *time.Location) through {
	if newest.IsZero() {
		return through{}
	}
	whole := lastWholeDay(rule, now, zone)
	if newest.Before(whole) {
		whole = newest
	}
	return through{runsTo: newest, complete: whole}
}

// metricThrough is dataThrough for a metric: across its sources, figures run
// only as far as the shortest source, by the metric's own settle rule.
func metricThrough(m *catalog.Metric, newest map[string]time.Time, now time.Time, zone *time.Location) through {
	var last time.Time
	for i, s := range m.Sources() {
		n, ok := newest[s.ID]
		if !ok {
			return through{}
		}
		if i == 0 || n.Before(last) {
			last = n
		}
	}
	return dataThrough(last, m.Settles(), now, zone)
}

func (t through) public() DataThrough {
	return DataThrough{RunsTo: dateString(t.runsTo), CompleteThrough: dateString(t.complete)}
}

func dateString(d time.Time) *string {
	if d.IsZero() {
		return nil
	}
	s := d.Format(time.DateOnly)
	return &s
}
