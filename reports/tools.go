package reports

import (
	"context"
	"encoding/json"
	"plumbline/reports/answer"
	"plumbline/reports/grammar"
	"slices"
	"time"
)

// own answers plumbline's own tools, by name.
var own = map[string]func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer{
	grammar.ToolTeamDay:    (*Engine).teamDay,
	grammar.ToolTeamWeeks:  (*Engine).teamWeeks,
	grammar.ToolLeague:     (*Engine).league,
	grammar.ToolRoster:     (*Engine).roster,
	grammar.ToolFindPeople: (*Engine).findPeople,
	grammar.ToolFreshness: func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer {
		return e.freshness(ctx, c, raw)
	},
	grammar.ToolMetricDefinitions: func(e *Engine, _ context.Context, c *call, raw json.RawMessage) *Answer {
		return e.metricDefinitions(c, raw)
	},
	grammar.ToolHealth: (*Engine).health,
}

// Tools lists every tool's grammar, in the order they are offered: the
// catalogue's reports first, then plumbline's own.
func (e *Engine) Tools() []grammar.Tool { return grammar.Tools(e.cat) }

// ToolNames lists the names of every tool.
func (e *Engine) ToolNames() []string {
	var names []string
	for _, t := range e.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func (e *Engine) metricDefinitions(c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only("metrics")
	}
	var ids []string
	if r == nil {
		var all []string
		for _, m := range e.cat.Metrics() {
			all = append(all, m.ID)
		}
		ids, r = a.MetricList("metrics", all)
	}
	if r != nil {
		return c.refuse(r)
	}
	ans := &answer.Definitions{RequestID: c.id, Metrics: map[string]*answer.Definition{}, Bases: map[string]*answer.Basis{},
		CatalogVersion: e.cat.Version(),
		Notes:          []string{"Ratios are always the sum of the numerator over the sum of the denominator across the rows of a group, never an average of rates."}}
	for _, m := range e.cat.Metrics() {
		if ids != nil && !slices.Contains(ids, m.ID) {
			continue
		}
		d := &answer.Definition{Label: m.Label, Unit: m.Unit, Definition: m.Definition(), Formula: m.Formula(),
			Source: m.Relation(), Grain: m.Sources()[0].Grain, Settles: "a day is " + m.Settles().String()}
		if m.Basis != nil {
			d.SalesBasis = m.Basis.ID
		}
		for _, rep := range e.cat.Reports() {
			if rep.Offers(m.ID) {
				d.Reports = append(d.Reports, rep.ID)
			}
		}
		ans.Metrics[m.ID] = d
	}
	for _, b := range e.cat.Bases() {
		ans.Bases[b.ID] = &answer.Basis{Label: b.Label, Definition: b.Definition}
	}
	ans.StandingNotes = map[string]string{}
	for _, n := range e.cat.Notes() {
		if ids == nil {
			ans.StandingNotes[n.ID] = n.Text
		}
	}
	return &Answer{Body: ans}
}

func (e *Engine) health(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	if r := c.noArguments(raw); r != nil {
		return c.refuse(r)
	}
	ans := &answer.Health{RequestID: c.id, Status: "ok", Database: "reachable", CatalogVersion: e.cat.Version()}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.store.Ping(ctx); err != nil {
		e.opts.Logger.Warn("health: database unreachable", "request_id", c.id, "err", err)
		ans.Status, ans.Database = "degraded", "unreachable"
	}
	return &Answer{Body: ans}
}
