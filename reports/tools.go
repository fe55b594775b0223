package reports

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Tool names plumbline defines itself, beside the catalogue's reports.
const (
	toolMetricDefinitions = "metric_definitions"
	toolHealth            = "health"
)

// Tool describes one MCP tool.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  map[string]any
	OutputSchema map[string]any
}

// Tools lists every tool: the catalogue's reports first, then plumbline's own.
func (e *Engine) Tools() []Tool {
	var tools []Tool
	for _, rep := range e.cat.Reports() {
		tools = append(tools, Tool{
			Name:         rep.ID,
			Title:        rep.Title,
			Description:  rep.Description + " " + grammarNote,
			InputSchema:  reportInputSchema(e.cat, rep),
			OutputSchema: reportOutputSchema(),
		})
	}
	var ids []string
	for _, m := range e.cat.Metrics() {
		ids = append(ids, m.ID)
	}
	tools = append(tools,
		Tool{
			Name:  toolMetricDefinitions,
			Title: "Metric definitions",
			Description: "The full definition of every metric (or the ones named): label, unit, definition, formula as sums, " +
				"source, counting basis, when a day's figures become final, and which reports offer it; plus the counting bases.",
			InputSchema: object(schema{"metrics": schema{"type": "array", "items": schema{"type": "string", "enum": ids},
				"minItems": 1, "uniqueItems": true, "description": "metric ids; if omitted, all"}}),
			OutputSchema: answerSchema(schema{
				"metrics": schema{"type": "object"},
				"bases":   schema{"type": "object"},
			}),
		},
		Tool{
			Name:         toolHealth,
			Title:        "Health",
			Description:  "Whether plumbline can reach its database, and the catalogue version it answers from.",
			InputSchema:  object(schema{}),
			OutputSchema: answerSchema(schema{"status": schema{"type": "string"}, "database": schema{"type": "string"}}),
		},
	)
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

const grammarNote = "Arguments: who (floor, team or agent), period (named, day, week or start/end), " +
	"optional metrics, group_by, sort, top_n and compact. Every figure comes with its definition, " +
	"its counting basis and how far its data runs (data_through); read them and the notes before stating it."

// Instructions tell the client how to read every answer.
func Instructions() string {
	return `plumbline answers questions about a sales floor's hours, sales and quality with governed figures. Every answer carries what you need to state a figure correctly; use it.

- Before stating a figure, read its metric's definition and data_through. Say how far the data runs when it is not through yesterday or today.
- The notes are part of the answer: pass them on to the person, in your own words, with the figures they qualify.
- Null means no data (for example hours not in yet), never zero. Do not fill nulls with zeros or estimates.
- Sales are counted on different bases (board = live, submitted = nightly, approved = carrier-confirmed). Every sales figure names its sales_basis; never add, subtract or compare figures across bases.
- Figures listed in partial_metrics (partial: true) cover days that are not over or not final; say so, and do not rank or compare them with whole days.
- Ratios are given with their summed numerator and denominator; quote the ratio as returned (as a percentage for unit "share") and never average ratios across rows yourself.
- If an answer lists candidates, several people or teams matched the name: ask which one is meant. Do not pick one.
- An error names the argument, the rule and the valid choices: fix the call and try again.
- compact: true drops definitions and standing notes and keeps rows, data_through and warnings; use it only after you have read the definitions in this conversation. known_definitions: pass the catalog_version of an earlier answer to get short references instead of definition texts.`
}

// DefinitionsAnswer is metric_definitions' answer.
type DefinitionsAnswer struct {
	RequestID      string                 `json:"request_id"`
	Metrics        map[string]*Definition `json:"metrics"`
	Bases          map[string]*BasisInfo  `json:"bases"`
	CatalogVersion string                 `json:"catalog_version"`
	Notes          []string               `json:"notes"`
}

// Definition is everything the catalogue says about a metric.
type Definition struct {
	Label      string   `json:"label"`
	Unit       string   `json:"unit"`
	Definition string   `json:"definition"`
	Formula    string   `json:"formula"`
	Source     string   `json:"source"`
	Grain      string   `json:"grain"`
	SalesBasis string   `json:"sales_basis,omitempty"`
	Settles    string   `json:"settles"`
	Reports    []string `json:"reports"`
}

// BasisInfo is a counting basis.
type BasisInfo struct {
	Label      string `json:"label"`
	Definition string `json:"definition"`
}

func (e *Engine) metricDefinitions(c *call, raw json.RawMessage) *Answer {
	a, r := parseArgs(raw)
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
	ans := &DefinitionsAnswer{RequestID: c.id, Metrics: map[string]*Definition{}, Bases: map[string]*BasisInfo{},
		CatalogVersion: e.cat.Version(),
		Notes:          []string{"Ratios are always the sum of the numerator over the sum of the denominator across the rows of a group, never an average of rates."}}
	for _, m := range e.cat.Metrics() {
		if ids != nil && !slices.Contains(ids, m.ID) {
			continue
		}
		d := &Definition{Label: m.Label, Unit: m.Unit, Definition: m.Definition(), Formula: m.Formula(),
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
		ans.Bases[b.ID] = &BasisInfo{Label: b.Label, Definition: b.Definition}
	}
	return &Answer{Body: ans}
}

// HealthAnswer is health's answer.
type HealthAnswer struct {
	RequestID      string `json:"request_id"`
	Status         string `json:"status"`
	Database       string `json:"database"`
	CatalogVersion string `json:"catalog_version"`
}

func (e *Engine) health(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := parseArgs(raw)
	if r == nil {
		r = a.only()
	}
	if r != nil {
		return c.refuse(r)
	}
	ans := &HealthAnswer{RequestID: c.id, Status: "ok", Database: "reachable", CatalogVersion: e.cat.Version()}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := e.store.Ping(ctx); err != nil {
		e.opts.Logger.Warn("health: database unreachable", "request_id", c.id, "err", err)
		ans.Status, ans.Database = "degraded", "unreachable"
	}
	return &Answer{Body: ans}
}
