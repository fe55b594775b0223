package reports

import (
	"plumbline/catalog"
)

// This file writes each tool's input and output JSON Schema. The grammar
// lives here, in the schema a client reads, and is enforced again by the
// decoder in request.go.

type schema = map[string]any

func object(props schema, required ...string) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func enum(description string, values []string) schema {
	return schema{"type": "string", "enum": values, "description": description}
}

func dateSchema(description string) schema {
	return schema{"type": "string", "format": "date", "pattern": `^\d{4}-\d{2}-\d{2}$`, "description": description}
}

// oneOfWho is the who argument; withAgent adds the agent shape.
func oneOfWho(withAgent bool) schema {
	shapes := []any{
		withTitle("the floor", object(schema{"floor": schema{"type": "boolean", "const": true}}, "floor")),
		withTitle("a team", object(schema{"team": schema{"type": "string", "minLength": 1, "maxLength": maxNameLength,
			"description": "team key or team name"}}, "team")),
	}
	description := "Whose figures: the whole floor or one team (key or name)."
	if withAgent {
		shapes = append(shapes, withTitle("an agent", object(schema{"agent": schema{"type": "string", "minLength": 1, "maxLength": maxNameLength,
			"description": "agent_key, full or partial name, or email"}}, "agent")))
		description = "Whose figures: the whole floor, one team (key or name) or one agent (agent_key, name or email)."
	}
	return schema{"description": description + " A name that matches several returns candidates and no figures.", "oneOf": shapes}
}

func periodSchema(cat *catalog.Catalog) schema {
	return schema{
		"description": "Which days, in " + cat.Zone().String() + "; weeks start on " + cat.WeekStart().String() +
			". Never after today; a range is at most " + itoa(cat.Limits().MaxDays) + " days, both ends inclusive. " +
			"last_7_days and last_28_days are whole days ending yesterday.",
		"oneOf": []any{
			withTitle("a named period", object(schema{"named": enum("a named range of days", NamedPeriods)}, "named")),
			withTitle("one day", object(schema{"day": dateSchema("the day, YYYY-MM-DD")}, "day")),
			withTitle("one week", object(schema{"week": dateSchema("any day of the week, YYYY-MM-DD")}, "week")),
			withTitle("a range", object(schema{
				"start": dateSchema("first day, YYYY-MM-DD"),
				"end":   dateSchema("last day, YYYY-MM-DD, inclusive"),
			}, "start", "end")),
		},
	}
}

func withTitle(title string, s schema) schema {
	s["title"] = title
	return s
}

// reportInputSchema is the grammar every report tool takes.
func reportInputSchema(cat *catalog.Catalog, rep *catalog.Report) schema {
	ids := rep.MetricIDs()
	props := schema{
		argWho:    oneOfWho(true),
		argPeriod: periodSchema(cat),
		argMetrics: schema{
			"type": "array", "items": schema{"type": "string", "enum": ids}, "minItems": 1, "maxItems": len(ids), "uniqueItems": true,
			"description": "metric ids to return; if omitted, " + joinIDs(rep.Defaults),
		},
		argGroupBy: enum("one row per group, every group in scope listed (null where no data is in); weeks say how many of the period's days they hold; if omitted, one total row", rep.GroupBy),
		argTopN: schema{"type": "integer", "minimum": 1, "maximum": cat.Limits().MaxRows,
			"description": "keep the first N groups of the ranking (by sort, else by the first metric, descending), and any tied with the last; needs group_by"},
		argSort: object(schema{
			"metric":    enum("a metric this call returns", ids),
			"direction": schema{"type": "string", "enum": []string{"desc", "asc"}, "default": "desc"},
		}, "metric"),
		argCompact: schema{"type": "boolean", "default": false,
			"description": "drop definitions and standing notes; keep rows, data_through and warnings. Only after this conversation has read the definitions."},
		argKnownDefinitions: schema{"type": "string", "maxLength": maxVersionLen,
			"description": "the catalog_version of an earlier answer; if it still matches, definitions come back as short references"},
	}
	if len(countedSums(rep)) > 1 {
		props[argCompareCounts] = schema{"type": "boolean", "default": false,
			"description": "return " + joinIDs(countedSums(rep)) + " side by side, one per counting basis, each labelled"}
	}
	s := object(props, argWho, argPeriod)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	return s
}

func joinIDs(ms []*catalog.Metric) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += ", "
		}
		out += m.ID
	}
	return out
}

// Output schemas: every answer a tool gives, in every mode, validates
// against the tool's own: the answer with figures (full, compact or with
// definitions by reference), candidates when a name matched several, or a
// refusal. Objects are closed, so a field the contract does not name is a
// defect a client's validation catches.

var (
	text      = schema{"type": "string"}
	texts     = schema{"type": "array", "items": text}
	whole     = schema{"type": "integer"}
	flag      = schema{"type": "boolean"}
	maybeDate = schema{"type": []string{"string", "null"}}
	table     = schema{"type": "array", "items": schema{"type": "array"}}

	dataThroughSchema = object(schema{"runs_to": maybeDate, "complete_through": maybeDate}, "runs_to", "complete_through")
	refusalSchema     = object(schema{"code": text, "argument": text, "rule": text, "choices": texts}, "code", "rule", "choices")
	echoSchema        = object(schema{
		"tool": text,
		"who":  object(schema{"kind": text, "key": text, "name": text, "team": text}, "kind", "name"),
		"day":  text, "weeks": whole, "metrics": texts, "group_by": text, "top_n": whole,
		"sort":    object(schema{"metric": text, "direction": text}, "metric", "direction"),
		"compact": flag, "compare_counts": flag,
	}, "tool")
)

// answerOf is a tool's output schema: its answer, or (when withCandidates)
// the candidates a name matched, or a refusal.
func answerOf(props schema, required []string, withCandidates bool) schema {
	props["request_id"] = text
	shapes := []any{
		withTitle("answer", object(props, append([]string{"request_id"}, required...)...)),
		withTitle("refused", object(schema{"request_id": text, "error": refusalSchema}, "request_id", "error")),
	}
	if withCandidates {
		shapes = append(shapes, withTitle("candidates", object(schema{
			"request_id": text, "argument": text, "notes": texts, "catalog_version": text,
			"candidates": schema{"type": "array", "items": object(schema{
				"agent_key": text, "team_key": text, "name": text, "team": text, "left_on": text,
			}, "name")},
		}, "request_id", "argument", "candidates", "notes", "catalog_version")))
	}
	return schema{"type": "object", "anyOf": shapes}
}

// governed is what every answer with figures carries beside them.
func governed(props schema) (schema, []string) {
	props["metrics"] = schema{"type": "object", "additionalProperties": object(schema{
		"label": text, "unit": schema{"type": "string", "enum": catalog.Units}, "definition": text, "definition_ref": text,
		"formula": text, "source": text, "sales_basis": text, "data_through": dataThroughSchema, "left_out": whole, "partial": flag,
	}, "label", "unit", "data_through")}
	props["period"] = object(schema{"start": text, "end": text, "days": whole, "time_zone": text, "named": text},
		"start", "end", "days", "time_zone")
	props["data_through"] = schema{"type": "object", "additionalProperties": dataThroughSchema}
	props["notes"] = texts
	props["note_refs"] = texts
	props["partial"] = flag
	props["partial_metrics"] = texts
	props["catalog_version"] = text
	props["request"] = echoSchema
	return props, []string{"request", "metrics", "period", "data_through", "notes", "partial", "partial_metrics", "catalog_version"}
}

func reportOutputSchema() schema {
	props, required := governed(schema{"columns": texts, "rows": table, "truncated": flag})
	return answerOf(props, append(required, "columns", "rows", "truncated"), true)
}

func cannedOutputSchema() schema {
	props, required := governed(schema{"sections": schema{"type": "array", "items": object(schema{
		"id": text, "title": text, "columns": texts, "rows": table, "total": schema{"type": "array"}, "truncated": flag,
	}, "id", "title", "columns", "rows", "truncated")}})
	return answerOf(props, append(required, "sections"), true)
}

func rosterOutputSchema() schema {
	return answerOf(schema{
		"request": echoSchema, "day": text, "time_zone": text, "columns": texts, "rows": table, "truncated": flag,
		"notes": texts, "catalog_version": text,
		"teams": schema{"type": "array", "items": object(schema{
			"team": text, "team_name": text, "on_floor": schema{"type": []string{"boolean", "null"}},
			"decided_from": text, "decided_by": text, "reason": text, "agents": whole,
		}, "team", "team_name", "on_floor", "agents")},
	}, []string{"request", "day", "time_zone", "teams", "columns", "rows", "truncated", "notes", "catalog_version"}, true)
}

func peopleOutputSchema() schema {
	return answerOf(schema{
		"people": schema{"type": "array", "items": object(schema{
			"agent_key": text, "name": text, "email": text, "team": text, "team_name": text, "hired_on": text, "left_on": text,
		}, "agent_key", "name", "email", "hired_on")},
		"truncated": flag, "notes": texts, "catalog_version": text,
	}, []string{"people", "truncated", "notes", "catalog_version"}, false)
}

func freshnessOutputSchema() schema {
	return answerOf(schema{
		"now": text, "today": text, "time_zone": text, "notes": texts, "catalog_version": text,
		"sources": schema{"type": "object", "additionalProperties": object(schema{
			"source": text, "description": text, "refresh": text, "settles": text, "data_through": dataThroughSchema,
			"first_day": maybeDate, "today": text, "metrics": texts,
		}, "source", "description", "refresh", "settles", "data_through", "first_day", "today", "metrics")},
	}, []string{"now", "today", "time_zone", "sources", "notes", "catalog_version"}, false)
}

func definitionsOutputSchema() schema {
	return answerOf(schema{
		"metrics": schema{"type": "object", "additionalProperties": object(schema{
			"label": text, "unit": text, "definition": text, "formula": text, "source": text, "grain": text,
			"sales_basis": text, "settles": text, "reports": texts,
		}, "label", "unit", "definition", "formula", "source", "grain", "settles")},
		"bases":           schema{"type": "object", "additionalProperties": object(schema{"label": text, "definition": text}, "label", "definition")},
		"standing_notes":  schema{"type": "object", "additionalProperties": text},
		"catalog_version": text, "notes": texts,
	}, []string{"metrics", "bases", "standing_notes", "catalog_version", "notes"}, false)
}

func healthOutputSchema() schema {
	return answerOf(schema{"status": text, "database": text, "catalog_version": text},
		[]string{"status", "database", "catalog_version"}, false)
}
