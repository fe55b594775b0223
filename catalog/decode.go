package catalog

import (
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file holds a strict YAML decoder: it maps YAML nodes onto the raw
// catalogue structs below, rejects unknown and repeated keys, and records
// where each value came from. yaml.v3's own KnownFields mode reports neither
// columns nor the valid keys, which is what an analyst needs to fix a typo.

// nodeDecoder is implemented by raw types that accept more than one YAML shape.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, at Pos)
}

type decoder struct {
	file string
	errs *errorList
}

var posType = reflect.TypeFor[Pos]()

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Column: n.Column} }

// decode fills the value ptr points to from n. at is where the value was
// introduced (its key), used for errors about the value as a whole.
func (d *decoder) decode(n *yaml.Node, ptr reflect.Value, at Pos, what string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	v := ptr.Elem()
	if v.Kind() == reflect.Pointer {
		if isNull(n) {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v, at, what)
		return
	}
	if nd, ok := ptr.Interface().(nodeDecoder); ok {
		nd.decodeNode(d, n, at)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, at, what)
	case reflect.Map:
		d.decodeMap(n, v, what)
	case reflect.Slice:
		d.decodeSlice(n, v, what)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || isNull(n) {
			d.errs.add(d.pos(n), "write it as plain text", "%s must be text", what)
			return
		}
		v.SetString(n.Value)
	case reflect.Int:
		var i int
		if n.Kind != yaml.ScalarNode || n.Decode(&i) != nil {
			d.errs.add(d.pos(n), "write a whole number such as 1", "%s must be a whole number", what)
			return
		}
		v.SetInt(int64(i))
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			d.errs.add(d.pos(n), "write true or false", "%s must be true or false", what)
			return
		}
		v.SetBool(b)
	default:
		panic("catalog: no YAML decoding for " + v.Type().String())
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, at Pos, what string) {
	fields := map[string]int{}
	var names, required []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Type == posType {
			v.Field(i).Set(reflect.ValueOf(at))
			continue
		}
		name, opt, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = i
		names = append(names, name)
		if opt == "required" {
			required = append(required, name)
		}
	}
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.pos(n), "valid keys are "+strings.Join(names, ", "), "%s must be a mapping of keys to values", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		idx, ok := fields[key.Value]
		switch {
		case !ok:
			d.errs.add(d.pos(key), "valid keys here are "+strings.Join(names, ", "), "unknown key %q in %s", key.Value, what)
			continue
		case seen[key.Value]:
			d.errs.add(d.pos(key), "keep one of them", "key %q appears twice in %s", key.Value, what)
			continue
		}
		seen[key.Value] = true
		d.decode(val, v.Field(idx).Addr(), d.pos(key), join(what, ".", key.Value))
	}
	for _, name := range required {
		if !seen[name] {
			d.errs.add(at, "add "+name+": to it", "%s lacks the required key %q", what, name)
		}
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.pos(n), "write one entry per line as id: value", "%s must be a mapping of ids to entries", what)
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.Value == "" {
			d.errs.add(d.pos(key), "write each id as plain text, such as close_rate", "%s must be keyed by ids", what)
			continue
		}
		if v.Type().Elem().Kind() == reflect.Pointer && (isNull(val) || val.Kind == yaml.AliasNode && (val.Alias == nil || isNull(val.Alias))) {
			d.errs.add(d.pos(key), "give it its keys, or remove it", "%s %q is empty", what, key.Value)
			continue
		}
		if v.MapIndex(reflect.ValueOf(key.Value)).IsValid() {
			d.errs.add(d.pos(key), "ids must be unique; rename or remove one", "%s %q is defined twice", what, key.Value)
			continue
		}
		elem := reflect.New(v.Type().Elem())
		d.decode(val, elem, d.pos(key), join(what, " ", quote(key.Value)))
		v.SetMapIndex(reflect.ValueOf(key.Value), elem.Elem())
	}
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.SequenceNode {
		d.errs.add(d.pos(n), "write a list such as [a, b]", "%s must be a list", what)
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, out.Index(i).Addr(), d.pos(item), what)
	}
	v.Set(out)
}

// join names a nested value: roster.teams, metrics "close_rate".
func join(what, sep, key string) string {
	if what == "" {
		return key
	}
	return what + sep + key
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func quote(s string) string { return `"` + s + `"` }

// ref is a name or formula written as a scalar, with where it was written.
type ref struct {
	Value string
	At    Pos
}

func (r *ref) decodeNode(d *decoder, n *yaml.Node, _ Pos) {
	r.At = d.pos(n)
	if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
		d.errs.add(r.At, "write a name or formula as plain text", "expected a name or formula here")
		return
	}
	r.Value = n.Value
}

// sortedKeys returns a map's keys in order, for stable hints and output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
