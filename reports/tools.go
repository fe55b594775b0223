package reports

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
)

// Tool names plumbline defines itself, beside the catalogue's reports.
const (
	toolRoster            = "roster"
	toolFindPeople        = "find_people"
	toolFreshness         = "freshness"
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
	known := schema{"type": "string", "maxLength": maxVersionLen,
		"description": "the catalog_version of an earlier answer; if it still matches, definitions come back as short references"}
	compact := schema{"type": "boolean", "default": false,
		"description": "drop definitions and standing notes; keep figures, data_through and warnings. Only after this conversation has read the definitions."}
	return []builtin{
		{Tool{
			Name:  toolTeamDay,
			Title: "Team day",
			Description: "How a team (or the floor) did on one day, in one call: a section per report (" + reportList(cat) +
				") with a row per agent (or per team for the floor) and the total, each definition stated once. " +
				"Defaults to yesterday; today is partial and uses live figures where the nightly build has not run.",
			InputSchema: object(schema{
				argWho: oneOfWho(false),
				argPeriod: schema{"description": "the day, in " + cat.Zone().String() + "; if omitted, yesterday",
					"oneOf": []any{
						withTitle("today or yesterday", object(schema{"named": enum("", []string{"today", "yesterday"})}, "named")),
						withTitle("one day", object(schema{"day": dateSchema("the day, YYYY-MM-DD")}, "day")),
					}},
				argCompact: compact, argKnownDefinitions: known,
			}, argWho),
			OutputSchema: cannedOutputSchema(),
		}, (*Engine).teamDay},
		{Tool{
			Name:  toolTeamWeeks,
			Title: "Team weeks",
			Description: "Week by week for a team, an agent or the floor, in one call: a section per report (" + reportList(cat) +
				") with a row per whole week and the total, each definition stated once. The weeks are the last whole weeks " +
				"whose figures are all final.",
			InputSchema: object(schema{
				argWho:     oneOfWho(true),
				"weeks":    schema{"type": "integer", "minimum": 1, "maximum": maxWeeks, "default": defaultWeeks, "description": "how many whole weeks"},
				argCompact: compact, argKnownDefinitions: known,
			}, argWho),
			OutputSchema: cannedOutputSchema(),
		}, (*Engine).teamWeeks},
		{Tool{
			Name:  toolLeague,
			Title: "League",
			Description: "The teams on the floor ranked by a metric over a period, with the whole floor's figure. " +
				"Each team counts only for its days on the floor. A league over days that are not final (such as today) is refused.",
			InputSchema: object(schema{
				argPeriod: periodSchema(cat),
				argMetrics: schema{"type": "array", "items": schema{"type": "string", "enum": league}, "minItems": 1,
					"maxItems": maxLeagueMetrics, "uniqueItems": true,
					"description": "metrics to show, ranked by the first unless sort says otherwise; if omitted, " + joinIDs(e.leagueDefaults())},
				argSort: object(schema{
					"metric":    enum("a metric this call returns", league),
					"direction": schema{"type": "string", "enum": []string{"desc", "asc"}, "default": "desc"},
				}, "metric"),
				argCompact: compact, argKnownDefinitions: known,
			}, argPeriod),
			OutputSchema: cannedOutputSchema(),
		}, (*Engine).league},
		{Tool{
			Name:  toolRoster,
			Title: "Roster",
			Description: "Who is on which team on a day, and which teams count as the floor, with who decided it and why; " +
				"for one agent, their teams over time.",
			InputSchema: object(schema{
				argWho: oneOfWho(true),
				"day":  dateSchema("the day, YYYY-MM-DD; if omitted, today"),
			}, argWho),
			OutputSchema: rosterOutputSchema(),
		}, (*Engine).roster},
		{Tool{
			Name:  toolFindPeople,
			Title: "Find people",
			Description: "Agents matching a name (or part of one), an email or an agent_key, with their team; " +
				"use the agent_key in who.agent.",
			InputSchema: object(schema{"query": schema{"type": "string", "minLength": 1, "maxLength": maxNameLength,
				"description": "a name or part of one, an email or an agent_key"}}, "query"),
			OutputSchema: peopleOutputSchema(),
		}, (*Engine).findPeople},
		{Tool{
			Name:         toolFreshness,
			Title:        "Freshness",
			Description:  "How far every source is loaded (runs_to: for a nightly source the newest day its finished loads covered), how far it is final (complete_through), its first day of data, and what it holds of today.",
			InputSchema:  object(schema{}),
			OutputSchema: freshnessOutputSchema(),
		}, func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer {
			return e.freshness(ctx, c, raw)
		}},
		{Tool{
			Name:  toolMetricDefinitions,
			Title: "Metric definitions",
			Description: "The full definition of every metric (or the ones named): label, unit, definition, formula as sums, " +
				"source, counting basis, when a day's figures become final, and which reports offer it; plus the counting bases.",
			InputSchema: object(schema{"metrics": schema{"type": "array", "items": schema{"type": "string", "enum": allMetrics},
				"minItems": 1, "uniqueItems": true, "description": "metric ids; if omitted, all"}}),
			OutputSchema: definitionsOutputSchema(),
		}, func(e *Engine, _ context.Context, c *call, raw json.RawMessage) *Answer {
			return e.metricDefinitions(c, raw)
		}},
		{Tool{
			Name:         toolHealth,
			Title:        "Health",
			Description:  "Whether plumbline can reach its database, and the catalogue version it answers from.",
			InputSchema:  object(schema{}),
			OutputSchema: healthOutputSchema(),
		}, (*Engine).health},
	}
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

func reportList(cat *catalog.Catalog) string {
	var ids []string
	for _, r := range cat.Reports() {
		ids = append(ids, r.ID)
	}
	return strings.Join(ids, ", ")
}

const grammarNote = "Arguments: who (floor, team or agent), period (named, day, week or start/end), " +
	"optional metrics, group_by, sort, top_n (a ranking: by sort, else the first metric; ties kept) and compact. " +
	"Every figure comes with its definition, its counting basis, how far its data runs (data_through) and how many " +
	"agent-days were left out of it (left_out); read them and the notes before stating it."

// Instructions tell the client how to read every answer.
func Instructions() string {
	return `plumbline answers questions about a sales floor's hours, sales and quality with governed figures. Every answer carries what you need to state a figure correctly; use it.

- Before stating a figure, read its metric's definition and data_through. Say how far the data runs when it is not through yesterday or today.
- The notes are part of the answer: pass them on to the person, in your own words, with the figures they qualify.
- Null means no data (for example hours not in yet, or a day not loaded), never zero. Do not fill nulls with zeros or estimates. A zero is a loaded day without activity.
- A metric's left_out counts the agent-days left out of its figures because a part was not known yet; such figures are partial. Say so.
- Grouped answers list every team or agent in scope, with null where nothing is in. A week row's days column says how many of the period's days it holds: compare whole weeks only.
- top_n is a ranking by sort, or else by the first metric, descending; rows tied with the last one kept are kept too. Say when a note reports a tie.
- Sales are counted on different bases (board = live, submitted = nightly, approved = carrier-confirmed). Every sales figure names its sales_basis; never add, subtract or compare figures across bases.
- Figures listed in partial_metrics (partial: true) cover days that are not over or not final; say so, and do not rank or compare them with whole days.
- Ratios are given with their summed numerator and denominator; quote the ratio as returned (as a percentage for unit "share") and never average ratios across rows yourself.
- If an answer lists candidates, several people or teams matched the name: ask which one is meant. Do not pick one. find_people looks people up by part of a name or an email.
- For the usual questions use one call: team_day (a team's or the floor's day), team_weeks (week by week), league (teams ranked). Each states every definition once for all its sections.
- A ranking or league over days that are not final is refused; use the period the refusal suggests rather than ranking partial figures.
- An error names the argument, the rule and the valid choices: fix the call and try again.
- compact: true drops definitions and standing notes and keeps rows, data_through and warnings; use it only after you have read the definitions in this conversation. known_definitions: pass the catalog_version of an earlier answer to get short references instead of definition texts.`
}

// DefinitionsAnswer is metric_definitions' answer.
type DefinitionsAnswer struct {
	RequestID string                 `json:"request_id"`
	Metrics   map[string]*Definition `json:"metrics"`
	Bases     map[string]*BasisInfo  `json:"bases"`
	// StandingNotes are the texts of every standing note an answer may
	// name by reference (note_refs), by ID.
	StandingNotes  map[string]string `json:"standing_notes"`
	CatalogVersion string            `json:"catalog_version"`
	Notes          []string          `json:"notes"`
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
	ans.StandingNotes = map[string]string{}
	for _, n := range e.cat.Notes() {
		ans.StandingNotes[n.ID] = n.Text
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
