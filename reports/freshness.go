package reports

import (
	"context"
	"encoding/json"
	"slices"
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

// FreshnessAnswer is freshness's answer: how far every source runs.
type FreshnessAnswer struct {
	RequestID      string                      `json:"request_id"`
	Now            string                      `json:"now"`
	Today          string                      `json:"today"`
	TimeZone       string                      `json:"time_zone"`
	Sources        map[string]*SourceFreshness `json:"sources"`
	Notes          []string                    `json:"notes"`
	CatalogVersion string                      `json:"catalog_version"`
}

// SourceFreshness is one source's freshness and today's status.
type SourceFreshness struct {
	Source      string      `json:"source"`
	Description string      `json:"description"`
	Refresh     string      `json:"refresh"`
	Settles     string      `json:"settles"`
	DataThrough DataThrough `json:"data_through"`
	Today       string      `json:"today"`
	Metrics     []string    `json:"metrics"`
}

func (e *Engine) freshness(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.only()
	}
	if r != nil {
		return c.refuse(r)
	}
	newest, err := e.store.Newest(ctx, e.cat.Sources())
	if err != nil {
		return e.fault(c, err)
	}
	zone := e.cat.Zone()
	t := today(c.now, zone)
	ans := &FreshnessAnswer{RequestID: c.id, Now: c.now.In(zone).Format(time.RFC3339), Today: t.Format(time.DateOnly),
		TimeZone: zone.String(), Sources: map[string]*SourceFreshness{}, CatalogVersion: e.cat.Version(),
		Notes: []string{"runs_to is the newest day a source holds rows for; complete_through is the newest day whose figures are final. " +
			"Figures for later days are partial or missing, never zero."}}
	for _, s := range e.cat.Sources() {
		th := dataThrough(newest[s.ID], s.Settles, c.now, zone)
		sf := &SourceFreshness{Source: s.ID, Description: s.Description, Refresh: s.Refresh,
			Settles: "a day is " + s.Settles.String(), DataThrough: th.public(), Today: todayStatus(s, th, t), Metrics: []string{}}
		for _, m := range e.cat.Metrics() {
			if slices.Contains(m.Sources(), s) {
				sf.Metrics = append(sf.Metrics, m.ID)
			}
		}
		ans.Sources[s.Relation] = sf
	}
	for _, b := range e.cat.Bases() {
		if b.Settles != nil {
			ans.Notes = append(ans.Notes, "Figures on the "+b.ID+" basis settle by their own rule: a day is "+b.Settles.String()+".")
		}
	}
	return &Answer{Body: ans}
}

// todayStatus says, in words, what a source holds of today.
func todayStatus(s *catalog.Source, th through, t time.Time) string {
	switch {
	case th.runsTo.IsZero():
		return "holds no rows"
	case s.Refresh == catalog.RefreshLive && !th.runsTo.Before(t):
		return "live: today's figures come in as they happen and are partial until the day is whole"
	case s.Refresh == catalog.RefreshLive:
		return "live, but nothing has come in today yet; the newest figures are from " + th.runsTo.Format(time.DateOnly)
	default:
		return "today is not in this source until the " + s.Refresh + " build after it; days through " +
			dateOrNever(th.complete) + " are final"
	}
}
