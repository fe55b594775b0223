package contract

import (
	"strings"

	"plumbline/catalog"
	"plumbline/reports"
	"plumbline/reports/grammar"
)

// Tool is one MCP tool as a client sees it: the engine's grammar (its name,
// input schema and metrics) with its title, description and output schema.
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

// Tools lists every tool the engine offers, in the order it offers them,
// as a client sees each: a catalogue report with the catalogue's title and
// description, plumbline's own tools with theirs.
func Tools(e *reports.Engine) []Tool {
	cat := e.Catalog()
	own := ownTools(cat)
	var tools []Tool
	for _, t := range e.Tools() {
		tool := Tool{Name: t.Name, InputSchema: t.InputSchema, Metrics: t.Metrics}
		if rep, ok := cat.Report(t.Name); ok {
			tool.Title, tool.Description, tool.OutputSchema = rep.Title, rep.Description, reportOutputSchema()
		} else if o, ok := own[t.Name]; ok {
			tool.Title, tool.Description, tool.OutputSchema = o.title, o.description, o.output
		} else {
			panic("contract: the engine offers " + t.Name + ", which has no title, description or output schema here")
		}
		tools = append(tools, tool)
	}
	return tools
}

// described is what a client reads of one of plumbline's own tools beyond
// its grammar.
type described struct {
	title, description string
	output             schema
}

// ownTools describes plumbline's own tools, by name.
func ownTools(cat *catalog.Catalog) map[string]described {
	return map[string]described{
		grammar.ToolTeamDay: {"Team day", "A team's or the floor's day: a section per report (" + reportList(cat) +
			"), a row per agent (per team for the floor) and the total; today is partial.", cannedOutputSchema()},
		grammar.ToolTeamWeeks: {"Team weeks", "Week by week for a team, an agent or the floor: a section per report (" + reportList(cat) +
			"), a row per week and the total, over the last final whole weeks.", cannedOutputSchema()},
		grammar.ToolLeague: {"League", "The floor's teams ranked by a metric over a period, with the floor's figure; a team counts only for " +
			"its days on the floor. Final days only.", cannedOutputSchema()},
		grammar.ToolRoster: {"Roster",
			"Who is on which team on a day, which teams count as the floor, who decided and why; an agent's teams over time.",
			rosterOutputSchema()},
		grammar.ToolFindPeople: {"Find people",
			"Agents matching part of a name, an email or an agent_key, with their team; pass the agent_key as who.agent.",
			peopleOutputSchema()},
		grammar.ToolFreshness: {"Freshness", "Per source: runs_to (loaded), complete_through (final), first day and part of today.",
			freshnessOutputSchema()},
		grammar.ToolMetricDefinitions: {"Metric definitions",
			"Each metric's (or the named ones') definition, formula, unit, source, basis and when a day is final; " +
				"the bases; with none named, every standing note.", definitionsOutputSchema()},
		grammar.ToolHealth: {"Health", "Whether the database answers, and the catalogue version.", healthOutputSchema()},
	}
}

// reportList names the catalogue's reports, as the canned tools'
// descriptions list their sections.
func reportList(cat *catalog.Catalog) string {
	var ids []string
	for _, r := range cat.Reports() {
		ids = append(ids, r.ID)
	}
	return strings.Join(ids, ", ")
}
