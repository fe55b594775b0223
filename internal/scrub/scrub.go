package scrub

import (
	"bytes"
	"encoding/json"
)

// MinRun is the shortest run of digits that is cut; Keep is how many of its
// last digits stay.
const (
	MinRun = 7
	Keep   = 4
)

// JSON cuts every run of MinRun or more digits in the strings of a JSON
// document (object keys included) to its last Keep digits, except where the
// run lies inside one of the tokens keep (identifiers of plumbline's own,
// such as a request id, that must survive whole). Numbers are left alone: a
// number plumbline sends is a figure summed from reviewed numeric columns,
// and cutting it would falsify it without a trace. The document must be
// valid JSON, as encoding/json writes it.
func JSON(doc []byte, keep ...string) []byte {
	if !hasRun(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc))
	for i := 0; i < len(doc); {
		if doc[i] != '"' {
			out = append(out, doc[i])
			i++
			continue
		}
		end := stringEnd(doc, i+1)
		out = append(out, '"')
		out = text(out, doc[i+1:end], keep, true)
		out = append(out, '"')
		i = end + 1
	}
	return out
}

// stringEnd returns the index of the quote that closes the JSON string
// whose contents start at i.
func stringEnd(doc []byte, i int) int {
	for ; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(doc)
}

// String cuts every run of MinRun or more digits in a plain string to its
// last Keep digits, except inside the tokens keep, as JSON does for the
// strings of a document.
func String(s string, keep ...string) string {
	if !hasRun([]byte(s)) {
		return s
	}
	return string(text(make([]byte, 0, len(s)), []byte(s), keep, false))
}

// text appends s to out with its long digit runs cut. In JSON string
// contents (escaped), the hex digits of a \uXXXX escape never join a run.
func text(out, s []byte, keep []string, escaped bool) []byte {
	kept := keptSpans(s, keep)
	for i := 0; i < len(s); {
		switch {
		case escaped && s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u':
			out = append(out, s[i:i+6]...)
			i += 6
		case escaped && s[i] == '\\' && i+1 < len(s):
			out = append(out, s[i:i+2]...)
			i += 2
		case isDigit(s[i]):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j-i >= MinRun && !covered(kept, i, j) {
				out = append(out, s[j-Keep:j]...)
			} else {
				out = append(out, s[i:j]...)
			}
			i = j
		default:
			out = append(out, s[i])
			i++
		}
	}
	return out
}

// keptSpans returns where the keep tokens occur in s.
func keptSpans(s []byte, keep []string) [][2]int {
	var spans [][2]int
	for _, k := range keep {
		if k == "" {
			continue
		}
		for from := 0; ; {
			at := bytes.Index(s[from:], []byte(k))
			if at < 0 {
				break
			}
			spans = append(spans, [2]int{from + at, from + at + len(k)})
			from += at + 1
		}
	}
	return spans
}

func covered(spans [][2]int, i, j int) bool {
	for _, sp := range spans {
		if sp[0] <= i && j <= sp[1] {
			return true
		}
	}
	return false
}

// hasRun reports whether b holds a run of MinRun digits anywhere: the fast
// path, for the usual answer that holds none.
func hasRun(b []byte) bool {
	n := 0
	for _, c := range b {
		if isDigit(c) {
			if n++; n >= MinRun {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Value cuts the long digit runs of every string in v, a value as
// encoding/json decodes one (a string, a number, a bool, nil, or []any and
// map[string]any of those, whose keys are strings too) or a JSON text
// (json.RawMessage, cut as JSON cuts it), except inside the tokens keep,
// and leaves every number alone. It changes v's slices and maps in place
// (two keys that differ only in the digits cut become one) and returns v,
// with how many strings it cut (for a JSON text, one if any).
func Value(v any, keep ...string) (any, int) {
	switch v := v.(type) {
	case json.RawMessage:
		if s := JSON(v, keep...); !bytes.Equal(s, v) {
			return json.RawMessage(s), 1
		}
	case string:
		if s := String(v, keep...); s != v {
			return s, 1
		}
	case []any:
		cut := 0
		for i, x := range v {
			var n int
			v[i], n = Value(x, keep...)
			cut += n
		}
		return v, cut
	case map[string]any:
		cut := 0
		renamed := map[string]string{}
		for k, x := range v {
			var n int
			v[k], n = Value(x, keep...)
			cut += n
			if s := String(k, keep...); s != k {
				renamed[k] = s
			}
		}
		for k, s := range renamed {
			v[s] = v[k]
			delete(v, k)
		}
		return v, cut + len(renamed)
	}
	return v, 0
}
