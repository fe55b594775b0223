package analyst

import (
	"bytes"
	"encoding/json"
	"fmt"

	"plumbline/internal/sqlcheck"
	"plumbline/reports/ask"
)

// This file holds the door's arguments and answers.

// Refusal is the door's teaching error: the shape of every plumbline
// refusal (ask.Refusal), plus what a statement needs: the check it
// broke, the position in it, and PostgreSQL's SQLSTATE when the database
// refused it. It never carries the caller's text.
type Refusal struct {
	Code     string   `json:"code"`
	Argument string   `json:"argument,omitempty"`
	Rule     string   `json:"rule"`
	Choices  []string `json:"choices"`
	Check    string   `json:"check,omitempty"`
	Position int      `json:"position,omitempty"`
	SQLState string   `json:"sqlstate,omitempty"`
}

// RefusalAnswer is a refused call's answer.
type RefusalAnswer struct {
	RequestID string   `json:"request_id"`
	Verified  bool     `json:"verified"`
	Error     *Refusal `json:"error"`
}

// PageAnswer is one page of a statement's rows.
type PageAnswer struct {
	RequestID string `json:"request_id"`
	// Verified is always false: the figures are the agent's SQL, not
	// plumbline's governed definitions.
	Verified bool `json:"verified"`
	// Columns name the columns, as every plumbline answer does; Types are
	// their PostgreSQL types, in the same order.
	Columns     []string    `json:"columns"`
	Types       []string    `json:"column_types"`
	Rows        [][]any     `json:"rows"`
	Offset      int         `json:"offset"`
	PageSize    int         `json:"page_size"`
	HasMore     bool        `json:"has_more"`
	NextOffset  *int        `json:"next_offset"`
	Relations   []string    `json:"relations"`
	Fingerprint string      `json:"fingerprint"`
	Notes       []string    `json:"notes"`
	Statement   StatementAt `json:"statement"`
}

// StatementAt says how the statement ran.
type StatementAt struct {
	Role             string `json:"role"`
	StatementTimeout string `json:"statement_timeout"`
	TimeZone         string `json:"time_zone"`
}

// unverified is the note every answer carries first.
const unverified = "Not verified: these figures come from SQL you wrote, not from plumbline's governed definitions, " +
	"so nothing checks what they count. On the first line of anything you write from them, state your assumptions: " +
	"what the statement counts, over which rows, days and time zone, and how it differs from the reports' definitions."

// arguments are a call's arguments.
type arguments struct {
	SQL      string
	PageSize int
	Offset   int
	Clamped  bool // page_size asked for more than MaxPageSize
}

// decode reads a call's arguments. It returns nil arguments when there is
// no statement; otherwise the arguments, and a refusal for anything else
// wrong with them.
func decode(raw json.RawMessage) (*arguments, *Refusal) {
	var fields map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, invalid("arguments", "must be a JSON object: sql, and optionally page_size and offset.", "sql", "page_size", "offset")
	}
	a := &arguments{PageSize: MaxPageSize}
	if err := json.Unmarshal(fields["sql"], &a.SQL); err != nil || fields["sql"] == nil {
		return nil, invalid("sql", "is required: one SELECT statement, as a string.")
	}
	for name := range fields {
		switch name {
		case "sql", "page_size", "offset":
		default:
			return a, invalid("arguments", "has a field the sql tool does not take; its fields are sql, page_size and offset.", "sql", "page_size", "offset")
		}
	}
	if v, ok := fields["page_size"]; ok {
		n, ok := integer(v)
		switch {
		case !ok || n < 1:
			return a, invalid("page_size", fmt.Sprintf("must be a whole number from 1 to %d.", MaxPageSize))
		case n > MaxPageSize:
			a.Clamped = true
		default:
			a.PageSize = int(n)
		}
	}
	if v, ok := fields["offset"]; ok {
		n, ok := integer(v)
		if !ok || n < 0 || n > MaxOffset {
			return a, invalid("offset", fmt.Sprintf("must be a whole number from 0 to %d: the next_offset of the page before.", MaxOffset))
		}
		a.Offset = int(n)
	}
	return a, nil
}

// integer reads a JSON whole number.
func integer(raw json.RawMessage) (int64, bool) {
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func invalid(argument, rule string, choices ...string) *Refusal {
	return &Refusal{Code: ask.CodeInvalidArgument, Argument: argument, Rule: rule, Choices: nonNil(choices)}
}

// statementRefusal is the door's answer to a statement the check refused.
func statementRefusal(r *sqlcheck.Refusal) *Refusal {
	return &Refusal{Code: ask.CodeInvalidArgument, Argument: "sql", Rule: r.Rule, Choices: nonNil(r.Choices),
		Check: r.Check, Position: r.Position}
}
