// Package rawjson reads JSON in place, as encoding/json would decode it
// into maps and slices of raw values, without making them: the members of
// an object, the elements of an array, the text of a string.
package rawjson

import "encoding/json"

// Object calls visit with the key, unescaped (see Unquote), and the value
// of each member of a JSON object in turn, in the order written, a
// repeated key as often as it is written; it reports whether obj is an
// object every member of which visit took. obj must be valid JSON
// (json.Valid).
func Object(obj []byte, visit func(key, value []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return false
	}
	for i = skipSpace(obj, i+1); obj[i] != '}'; {
		end := End(obj, i)
		key, _ := Unquote(obj[i:end])
		i = skipSpace(obj, skipSpace(obj, end)+1) // past the colon
		end = End(obj, i)
		if !visit(key, obj[i:end]) {
			return false
		}
		if i = skipSpace(obj, end); obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return true
}

// Array calls visit with each element of a JSON array in turn, and reports
// whether arr is an array every element of which visit took. arr must be
// valid JSON (json.Valid).
func Array(arr []byte, visit func(elem []byte) bool) bool {
	i := skipSpace(arr, 0)
	if i == len(arr) || arr[i] != '[' {
		return false
	}
	for i = skipSpace(arr, i+1); arr[i] != ']'; {
		end := End(arr, i)
		if !visit(arr[i:end]) {
			return false
		}
		if i = skipSpace(arr, end); arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	return true
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
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
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

// Unquote returns the text of a JSON string as encoding/json decodes it
// (invalid UTF-8 replaced, as it replaces it), and whether value is a
// string at all. value is a valid JSON value with no space around it, as
// Object and Array hand values on. Text of printable ASCII with no escapes is value's own
// bytes, not a copy.
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

// skipSpace returns the index of the first byte of data from i on that is
// not JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}
