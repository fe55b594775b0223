package scrub

import (
	"bytes"
	"encoding/json"

	"plumbline/reports/rawjson"
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
// valid JSON, as encoding/json writes it. A document with nothing to cut
// is returned as it is, not copied.
func JSON(doc []byte, keep ...string) []byte {
	var out []byte
	done := 0 // doc[:done] is in out
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end := rawjson.StringEnd(doc, i+1)
		s := doc[i+1 : end]
		for at, to := nextCut(s, 0, keep, true); at >= 0; at, to = nextCut(s, to, keep, true) {
			if out == nil {
				out = make([]byte, 0, len(doc))
			}
			out = append(append(out, doc[done:i+1+at]...), s[to-Keep:to]...)
			done = i + 1 + to
		}
		i = end
	}
	if out == nil {
		return doc
	}
	return append(out, doc[done:]...)
}

// String cuts every run of MinRun or more digits in a plain string to its
// last Keep digits, except inside the tokens keep, as JSON does for the
// strings of a document. A string with nothing to cut is returned as it is.
func String(s string, keep ...string) string {
	var out []byte
	done := 0 // s[:done] is in out
	for at, to := nextCut(s, 0, keep, false); at >= 0; at, to = nextCut(s, to, keep, false) {
		if out == nil {
			out = make([]byte, 0, len(s))
		}
		out = append(append(out, s[done:at]...), s[to-Keep:to]...)
		done = to
	}
	if out == nil {
		return s
	}
	return string(append(out, s[done:]...))
}

// nextCut returns where the next run of digits in s to cut, from from on,
// begins and ends, or -1, -1 if there is none. In JSON string contents
// (escaped), the hex digits of a \uXXXX escape never join a run.
func nextCut[T string | []byte](s T, from int, keep []string, escaped bool) (int, int) {
	for i := from; i < len(s); {
		switch {
		case escaped && s[i] == '\\' && i+5 < len(s) && s[i+1] == 'u':
			i += 6
		case escaped && s[i] == '\\' && i+1 < len(s):
			i += 2
		case isDigit(s[i]):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j-i >= MinRun && !kept(s, i, j, keep) {
				return i, j
			}
			i = j
		default:
			i++
		}
	}
	return -1, -1
}

// kept reports whether s[i:j] lies inside an occurrence in s of one of the
// tokens keep.
func kept[T string | []byte](s T, i, j int, keep []string) bool {
	for _, k := range keep {
		for p := max(0, j-len(k)); p <= i && p+len(k) <= len(s); p++ {
			if string(s[p:p+len(k)]) == k {
				return true
			}
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
