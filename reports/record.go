package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"plumbline/reports/rawjson"
)

// loggable rewrites a call's arguments for the log: booleans, numbers,
// dates and the fixed choices of the grammar are kept as given; any other
// string becomes redact(text), and unknown field names are redacted too,
// listed under _unknown_fields. Arguments that are not a JSON object are
// redacted whole. It encodes as it walks the arguments as written, keys in
// order (a key given twice as it was given last), with no copy of them.
func (e *Engine) loggable(c *call, raw json.RawMessage) json.RawMessage {
	if a, r := c.arguments(raw); r == nil && len(bytes.TrimSpace(raw)) > 0 {
		x := rawjson.NewIndex(a.Object())
		return e.appendLoggable(make([]byte, 0, 2*len(raw)), &x, 0)
	}
	return e.appendRedacted(nil, string(raw))
}

// member is one field of an object, as the log walks it: its key and
// where its value starts.
type member struct {
	key []byte
	at  int
}

// appendLoggable appends the log's form of the value at x.Text[at].
func (e *Engine) appendLoggable(b []byte, x *rawjson.Index, at int) []byte {
	switch v := x.Text[at:x.End(at)]; v[0] {
	case '{':
		var room [12]member // as many fields as a tool takes, on the stack
		fields := room[:0]
		x.Object(at, func(key []byte, at int) bool {
			fields = append(fields, member{key, at})
			return true
		})
		// In order of their keys; of a key given twice, the value given
		// last.
		slices.SortStableFunc(fields, func(x, y member) int { return bytes.Compare(x.key, y.key) })
		kept := fields[:0]
		for i, f := range fields {
			if i+1 == len(fields) || !bytes.Equal(f.key, fields[i+1].key) {
				kept = append(kept, f)
			}
		}
		b = append(b, '{')
		n := 0
		for _, f := range kept {
			if !e.words.Field(string(f.key)) {
				continue
			}
			if n++; n > 1 {
				b = append(b, ',')
			}
			b = appendString(b, f.key)
			b = e.appendLoggable(append(b, ':'), x, f.at)
		}
		unknown := slices.DeleteFunc(kept, func(f member) bool { return e.words.Field(string(f.key)) })
		if len(unknown) > 0 {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `"_unknown_fields":[`...)
			for i, f := range unknown {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.appendRedacted(b, string(f.key))
			}
			b = append(b, ']')
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		n := 0
		x.Array(at, func(at int) bool {
			if n++; n > 1 {
				b = append(b, ',')
			}
			b = e.appendLoggable(b, x, at)
			return true
		})
		return append(b, ']')
	case '"':
		text, _ := rawjson.Unquote(v)
		if e.words.Value(text) {
			return appendString(b, text)
		}
		return e.appendRedacted(b, string(text))
	case 't', 'f':
		return append(b, v...)
	case 'n':
		return append(b, "null"...)
	default:
		// A number goes as given when it is a plain one; one PostgreSQL's
		// jsonb cannot hold (1e999999, thousands of digits) is free text.
		if len(v) <= maxLoggedNumber {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil && !math.IsInf(f, 0) {
				return append(b, v...)
			}
		}
		return e.appendRedacted(b, string(v))
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
func appendString(b, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(string(s))
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
