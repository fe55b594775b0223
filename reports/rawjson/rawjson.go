package rawjson

import (
	"encoding/json"
	"slices"
)

// Object calls visit with the key, unescaped (see Unquote), and the value
// of each member of a JSON object in turn, in the order written, a
// repeated key as often as it is written; it reports whether obj is an
// object every member of which visit took. obj must be valid JSON
// (json.Valid).
//
// Finding where each value ends reads it: reading values nested in values
// this way reads a value again for every value it is in. An Index reads
// the text once, however deep its values nest.
func Object(obj []byte, visit func(key, value []byte) bool) bool {
	return members(obj, skipSpace(obj, 0), func(i int) int { return End(obj, i) }, func(key []byte, at, end int) bool {
		return visit(key, obj[at:end])
	})
}

// Array calls visit with each element of a JSON array in turn, and reports
// whether arr is an array every element of which visit took. arr must be
// valid JSON (json.Valid). Like Object, it reads each element to find its
// end.
func Array(arr []byte, visit func(elem []byte) bool) bool {
	return elements(arr, skipSpace(arr, 0), func(i int) int { return End(arr, i) }, func(at, end int) bool {
		return visit(arr[at:end])
	})
}

// members calls visit with the key and the bounds of the value of each
// member of the object at text[i], finding where values end with end.
func members(text []byte, i int, end func(int) int, visit func(key []byte, at, end int) bool) bool {
	if i == len(text) || text[i] != '{' {
		return false
	}
	for i = skipSpace(text, i+1); i < len(text) && text[i] != '}'; {
		keyEnd := End(text, i)
		key, _ := Unquote(text[i:keyEnd])
		if i = skipSpace(text, skipSpace(text, keyEnd)+1); i >= len(text) { // past the colon
			return false
		}
		valueEnd := end(i)
		if valueEnd <= i || !visit(key, i, valueEnd) {
			return false
		}
		if i = skipSpace(text, valueEnd); i < len(text) && text[i] == ',' {
			i = skipSpace(text, i+1)
		}
	}
	// Text that is not valid JSON ends here, not past its end.
	return i < len(text)
}

// elements calls visit with the bounds of each element of the array at
// text[i], finding where they end with end.
func elements(text []byte, i int, end func(int) int, visit func(at, end int) bool) bool {
	if i == len(text) || text[i] != '[' {
		return false
	}
	for i = skipSpace(text, i+1); i < len(text) && text[i] != ']'; {
		valueEnd := end(i)
		if valueEnd <= i || !visit(i, valueEnd) {
			return false
		}
		if i = skipSpace(text, valueEnd); i < len(text) && text[i] == ',' {
			i = skipSpace(text, i+1)
		}
	}
	return i < len(text)
}

// An Index is a valid JSON text with where each of its objects and arrays
// ends found in one reading, so that reading its values in place, nested
// however deep, reads the text once. Values are named by where they start
// in the text.
type Index struct {
	Text  []byte
	opens []int // where each object and array starts, in order
	ends  []int // and where it ends
}

// NewIndex reads a valid JSON text (json.Valid) for its objects and
// arrays.
func NewIndex(text []byte) Index {
	n := 0
	forEachBracket(text, func(int) { n++ })
	room := make([]int, 3*n) // opens, ends, and the stack of those open
	x := Index{Text: text, opens: room[:0:n], ends: room[n : 2*n : 2*n]}
	open := room[2*n : 2*n]
	forEachBracket(text, func(i int) {
		if c := text[i]; c == '{' || c == '[' {
			open = append(open, len(x.opens))
			x.opens = append(x.opens, i)
			return
		}
		x.ends[open[len(open)-1]] = i + 1
		open = open[:len(open)-1]
	})
	return x
}

// forEachBracket calls f with the index of each bracket or brace of a
// valid JSON text, those in strings left out.
func forEachBracket(text []byte, f func(int)) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = StringEnd(text, i+1)
		case '{', '[', '}', ']':
			f(i)
		}
	}
}

// End returns where the value that starts at Text[i] ends.
func (x *Index) End(i int) int {
	if c := x.Text[i]; c != '{' && c != '[' {
		return End(x.Text, i)
	}
	k, _ := slices.BinarySearch(x.opens, i)
	return x.ends[k]
}

// Object is Object for the object at Text[i], each value named by where it
// starts.
func (x *Index) Object(i int, visit func(key []byte, at int) bool) bool {
	return members(x.Text, i, x.End, func(key []byte, at, _ int) bool { return visit(key, at) })
}

// Array is Array for the array at Text[i], each element named by where it
// starts.
func (x *Index) Array(i int, visit func(at int) bool) bool {
	return elements(x.Text, i, x.End, func(at, _ int) bool { return visit(at) })
}

// LeadingObject returns the JSON object data begins with, after any white
// space, as a json.Decoder reads it, which stops at its closing brace; nil
// if data does not begin with a whole, valid object.
func LeadingObject(data []byte) []byte {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return nil
	}
	if obj := data[i:End(data, i)]; json.Valid(obj) {
		return obj
	}
	return nil
}

// End returns the index just past the JSON value that starts at data[i],
// if it is valid: where its closing quote or bracket is, or where the
// first byte that cannot continue a number or literal is.
func End(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = StringEnd(data, i+1)
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // a number or literal, at the end of its object or array
			}
			depth--
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		default:
			continue
		}
		if depth == 0 {
			return min(i+1, len(data))
		}
	}
	return len(data)
}

// StringEnd returns the index of the quote that closes the JSON string
// whose contents start at data[i], or len(data) if none does.
func StringEnd(data []byte, i int) int {
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data)
}

// Unquote returns the text of a JSON string as encoding/json decodes it
// (invalid UTF-8 replaced, as it replaces it), and whether value is a
// string at all. value is a valid JSON value with no space around it, as
// Object and Array hand values on. Text of printable ASCII with no escapes
// is value's own bytes, not a copy.
func Unquote(value []byte) ([]byte, bool) {
	if len(value) < 2 || value[0] != '"' {
		return nil, false
	}
	text := value[1 : len(value)-1]
	for _, c := range text {
		if c < 0x20 || c > 0x7e || c == '\\' {
			var s string
			err := json.Unmarshal(value, &s)
			return []byte(s), err == nil
		}
	}
	return text, true
}

// Choice returns the one of choices a JSON value is, if it is a string
// among them.
func Choice(value []byte, choices []string) (string, bool) {
	if text, isString := Unquote(value); isString {
		for _, c := range choices {
			if string(text) == c {
				return c, true
			}
		}
	}
	return "", false
}

// skipSpace returns the index of the first byte of data from i on that is
// not JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
