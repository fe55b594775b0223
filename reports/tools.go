package reports

import (
	"context"
	"encoding/json"
	"plumbline/reports/answer"
	"slices"
	"time"
)

// Tool names plumbline defines itself, beside the catalogue's reports.
const (
	ToolRoster            = "roster"
	ToolFindPeople        = "find_people"
	ToolFreshness         = "freshness"
	ToolMetricDefinitions = "metric_definitions"
	ToolHealth            = "health"
)

// Tool is one tool of the engine's grammar: its name, the input JSON
// Schema its calls are decoded by, and the metrics its answers carry.
// Package internal/contract adds what else a client reads of it.
type Tool struct {
	Name        string
	InputSchema map[string]any
	// Metrics are the ids of the metrics the tool's answers carry figures
	// of (a canned report's sections, what a league may rank by); nil for
	// a tool that answers with no figures.
	Metrics []string
}

// builtin is a tool plumbline defines itself.
type builtin struct {
	Tool
	answer func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer
}

// builtins lists plumbline's own tools, in the order they are offered.
func (e *Engine) builtins() []builtin {
	cat := e.cat
	var allMetrics []string
	for _, m := range cat.Metrics() {
		allMetrics = append(allMetrics, m.ID)
	}
	league := e.leagueMetricIDs()
	// team_day and team_weeks carry a section for every report, so the
	// metrics of every report: those a league may rank by.
	sections := league
	return []builtin{
		{Tool{
			Name: ToolTeamDay,
			InputSchema: Object(schema{
				argWho: oneOfWho(false),
				argPeriod: withDescription("the day, in "+cat.Zone().String()+"; default yesterday",
					exactlyOne(Object(schema{"named": enum("", []string{"today", "yesterday"}), "day": dateSchema("")}))),
				argCompact: compactSchema, argKnownDefinitions: knownSchema,
			}),
			Metrics: sections,
		}, (*Engine).teamDay},
		{Tool{
			Name: ToolTeamWeeks,
			InputSchema: Object(schema{
				argWho:       oneOfWho(true),
				"weeks":      schema{"type": "integer", "minimum": 1, "maximum": maxWeeks, "default": defaultWeeks},
				argCompareTo: enum("", compareChoices),
				argCompact:   compactSchema, argKnownDefinitions: knownSchema,
			}),
			Metrics: sections,
		}, (*Engine).teamWeeks},
		{Tool{
			Name: ToolLeague,
			InputSchema: Object(schema{
				argPeriod: periodSchema(cat),
				argMetrics: schema{"type": "array", "items": enum("", league), "minItems": 1, "maxItems": maxLeagueMetrics, "uniqueItems": true,
					"description": "ranked by the first unless sort names another; default " + joinIDs(e.leagueDefaults())},
				argSort:    sortSchema(league),
				argRankBy:  enum("", []string{RankFigure, RankAttainment}),
				argCompact: compactSchema, argKnownDefinitions: knownSchema,
			}, argPeriod),
			Metrics: league,
		}, (*Engine).league},
		{Tool{
			Name: ToolRoster,
			InputSchema: Object(schema{
				argWho: oneOfWho(true),
				"day":  dateSchema("default today"),
			}),
		}, (*Engine).roster},
		{Tool{
			Name:        ToolFindPeople,
			InputSchema: Object(schema{"query": schema{"type": "string", "minLength": 1, "maxLength": maxNameLength}}, "query"),
		}, (*Engine).findPeople},
		{Tool{
			Name:        ToolFreshness,
			InputSchema: Object(schema{}),
		}, func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer {
			return e.freshness(ctx, c, raw)
		}},
		{Tool{
			Name: ToolMetricDefinitions,
			InputSchema: Object(schema{"metrics": schema{"type": "array", "items": enum("", allMetrics),
				"minItems": 1, "uniqueItems": true, "description": "default all"}}),
		}, func(e *Engine, _ context.Context, c *call, raw json.RawMessage) *Answer {
			return e.metricDefinitions(c, raw)
		}},
		{Tool{
			Name:        ToolHealth,
			InputSchema: Object(schema{}),
		}, (*Engine).health},
	}
}

// Tools lists every tool's grammar, in the order they are offered: the
// catalogue's reports first, then plumbline's own.
func (e *Engine) Tools() []Tool {
	var tools []Tool
	for _, rep := range e.cat.Reports() {
		tools = append(tools, Tool{Name: rep.ID, InputSchema: reportInputSchema(e.cat, rep), Metrics: metricIDs(rep.Metrics)})
	}
	for _, b := range e.builtins() {
		tools = append(tools, b.Tool)
	}
	return tools
}

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
		r = a.only("metrics")
	}
	var ids []string
	if r == nil {
		var all []string
		for _, m := range e.cat.Metrics() {
			all = append(all, m.ID)
		}
		ids, r = a.metricList("metrics", all)
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
	a, r := c.arguments(raw)
	if r == nil {
		r = a.only()
	}
	if r != nil {
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
