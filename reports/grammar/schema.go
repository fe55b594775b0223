package grammar

import (
	"strconv"

	"plumbline/catalog"
)

// This file writes each tool's input JSON Schema. The grammar lives here,
// in the schema a client reads, and is enforced again by the decoder in
// request.go.

type schema = map[string]any

// Object is a closed JSON Schema object: these properties and no other,
// the required ones named. Every object of plumbline's schemas is one, a
// tool's input and its output alike.
func Object(props map[string]any, required ...string) map[string]any {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func enum(description string, values []string) schema {
	s := schema{"type": "string", "enum": values}
	if description != "" {
		s["description"] = description
	}
	return s
}

// dateSchema is a day, YYYY-MM-DD; description, if any, says which.
func dateSchema(description string) schema {
	s := schema{"type": "string", "format": "date"}
	if description != "" {
		s["description"] = description
	}
	return s
}

// exactlyOne makes an object take exactly one of its properties: the
// shapes of an argument, each property written once.
func exactlyOne(s schema) schema {
	s["minProperties"], s["maxProperties"] = 1, 1
	return s
}

// oneOfWho is the who argument, one of floor, team and (withAgent) agent.
func oneOfWho(withAgent bool) schema {
	name := schema{"type": "string", "minLength": 1, "maxLength": MaxNameLength}
	props := schema{"floor": schema{"type": "boolean", "const": true}, "team": name}
	description := "team: key or name"
	if withAgent {
		props["agent"] = name
		description += "; agent: agent_key, name or email"
	}
	return withDescription(description, exactlyOne(Object(props)))
}

// MaxRangeMonths bounds a range whose answer has no rows by day: it may
// run to this many months (rows by day hold at most the catalogue's
// max_days).
const MaxRangeMonths = 24

func periodSchema(cat *catalog.Catalog) schema {
	return schema{
		"description": cat.Zone().String() + " days; end inclusive; a range at most " + strconv.Itoa(MaxRangeMonths) + " months, " +
			strconv.Itoa(cat.Limits().MaxDays) + " days by day; " +
			"weeks start " + cat.WeekStart().String(),
		"type": "object", "additionalProperties": false,
		"properties": schema{"named": enum("", cat.PeriodNames()), "day": dateSchema(""), "week": dateSchema(""), "start": dateSchema(""), "end": dateSchema("")},
		// One shape each: the shapes' fields never mix, so anyOf (which
		// more clients read than oneOf) says it exactly.
		"anyOf": []any{shape("named"), shape("day"), shape("week"), shape("start", "end")},
	}
}

// shape is one shape of an object argument: these fields and no other.
func shape(fields ...string) schema {
	return schema{"required": fields, "maxProperties": len(fields)}
}

func withDescription(description string, s schema) schema {
	s["description"] = description
	return s
}

// Arguments every tool with figures shares.
var (
	compactSchema = schema{"type": "boolean", "description": "omit definitions and notes already read"}
	knownSchema   = schema{"type": "string", "maxLength": MaxVersionLength, "description": "catalog_version already read"}
)

// sortSchema orders groups by one of the metrics ids.
func sortSchema(ids []string) schema {
	return Object(schema{"metric": enum("", ids), "direction": schema{"type": "string", "enum": []string{"desc", "asc"}, "default": "desc"}}, "metric")
}

// reportInputSchema is the grammar every report tool takes.
func reportInputSchema(cat *catalog.Catalog, rep *catalog.Report) schema {
	ids := rep.MetricIDs()
	props := schema{
		ArgWho:    oneOfWho(true),
		ArgPeriod: periodSchema(cat),
		ArgMetrics: schema{"type": "array", "items": enum("", ids), "minItems": 1, "maxItems": len(ids), "uniqueItems": true,
			"description": "default " + joinIDs(rep.Defaults)},
		ArgGroupBy:          enum("", rep.GroupBy),
		ArgTopN:             schema{"type": "integer", "minimum": 1, "maximum": cat.Limits().MaxRows},
		ArgSort:             sortSchema(ids),
		ArgCompact:          compactSchema,
		ArgKnownDefinitions: knownSchema,
		ArgCompareTo:        enum("", reportCompareChoices),
		ArgCumulative:       schema{"type": "boolean"},
	}
	if takesCompareCounts(rep) {
		props[ArgCompareCounts] = schema{"type": "boolean", "description": "each counting basis side by side"}
	}
	return Object(props, ArgPeriod)
}

// CountedSums returns a report's count metrics that carry a counting basis,
// one per basis, in report order: what compare_counts sets side by side.
func CountedSums(rep *catalog.Report) []*catalog.Metric {
	var out []*catalog.Metric
	seen := map[*catalog.Basis]bool{}
	for _, m := range rep.Metrics {
		if m.Basis != nil && !m.IsRatio() && m.Unit == catalog.UnitCount && !seen[m.Basis] {
			seen[m.Basis] = true
			out = append(out, m)
		}
	}
	return out
}

// takesCompareCounts reports whether a report tool takes compare_counts:
// only when its report counts on several bases.
func takesCompareCounts(rep *catalog.Report) bool { return len(CountedSums(rep)) > 1 }

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
