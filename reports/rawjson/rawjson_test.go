package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Each reader reads as encoding/json decodes: an object's members as into
// a map of raw values (the same keys, unescaped, the last of a repeated
// key counting), an array's elements as into a slice of them, a string's
// text as into a string, and the object data begins with as a
// json.Decoder reads it; anything else is not one.
func FuzzReadsAsEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sales","arguments":{"who":{"floor":true}}}}`,
		` { "a" : 1 , "b" :[1, {"c":"]}"}, "x\"y"] ,"c":-1.5e3}  `,
		`{"a":1,"a":"two","b":null,"a":{"z":[]}}`,
		`{"json\u0072pc":"2.0","\u00e9t\u00e9":true,"\ud800":false,"\\":"\\\"", "caf` + "\xe9" + `":1}`,
		`{"n":0}`, `{"t":true,"f":false}`, `{"s":"a,b}c]"}`, `{}`, ` {} `, `{"a":1}x`, `{"a":1} {`, `{"a":1}}`, "\t{\"a\":[]}\n",
		`[]`, `[1, "two" ,{"a":[3]}, null,true]`, `[{"a":1}]`, `null`, `"x"`, `"a\u00e9\n"`, "\"\xff\"", `1`, `1x`, `{"a":`, `{"a":"}`, ``, "\v{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)

		var object map[string]json.RawMessage
		isObject := json.Unmarshal(data, &object) == nil && object != nil
		members := map[string]json.RawMessage{}
		if got := valid && Object(data, func(key, value []byte) bool {
			members[string(key)] = value
			return true
		}); got != isObject || got && fmt.Sprint(members) != fmt.Sprint(object) {
			t.Errorf("%q: Object read %v %q; json.Unmarshal %v %q", data, got, members, isObject, object)
		}

		var array []json.RawMessage
		isArray := json.Unmarshal(data, &array) == nil && array != nil
		var elems []json.RawMessage
		if got := valid && Array(data, func(elem []byte) bool {
			elems = append(elems, elem)
			return true
		}); got != isArray || got && fmt.Sprint(elems) != fmt.Sprint(array) {
			t.Errorf("%q: Array read %v %q; json.Unmarshal %v %q", data, got, elems, isArray, array)
		}

		var s string
		value := bytes.Trim(data, " \t\r\n") // as Object and Array hand values on
		isString := json.Unmarshal(data, &s) == nil && bytes.HasPrefix(value, []byte(`"`))
		if text, got := Unquote(value); valid && (got != isString || got && string(text) != s) {
			t.Errorf("%q: Unquote read %v %q; json.Unmarshal %v %q", data, got, text, isString, s)
		}

		if valid {
			if got, want := walkIndex(ptr(NewIndex(bytes.Trim(data, " \t\r\n"))), 0), walk(value); got != want {
				t.Errorf("%q: through an Index, read %s; through Object and Array, %s", data, got, want)
			}
		}

		dec := json.NewDecoder(bytes.NewReader(data))
		var first json.RawMessage
		decoded := dec.Decode(&first) == nil && first[0] == '{'
		if got := LeadingObject(data); (got != nil) != decoded || decoded && !bytes.Equal(got, first) {
			t.Errorf("%q: LeadingObject read %q; a json.Decoder %v %q", data, got, decoded, first)
		}
	})
}

// walk writes out every value within v as Object and Array read them.
func walk(v []byte) string {
	var b strings.Builder
	switch v[0] {
	case '{':
		Object(v, func(key, value []byte) bool {
			fmt.Fprintf(&b, "%q:%s;", key, walk(value))
			return true
		})
	case '[':
		Array(v, func(elem []byte) bool {
			fmt.Fprintf(&b, "%s;", walk(elem))
			return true
		})
	}
	return fmt.Sprintf("%s(%s)", v, b.String())
}

// walkIndex is walk through an Index.
func walkIndex(x *Index, at int) string {
	var b strings.Builder
	switch x.Text[at] {
	case '{':
		x.Object(at, func(key []byte, at int) bool {
			fmt.Fprintf(&b, "%q:%s;", key, walkIndex(x, at))
			return true
		})
	case '[':
		x.Array(at, func(at int) bool {
			fmt.Fprintf(&b, "%s;", walkIndex(x, at))
			return true
		})
	}
	return fmt.Sprintf("%s(%s)", x.Text[at:x.End(at)], b.String())
}

// Reading values nested deep through an Index finds every one of them.
func TestIndexReadsDeepValues(t *testing.T) {
	const depth = 10000
	if got := readDeep(deepText(depth)); got != depth+1 {
		t.Fatalf("read %d objects, want %d", got, depth+1)
	}
}

// Reading values nested deep through an Index reads the text about once,
// not once for every value a value is in: the time a byte takes stays flat
// as the nesting deepens (encoding/json's decoding is linear too).
func BenchmarkIndexDeepValues(b *testing.B) {
	for _, depth := range []int{100, 1000, 10000} {
		text := deepText(depth)
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				readDeep(text)
			}
		})
	}
}

// deepText is depth objects, each beside a short string and holding the
// next in an array.
func deepText(depth int) []byte {
	return []byte(strings.Repeat(`{"b":"`+strings.Repeat("x", 100)+`","a":[`, depth) + "1" + strings.Repeat("]}", depth))
}

// readDeep reads deepText's objects through an Index and counts them.
func readDeep(text []byte) int {
	x := ptr(NewIndex(text))
	values := 0
	var read func(at int)
	read = func(at int) {
		values++
		x.Object(at, func(key []byte, at int) bool {
			if string(key) == "a" {
				x.Array(at, func(at int) bool { read(at); return true })
			}
			return true
		})
	}
	read(0)
	return values
}

func ptr[T any](v T) *T { return &v }

// Object and Array, given text that is not valid JSON, which their callers
// check first, say it is not an object or an array rather than run off its
// end or loop.
func TestInvalidTextIsNeitherObjectNorArray(t *testing.T) {
	for _, text := range []string{`{`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `[`, `[1`, `[1,`, `[}]`, `[1}`, `{"a":}`, `{"a":]}`} {
		if Object([]byte(text), func(_, _ []byte) bool { return true }) {
			t.Errorf("%s: read as an object", text)
		}
		if Array([]byte(text), func([]byte) bool { return true }) {
			t.Errorf("%s: read as an array", text)
		}
	}
}
