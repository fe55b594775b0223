package grammar

import (
	"slices"

	"plumbline/catalog"
)

// Tool names plumbline defines itself, beside the catalogue's reports.
const (
	ToolTeamDay           = "team_day"
	ToolTeamWeeks         = "team_weeks"
	ToolLeague            = "league"
	ToolRoster            = "roster"
	ToolFindPeople        = "find_people"
	ToolFreshness         = "freshness"
	ToolMetricDefinitions = "metric_definitions"
	ToolHealth            = "health"
)

// Bounds of team_weeks' weeks.
const (
	DefaultWeeks = 4
	MaxWeeks     = 8
)

// MaxLeagueMetrics is the most metrics a league ranks by.
const MaxLeagueMetrics = 3

// League rankings (rank_by).
const (
	RankFigure     = "figure"
	RankAttainment = "attainment"
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

// Tools lists every tool's grammar over cat, in the order they are
// offered: the catalogue's reports first, then plumbline's own.
func Tools(cat *catalog.Catalog) []Tool {
	var tools []Tool
	for _, rep := range cat.Reports() {
		tools = append(tools, Tool{Name: rep.ID, InputSchema: reportInputSchema(cat, rep), Metrics: rep.MetricIDs()})
	}
	var allMetrics []string
	for _, m := range cat.Metrics() {
		allMetrics = append(allMetrics, m.ID)
	}
	league := LeagueMetrics(cat)
	// team_day and team_weeks carry a section for every report, so the
	// metrics of every report: those a league may rank by.
	sections := league
	return append(tools,
		Tool{
			Name: ToolTeamDay,
			InputSchema: Object(schema{
				ArgWho: oneOfWho(false),
				ArgPeriod: withDescription("the day, in "+cat.Zone().String()+"; default yesterday",
					exactlyOne(Object(schema{"named": enum("", []string{"today", "yesterday"}), "day": dateSchema("")}))),
				ArgCompact: compactSchema, ArgKnownDefinitions: knownSchema,
			}),
			Metrics: sections,
		},
		Tool{
			Name: ToolTeamWeeks,
			InputSchema: Object(schema{
				ArgWho:       oneOfWho(true),
				"weeks":      schema{"type": "integer", "minimum": 1, "maximum": MaxWeeks, "default": DefaultWeeks},
				ArgCompareTo: enum("", TeamWeeksCompareTo),
				ArgCompact:   compactSchema, ArgKnownDefinitions: knownSchema,
			}),
			Metrics: sections,
		},
		Tool{
			Name: ToolLeague,
			InputSchema: Object(schema{
				ArgPeriod: periodSchema(cat),
				ArgMetrics: schema{"type": "array", "items": enum("", league), "minItems": 1, "maxItems": MaxLeagueMetrics, "uniqueItems": true,
					"description": "ranked by the first unless sort names another; default " + joinIDs(LeagueDefaults(cat))},
				ArgSort:    sortSchema(league),
				ArgRankBy:  enum("", []string{RankFigure, RankAttainment}),
				ArgCompact: compactSchema, ArgKnownDefinitions: knownSchema,
			}, ArgPeriod),
			Metrics: league,
		},
		Tool{
			Name: ToolRoster,
			InputSchema: Object(schema{
				ArgWho: oneOfWho(true),
				"day":  dateSchema("default today"),
			}),
		},
		Tool{
			Name:        ToolFindPeople,
			InputSchema: Object(schema{"query": schema{"type": "string", "minLength": 1, "maxLength": MaxNameLength}}, "query"),
		},
		Tool{
			Name:        ToolFreshness,
			InputSchema: Object(schema{}),
		},
		Tool{
			Name: ToolMetricDefinitions,
			InputSchema: Object(schema{"metrics": schema{"type": "array", "items": enum("", allMetrics),
				"minItems": 1, "uniqueItems": true, "description": "default all"}}),
		},
		Tool{
			Name:        ToolHealth,
			InputSchema: Object(schema{}),
		},
	)
}

// LeagueMetrics are every metric a league may rank by: those of every
// report, each once.
func LeagueMetrics(cat *catalog.Catalog) []string {
	var ids []string
	for _, rep := range cat.Reports() {
		for _, m := range rep.Metrics {
			if !slices.Contains(ids, m.ID) {
				ids = append(ids, m.ID)
			}
		}
	}
	return ids
}

// LeagueDefaults are the metrics a league ranks by when none are named: the
// defaults of the first report that counts sales, else of the first report.
func LeagueDefaults(cat *catalog.Catalog) []*catalog.Metric {
	reps := cat.Reports()
	for _, rep := range reps {
		if slices.ContainsFunc(rep.Metrics, func(m *catalog.Metric) bool { return m.Basis != nil }) {
			return rep.Defaults
		}
	}
	return reps[0].Defaults
}

// Vocabulary is every word of the tools' grammar: the argument names and
// the enumerated values their schemas hold. The request log keeps these
// as given and redacts any other text a call sends.
type Vocabulary struct {
	fields  []string // every argument name of the grammar
	choices []string // every enumerated value of the grammar
}

// VocabularyOf gathers the words of the tools' input schemas.
func VocabularyOf(tools []Tool) *Vocabulary {
	v := &Vocabulary{}
	for _, t := range tools {
		v.collect(t.InputSchema)
	}
	return v
}

// collect gathers a schema's property names and enumerated strings.
func (v *Vocabulary) collect(s any) {
	switch s := s.(type) {
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			for name := range props {
				v.fields = append(v.fields, name)
			}
		}
		if values, ok := s["enum"].([]string); ok {
			v.choices = append(v.choices, values...)
		}
		for _, x := range s {
			v.collect(x)
		}
	case []any:
		for _, x := range s {
			v.collect(x)
		}
	}
}

// Field reports whether name is an argument name of the grammar.
func (v *Vocabulary) Field(name string) bool { return slices.Contains(v.fields, name) }

// Value reports whether a string argument's text is one the grammar
// spells: a date written YYYY-MM-DD or one of the enumerated values.
func (v *Vocabulary) Value(text []byte) bool {
	return dateRE.Match(text) || slices.Contains(v.choices, string(text))
}
