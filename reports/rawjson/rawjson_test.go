package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
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

		dec := json.NewDecoder(bytes.NewReader(data))
		var first json.RawMessage
		decoded := dec.Decode(&first) == nil && first[0] == '{'
		if got := LeadingObject(data); (got != nil) != decoded || decoded && !bytes.Equal(got, first) {
			t.Errorf("%q: LeadingObject read %q; a json.Decoder %v %q", data, got, decoded, first)
		}
	})
}
