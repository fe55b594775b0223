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
		argGroupBy: enum("one row per group; if omitted, one total row", rep.GroupBy),
		argTopN: schema{"type": "integer", "minimum": 1, "maximum": cat.Limits().MaxRows,
			"description": "keep only the first N rows, after sort"},
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

// Output schemas describe the successful answer; refusals share the
// request_id and carry error instead.
var (
	dataThroughSchema = schema{"type": "object", "properties": schema{
		"runs_to":          schema{"type": []string{"string", "null"}},
		"complete_through": schema{"type": []string{"string", "null"}},
	}}
	refusalSchema = schema{"type": "object", "properties": schema{
		"code": schema{"type": "string"}, "argument": schema{"type": "string"},
		"rule": schema{"type": "string"}, "choices": schema{"type": "array", "items": schema{"type": "string"}},
	}}
)

func answerSchema(props schema) schema {
	props["request_id"] = schema{"type": "string"}
	props["error"] = refusalSchema
	props["catalog_version"] = schema{"type": "string"}
	props["notes"] = schema{"type": "array", "items": schema{"type": "string"}}
	return schema{"type": "object", "properties": props, "required": []string{"request_id"}}
}

func cannedOutputSchema() schema {
	out := reportOutputSchema()
	out["properties"].(schema)["sections"] = schema{"type": "array", "items": schema{"type": "object", "properties": schema{
		"id": schema{"type": "string"}, "title": schema{"type": "string"},
		"columns": schema{"type": "array", "items": schema{"type": "string"}}, "rows": schema{"type": "array"},
		"total": schema{"type": "array"}, "truncated": schema{"type": "boolean"},
	}}}
	return out
}

func reportOutputSchema() schema {
	return answerSchema(schema{
		"request":   schema{"type": "object"},
		"columns":   schema{"type": "array", "items": schema{"type": "string"}},
		"rows":      schema{"type": "array", "items": schema{"type": "array"}},
		"truncated": schema{"type": "boolean"},
		"metrics": schema{"type": "object", "additionalProperties": schema{"type": "object", "properties": schema{
			"label": schema{"type": "string"}, "unit": schema{"type": "string"}, "definition": schema{"type": "string"},
			"definition_ref": schema{"type": "string"}, "formula": schema{"type": "string"}, "source": schema{"type": "string"},
			"sales_basis": schema{"type": "string"}, "data_through": dataThroughSchema,
		}}},
		"period": schema{"type": "object", "properties": schema{
			"start": schema{"type": "string"}, "end": schema{"type": "string"}, "days": schema{"type": "integer"},
			"time_zone": schema{"type": "string"}, "named": schema{"type": "string"},
		}},
		"data_through":    schema{"type": "object", "additionalProperties": dataThroughSchema},
		"partial":         schema{"type": "boolean"},
		"partial_metrics": schema{"type": "array", "items": schema{"type": "string"}},
		"argument":        schema{"type": "string"},
		"candidates": schema{"type": "array", "items": schema{"type": "object", "properties": schema{
			"agent_key": schema{"type": "string"}, "team_key": schema{"type": "string"}, "name": schema{"type": "string"},
			"team": schema{"type": "string"}, "left_on": schema{"type": "string"},
		}}},
	})
}
