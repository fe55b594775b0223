package analyst

import (
	"fmt"
	"strings"

	"plumbline/internal/contract"
	"plumbline/internal/sqlcheck"
)

// This file describes the door as an MCP tool.

// ToolName is the analyst's door's tool.
const ToolName = "sql"

// Tool describes the sql tool: its description names the reports to use
// first and every relation and column the analyst may read.
func (d *Door) Tool() contract.Tool {
	return contract.Tool{
		Name:         ToolName,
		Title:        "SQL (analyst's door)",
		Description:  d.description(),
		InputSchema:  inputSchema(),
		OutputSchema: outputSchema(),
	}
}

func (d *Door) description() string {
	var b strings.Builder
	b.WriteString("Run one read-only SELECT of your own over the analyst's allow-list, for a question no report answers. ")
	if len(d.opts.Reports) > 0 {
		var names []string
		for _, t := range d.opts.Reports {
			names = append(names, t.Name)
		}
		b.WriteString("Use the reports first for any question they cover: " + strings.Join(names, ", ") +
			"; their figures carry governed definitions, counting bases and how far the data runs, and these do not. ")
	}
	fmt.Fprintf(&b, "The statement is parsed by PostgreSQL's parser and must be exactly one SELECT (WITH queries that only read are fine; "+
		"no writes, SELECT INTO, locks, parameters, utility commands or system catalogues), naming relations as schema.relation "+
		"and calling only safe built-in functions. It runs read-only as the analyst role, with a %s timeout, in the %s time zone. "+
		"Rows come %d a page (page_size at most %d, offset from next_offset; has_more says whether there are more): "+
		"aggregate in SQL rather than paging through raw rows. Pages are ordered by your ORDER BY and then by every column, "+
		"so each row comes exactly once; select a column of a type PostgreSQL cannot order (json, xml) as text. "+
		"A value may hold at most %s and a page's rows %s: select part of a long text (left(column, n)), not all of it. "+
		"Every statement is audited. Every answer is labelled verified: false: state your assumptions on the first line of anything you write from it. ",
		d.opts.StatementTimeout, d.opts.TimeZone, MaxPageSize, MaxPageSize, kib(d.opts.ValueBytes), kib(d.opts.PageBytes))
	b.WriteString("Relations and their columns: ")
	for i, g := range d.grants {
		if i > 0 {
			b.WriteString("; ")
		}
		var cols []string
		for _, c := range d.columns[g.Relation] {
			cols = append(cols, c.Name+" "+c.Type)
		}
		fmt.Fprintf(&b, "%s (one row per %s: %s)", g.Relation, g.Grain, strings.Join(cols, ", "))
	}
	b.WriteString(".")
	return b.String()
}

type schema = map[string]any

func inputSchema() schema {
	return schema{"type": "object", "additionalProperties": false, "required": []string{"sql"}, "properties": schema{
		"sql": schema{"type": "string", "minLength": 1, "maxLength": sqlcheck.MaxBytes,
			"description": "one SELECT statement, relations named as schema.relation"},
		"page_size": schema{"type": "integer", "minimum": 1, "default": MaxPageSize,
			"description": fmt.Sprintf("rows per page; more than %d is taken as %d", MaxPageSize, MaxPageSize)},
		"offset": schema{"type": "integer", "minimum": 0, "maximum": MaxOffset, "default": 0,
			"description": "rows to skip: 0, or the next_offset of the page before"},
	}}
}

func outputSchema() schema {
	str := schema{"type": "string"}
	strs := schema{"type": "array", "items": str}
	return schema{"type": "object", "additionalProperties": false, "required": []string{"request_id", "verified"}, "properties": schema{
		"request_id":   str,
		"verified":     schema{"type": "boolean", "const": false},
		"columns":      strs,
		"column_types": strs,
		"rows":         schema{"type": "array", "items": schema{"type": "array"}},
		"offset":       schema{"type": "integer", "minimum": 0},
		"page_size":    schema{"type": "integer", "minimum": 1, "maximum": MaxPageSize},
		"has_more":     schema{"type": "boolean"},
		"next_offset":  schema{"type": []string{"integer", "null"}},
		"relations":    strs,
		"fingerprint":  str,
		"notes":        strs,
		"statement": schema{"type": "object", "additionalProperties": false, "properties": schema{
			"role": str, "statement_timeout": str, "time_zone": str}},
		"error": schema{"type": "object", "additionalProperties": false, "required": []string{"code", "rule", "choices"}, "properties": schema{
			"code": str, "argument": str, "rule": str, "choices": strs, "check": str,
			"position": schema{"type": "integer", "minimum": 1}, "sqlstate": str}},
	}}
}
