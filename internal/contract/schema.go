package contract

import (
	"plumbline/catalog"
	"plumbline/reports/grammar"
)

// schema is a JSON Schema, or a part of one.
type schema = map[string]any

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
	maybeDate = orNull(text)
	table     = schema{"type": "array", "items": schema{"type": "array"}}

	dataThroughSchema = grammar.Object(schema{"runs_to": maybeDate, "complete_through": maybeDate}, "runs_to", "complete_through")
	refusalSchema     = grammar.Object(schema{"code": text, "argument": text, "rule": text, "choices": texts}, "code", "rule", "choices")
	echoSchema        = grammar.Object(schema{
		"tool": text,
		"who":  grammar.Object(schema{"kind": text, "key": text, "name": text, "team": text}, "kind", "name"),
		"day":  text, "weeks": whole, "metrics": texts, "group_by": text, "top_n": whole,
		"sort":    grammar.Object(schema{"metric": text, "direction": text}, "metric", "direction"),
		"compact": flag, "compare_counts": flag, "compare_to": text, "cumulative": flag, "rank_by": text,
	}, "tool")
)

// orNull is a value of s or null, as anyOf branches of one type each: a
// type array is less portable (a client that maps schemas onto a
// single-type dialect drops it).
func orNull(s schema) schema { return schema{"anyOf": []any{s, schema{"type": "null"}}} }

func withTitle(title string, s schema) schema {
	s["title"] = title
	return s
}

// answerOf is a tool's output schema: its answer, or (when withCandidates)
// the candidates a name matched, or a refusal.
func answerOf(props schema, required []string, withCandidates bool) schema {
	props["request_id"] = text
	shapes := []any{
		withTitle("answer", grammar.Object(props, append([]string{"request_id"}, required...)...)),
		withTitle("refused", grammar.Object(schema{"request_id": text, "error": refusalSchema}, "request_id", "error")),
	}
	if withCandidates {
		shapes = append(shapes, withTitle("candidates", grammar.Object(schema{
			"request_id": text, "argument": text, "notes": texts, "catalog_version": text,
			"candidates": schema{"type": "array", "items": grammar.Object(schema{
				"agent_key": text, "team_key": text, "name": text, "team": text, "left_on": text,
			}, "name")},
		}, "request_id", "argument", "candidates", "notes", "catalog_version")))
	}
	return schema{"type": "object", "anyOf": shapes}
}

func periodInfoSchema() schema {
	return grammar.Object(schema{"start": text, "end": text, "days": whole, "time_zone": text, "named": text, "asked_end": text}, "start", "end", "days", "time_zone")
}

// governed is what every answer with figures carries beside them.
func governed(props schema) (schema, []string) {
	props["metrics"] = schema{"type": "object", "additionalProperties": grammar.Object(schema{
		"label": text, "unit": schema{"type": "string", "enum": catalog.Units}, "definition": text, "definition_ref": text,
		"formula": text, "source": text, "sales_basis": text, "data_through": dataThroughSchema, "left_out": whole, "partial": flag,
		"target": grammar.Object(schema{
			"period": schema{"type": "string", "enum": []string{catalog.TargetWeek, catalog.TargetMonth, "weeks"}},
			"start":  text, "end": text, "days": whole, "counted_from": maybeDate, "counted_through": maybeDate, "counted_days": whole,
		}, "period", "start", "end", "days", "counted_from", "counted_through", "counted_days"),
	}, "label", "unit", "data_through")}
	props["period"] = periodInfoSchema()
	props["previous_period"] = periodInfoSchema()
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
	props, required := governed(schema{"sections": schema{"type": "array", "items": grammar.Object(schema{
		"id": text, "title": text, "columns": texts, "rows": table, "total": schema{"type": "array"}, "truncated": flag,
	}, "id", "title", "columns", "rows", "truncated")}})
	return answerOf(props, append(required, "sections"), true)
}

func rosterOutputSchema() schema {
	return answerOf(schema{
		"request": echoSchema, "day": text, "time_zone": text, "columns": texts, "rows": table, "truncated": flag,
		"notes": texts, "catalog_version": text,
		"teams": schema{"type": "array", "items": grammar.Object(schema{
			"team": text, "team_name": text, "on_floor": orNull(flag),
			"decided_from": text, "decided_by": text, "reason": text, "agents": whole,
		}, "team", "team_name", "on_floor", "agents")},
	}, []string{"request", "day", "time_zone", "teams", "columns", "rows", "truncated", "notes", "catalog_version"}, true)
}

func peopleOutputSchema() schema {
	return answerOf(schema{
		"people": schema{"type": "array", "items": grammar.Object(schema{
			"agent_key": text, "name": text, "email": text, "team": text, "team_name": text, "hired_on": text, "left_on": text,
		}, "agent_key", "name", "email", "hired_on")},
		"truncated": flag, "notes": texts, "catalog_version": text,
	}, []string{"people", "truncated", "notes", "catalog_version"}, false)
}

func freshnessOutputSchema() schema {
	return answerOf(schema{
		"now": text, "today": text, "time_zone": text, "notes": texts, "catalog_version": text,
		"sources": schema{"type": "object", "additionalProperties": grammar.Object(schema{
			"source": text, "description": text, "refresh": text, "settles": text, "data_through": dataThroughSchema,
			"first_day": maybeDate, "today": text, "metrics": texts,
		}, "source", "description", "refresh", "settles", "data_through", "first_day", "today", "metrics")},
	}, []string{"now", "today", "time_zone", "sources", "notes", "catalog_version"}, false)
}

func definitionsOutputSchema() schema {
	return answerOf(schema{
		"metrics": schema{"type": "object", "additionalProperties": grammar.Object(schema{
			"label": text, "unit": text, "definition": text, "formula": text, "source": text, "grain": text,
			"sales_basis": text, "settles": text, "reports": texts,
		}, "label", "unit", "definition", "formula", "source", "grain", "settles")},
		"bases":           schema{"type": "object", "additionalProperties": grammar.Object(schema{"label": text, "definition": text}, "label", "definition")},
		"standing_notes":  schema{"type": "object", "additionalProperties": text},
		"catalog_version": text, "notes": texts,
	}, []string{"metrics", "bases", "standing_notes", "catalog_version", "notes"}, false)
}

func healthOutputSchema() schema {
	return answerOf(schema{"status": text, "database": text, "catalog_version": text},
		[]string{"status", "database", "catalog_version"}, false)
}
