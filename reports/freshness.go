package reports

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"plumbline/catalog"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
)

// This file holds the one function that says how far a source's figures go
// and how far they are whole. Notes, the metric stamps and the freshness tool
// all read it.

// through is answer.DataThrough as dates, with the first day of data; zero
// dates mean no data.
type through struct {
	first, runsTo, complete time.Time
}

// loaded is how far a source's data runs at now: a nightly source through
// its load watermark, a live one through today.
func loaded(s *catalog.Source, c ask.Coverage, now time.Time, zone *time.Location) ask.Coverage {
	if s.Refresh == catalog.RefreshLive && !c.First.IsZero() {
		c.Through = calendar.Today(now, zone)
	}
	if c.Through.IsZero() || c.Through.Before(c.First) {
		return ask.Coverage{}
	}
	return c
}

// dataThrough combines how far a source is loaded with the settle rule:
// figures run through the last day loaded, and are whole through the earlier
// of that day and the last day the rule calls whole.
func dataThrough(c ask.Coverage, rule catalog.Settle, now time.Time, zone *time.Location) through {
	if c.Through.IsZero() {
		return through{}
	}
	whole := calendar.LastWholeDay(rule, now, zone)
	if c.Through.Before(whole) {
		whole = c.Through
	}
	return through{first: c.First, runsTo: c.Through, complete: whole}
}

// metricCoverage is how far every source of a metric is loaded: from the
// latest first day through the earliest last day.
func metricCoverage(m *catalog.Metric, cov map[string]ask.Coverage, now time.Time, zone *time.Location) ask.Coverage {
	var out ask.Coverage
	for i, s := range m.Sources() {
		c := loaded(s, cov[s.ID], now, zone)
		if c.Through.IsZero() {
			return ask.Coverage{}
		}
		if i == 0 || c.First.After(out.First) {
			out.First = c.First
		}
		if i == 0 || c.Through.Before(out.Through) {
			out.Through = c.Through
		}
	}
	if out.Through.Before(out.First) {
		return ask.Coverage{}
	}
	return out
}

// metricThrough is dataThrough for a metric: across its sources, figures run
// only as far as the shortest source, by the metric's own settle rule.
func metricThrough(m *catalog.Metric, cov map[string]ask.Coverage, now time.Time, zone *time.Location) through {
	return dataThrough(metricCoverage(m, cov, now, zone), m.Settles(), now, zone)
}

// sourceThrough is dataThrough for one source by its own settle rule.
func sourceThrough(s *catalog.Source, cov map[string]ask.Coverage, now time.Time, zone *time.Location) through {
	return dataThrough(loaded(s, cov[s.ID], now, zone), s.Settles, now, zone)
}

// public is t as an answer states it; data final through the day it runs
// to states that day once, for both.
func (t through) public() answer.DataThrough {
	d := answer.DataThrough{RunsTo: answer.Date(t.runsTo)}
	if t.complete.Equal(t.runsTo) {
		d.CompleteThrough = d.RunsTo
	} else {
		d.CompleteThrough = answer.Date(t.complete)
	}
	return d
}

func (e *Engine) freshness(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	if r := c.noArguments(raw); r != nil {
		return c.refuse(r)
	}
	cov, err := e.store.Coverage(ctx, e.cat.Sources())
	if err != nil {
		return e.fault(c, err)
	}
	zone := e.cat.Zone()
	t := calendar.Today(c.now, zone)
	ans := &answer.Freshness{RequestID: c.id, Now: c.now.In(zone).Format(time.RFC3339), Today: t.Format(time.DateOnly),
		TimeZone: zone.String(), Sources: map[string]*answer.SourceFreshness{}, CatalogVersion: e.cat.Version(),
		Notes: []string{"runs_to is the last day a source is loaded through (for a nightly source, the newest day its finished loads covered; " +
			"a day inside it without rows had no activity); complete_through is the newest day whose figures are final; first_day is the first day of data. " +
			"Figures for later days are partial or missing, never zero."}}
	for _, s := range e.cat.Sources() {
		th := sourceThrough(s, cov, c.now, zone)
		sf := &answer.SourceFreshness{Source: s.ID, Description: s.Description, Refresh: s.Refresh,
			Settles: "a day is " + s.Settles.String(), DataThrough: th.public(), FirstDay: answer.Date(th.first),
			Today: todayStatus(s, th, t), Metrics: []string{}}
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
		return "holds no data"
	case s.Refresh == catalog.RefreshLive:
		return "live: today's figures come in as they happen and are partial until the day is whole"
	default:
		return "today is not in this source until the " + s.Refresh + " build after it; it is loaded through " +
			th.runsTo.Format(time.DateOnly) + ", and days through " + calendar.DateOrNever(th.complete) + " are final"
	}
}
