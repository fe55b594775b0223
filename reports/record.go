package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// loggable rewrites a call's arguments for the log: booleans, numbers,
// dates and the fixed choices of the grammar are kept as given; any other
// string becomes redact(text), and unknown field names are redacted too,
// listed under _unknown_fields. Arguments that are not a JSON object are
// redacted whole. It encodes as it walks the decoded arguments, keys in
// order, with no copy of them.
func (e *Engine) loggable(c *call, raw json.RawMessage) json.RawMessage {
	if a, r := c.arguments(raw); r == nil && len(bytes.TrimSpace(raw)) > 0 {
		return e.appendLoggable(make([]byte, 0, 2*len(raw)), a.Fields())
	}
	return e.appendRedacted(nil, string(raw))
}

func (e *Engine) appendLoggable(b []byte, v any) []byte {
	switch v := v.(type) {
	case map[string]any:
		var room [12]string // as many fields as a tool takes, on the stack
		keys := room[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		n := 0
		for _, k := range keys {
			if !e.words.Field(k) {
				continue
			}
			if n++; n > 1 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = e.appendLoggable(append(b, ':'), v[k])
		}
		unknown := slices.DeleteFunc(keys, e.words.Field)
		if len(unknown) > 0 {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `"_unknown_fields":[`...)
			for i, k := range unknown {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.appendRedacted(b, k)
			}
			b = append(b, ']')
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendLoggable(b, x)
		}
		return append(b, ']')
	case string:
		if e.words.Value(v) {
			return appendString(b, v)
		}
		return e.appendRedacted(b, v)
	case json.Number:
		// A number goes as given when it is a plain one; one PostgreSQL's
		// jsonb cannot hold (1e999999, thousands of digits) is free text.
		if len(v) <= maxLoggedNumber {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil && !math.IsInf(f, 0) {
				return append(b, v...)
			}
		}
		return e.appendRedacted(b, string(v))
	case bool:
		return strconv.AppendBool(b, v)
	default:
		return append(b, "null"...)
	}
}

// maxLoggedNumber is the longest number the log keeps as given.
const maxLoggedNumber = 32

// appendRedacted appends how free text appears in the log.
func (e *Engine) appendRedacted(b []byte, text string) []byte {
	out, _ := json.Marshal(e.opts.Redact(text))
	return append(b, out...)
}

// appendString appends s as a JSON string: as it is when it needs no
// escaping, as encoding/json writes it otherwise.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
