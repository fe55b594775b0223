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
	Name        string
	Title       string
	Description string
	InputSchema map[string]any
	// OutputSchema describes every answer exactly: the contract, which
	// answers are tested against and plumbline contract writes. tools/list
	// offers ListedOutputSchema instead.
	OutputSchema map[string]any
	// Metrics are the ids of the metrics the tool's answers carry figures
	// of (a canned report's sections, what a league may rank by); nil for
	// a tool that answers with no figures.
	Metrics []string
}

// ListedOutputSchema is the output schema tools/list offers: an object,
// which tells a client every result carries structured content, and no
// more. No client shows an output schema to a model, so its bytes are
// all cost in a list every conversation loads; programs that check
// answers take the exact schema (OutputSchema) from the contract.
func (t Tool) ListedOutputSchema() map[string]any { return schema{"type": "object"} }

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
			Name:  toolTeamDay,
			Title: "Team day",
			Description: "A team's or the floor's day: a section per report (" + reportList(cat) +
				"), a row per agent (per team for the floor) and the total; today is partial.",
			InputSchema: object(schema{
				argWho: oneOfWho(false),
				argPeriod: withDescription("the day, in "+cat.Zone().String()+"; default yesterday",
					exactlyOne(object(schema{"named": enum("", []string{"today", "yesterday"}), "day": dateSchema("")}))),
				argCompact: compactSchema, argKnownDefinitions: knownSchema,
			}),
			OutputSchema: cannedOutputSchema(),
			Metrics:      sections,
		}, (*Engine).teamDay},
		{Tool{
			Name:  toolTeamWeeks,
			Title: "Team weeks",
			Description: "Week by week for a team, an agent or the floor: a section per report (" + reportList(cat) +
				"), a row per week and the total, over the last final whole weeks.",
			InputSchema: object(schema{
				argWho:       oneOfWho(true),
				"weeks":      schema{"type": "integer", "minimum": 1, "maximum": maxWeeks, "default": defaultWeeks},
				argCompareTo: enum("", compareChoices),
				argCompact:   compactSchema, argKnownDefinitions: knownSchema,
			}),
			OutputSchema: cannedOutputSchema(),
			Metrics:      sections,
		}, (*Engine).teamWeeks},
		{Tool{
			Name:  toolLeague,
			Title: "League",
			Description: "The floor's teams ranked by a metric over a period, with the floor's figure; a team counts only for " +
				"its days on the floor. Final days only.",
			InputSchema: object(schema{
				argPeriod: periodSchema(cat),
				argMetrics: schema{"type": "array", "items": enum("", league), "minItems": 1, "maxItems": maxLeagueMetrics, "uniqueItems": true,
					"description": "ranked by the first unless sort names another; default " + joinIDs(e.leagueDefaults())},
				argSort:    sortSchema(league),
				argRankBy:  enum("", []string{RankFigure, RankAttainment}),
				argCompact: compactSchema, argKnownDefinitions: knownSchema,
			}, argPeriod),
			OutputSchema: cannedOutputSchema(),
			Metrics:      league,
		}, (*Engine).league},
		{Tool{
			Name:        toolRoster,
			Title:       "Roster",
			Description: "Who is on which team on a day, which teams count as the floor, who decided and why; an agent's teams over time.",
			InputSchema: object(schema{
				argWho: oneOfWho(true),
				"day":  dateSchema("default today"),
			}),
			OutputSchema: rosterOutputSchema(),
		}, (*Engine).roster},
		{Tool{
			Name:         toolFindPeople,
			Title:        "Find people",
			Description:  "Agents matching part of a name, an email or an agent_key, with their team; pass the agent_key as who.agent.",
			InputSchema:  object(schema{"query": schema{"type": "string", "minLength": 1, "maxLength": maxNameLength}}, "query"),
			OutputSchema: peopleOutputSchema(),
		}, (*Engine).findPeople},
		{Tool{
			Name:         toolFreshness,
			Title:        "Freshness",
			Description:  "Per source: runs_to (loaded), complete_through (final), first day and part of today.",
			InputSchema:  object(schema{}),
			OutputSchema: freshnessOutputSchema(),
		}, func(e *Engine, ctx context.Context, c *call, raw json.RawMessage) *Answer {
			return e.freshness(ctx, c, raw)
		}},
		{Tool{
			Name:  toolMetricDefinitions,
			Title: "Metric definitions",
			Description: "Each metric's (or the named ones') definition, formula, unit, source, basis and when a day is final; " +
				"the bases; with none named, every standing note.",
			InputSchema: object(schema{"metrics": schema{"type": "array", "items": enum("", allMetrics),
				"minItems": 1, "uniqueItems": true, "description": "default all"}}),
			OutputSchema: definitionsOutputSchema(),
		}, func(e *Engine, _ context.Context, c *call, raw json.RawMessage) *Answer {
			return e.metricDefinitions(c, raw)
		}},
		{Tool{
			Name:         toolHealth,
			Title:        "Health",
			Description:  "Whether the database answers, and the catalogue version.",
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
			Description:  rep.Description,
			InputSchema:  reportInputSchema(e.cat, rep),
			OutputSchema: reportOutputSchema(),
			Metrics:      metricIDs(rep.Metrics),
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

// Instructions tell the client how to read every answer.
func Instructions() string {
	return `plumbline answers questions about a sales floor's hours, sales and quality with governed figures. Every answer carries what you need to state a figure correctly; use it.

- Before stating a figure, read its metric's definition and data_through. Say how far the data runs when it is not through yesterday or today.
- The notes are part of the answer: pass them on to the person, in your own words, with the figures they qualify.
- Null means no data (for example hours not in yet, or a day not loaded), never zero. Do not fill nulls with zeros or estimates. A zero is a loaded day without activity.
- A metric's left_out counts the agent-days left out of its figures because a part was not known yet; such figures are partial. Say so.
- Each person sees what their reach allows (the whole floor, their own teams, or only their own figures): a who outside it is refused naming what they may ask for, {"team": "mine"} is their own team, and a call without who is about the floor, or their one team, or their own figures.
- Without group_by an answer is one total row. Grouped answers list every team or agent in scope, with null where nothing is in. A week, month or quarter row (keyed by its first day; months and quarters are calendar ones) has a days column saying how many of the period's days it holds: compare whole ones only.
- top_n is a ranking by sort, or else by the first metric, descending; rows tied with the last one kept are kept too. Say when a note reports a tie.
- Sales are counted on different bases (board = live, submitted = nightly, approved = carrier-confirmed). Every sales figure names its sales_basis; never add, subtract or compare figures across bases.
- Figures listed in partial_metrics (partial: true) cover days that are not over or not final; say so, and do not rank or compare them with whole days.
- Ratios are given with their summed numerator and denominator; quote the ratio as returned (as a percentage for unit "share") and never average ratios across rows yourself.
- If an answer lists candidates, several people or teams matched the name, or none did and these have the closest names: ask which one is meant. Do not pick one. find_people looks people up by part of a name or an email.
- For the usual questions use one call: team_day (a team's or the floor's day; today's figures are live where the nightly build has not run), team_weeks (week by week), league (teams ranked). Each states every definition once for all its sections.
- To say how a period compares with the one before, pass compare_to: "previous_period" (the week before a week, the calendar month, quarter or year before a whole one): each figure comes beside its previous one (…_previous) and the change (…_change, or …_change_points for a share, in percentage points), each ratio from its own period's summed parts, and previous_period gives the previous period's dates; it takes group_by team or agent, or none. "So far this month against last month": a period so far (week_to_date, month_to_date, quarter_to_date, year_to_date) is compared through its last final day (period.end; period.asked_end is the end asked) with as many days from the start of the week, month, quarter or year before. "Against last year": compare_to: "previous_year" works the same way beside the same calendar dates a year earlier (a week beside the same weekdays of the same ISO week, a whole month, quarter or year beside the whole one; a period so far through its last final day), and a note says which days; it is refused when the data does not reach that far back. A note names the agents (for a team) or teams (for the floor) counted in one period and not the other: say so beside the change. team_weeks takes compare_to too (not previous_year): each week beside the week before it and the total beside the weeks before those, or with "target" each week beside its own week's target and the total beside the weeks' targets summed. Quote the change as given; never subtract two answers or average rates yourself. When the note says the periods differ in calendar or working days, say so beside the change.
- "Are we on target?": compare_to: "target" (for a team or the floor, by team or not grouped, over a week or a month, whole or so far) sets each figure that has targets for that kind of period beside its target (…_target) and the attainment (…_attainment, figure over target), or for a rate the gap in percentage points (…_target_gap_points). A figure and its target cover the same days: the days loaded so far (metrics.<id>.target gives them) and, for each team, only its days on the floor, in every tool, so a team's attainment is the same in sales, league and team_weeks. Targets are set by people and dated; the notes say who set each, when and why, and which a revision replaced. A null target means none is set: say so, never treat it as zero. A count's target over part of its period is its share of the days counted; a rate's holds as set, and the floor has none. "Which team is furthest ahead of target?": league with rank_by: "attainment" (rank_by "figure" is the default) ranks teams by the sort metric's attainment over a whole week or calendar month; a team without a target comes last, without a rank.
- A period is named, a day, a week (any day of it names the whole week) or start to end inclusive. The named periods last_7_days and last_28_days end yesterday; quarters and years are calendar ones (last_quarter, last_year are the whole ones before today's). "So far" questions: the named periods week_to_date, month_to_date, quarter_to_date and year_to_date (or this_week, this_month, this_quarter, this_year) run from the first day of the week, month, quarter or year through today, so their figures are partial. A range, and rows by day, hold at most what the period's description says: group a longer period by week, month, quarter, team or agent, or not at all. cumulative: true with group_by day, week, month or quarter gives each row's running total from the period's first day; a running ratio is the running numerator over the running denominator. Quote the last row for where things stand; say which days are not final.
- A ranking, league or comparison over days that are not final is refused (a period so far is compared through its last final day instead); use the period the refusal suggests rather than ranking or comparing partial figures.
- An error names the argument, the rule and the valid choices: fix the call and try again.
- compact: true leaves out definitions and standing notes and keeps the figures, each metric's stamp (basis, data_through, partial, left_out) and the warnings; use it only once this conversation has the definitions. known_definitions: pass the catalog_version of an earlier answer; definitions, the time zone and the standing notes then come by reference (metric_definitions has every text), stamps and warnings still in full.
- In an answer's text, figures are CSV under a header row, and a ratio's cell reads ratio (numerator/denominator).`
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
		if ids == nil {
			ans.StandingNotes[n.ID] = n.Text
		}
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
	a, r := c.arguments(raw)
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
