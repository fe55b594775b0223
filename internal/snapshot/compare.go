package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// This file compares two snapshots. Input schemas describe what a client
// sends: narrowing them (a removed argument or enum value, a newly required
// field, a tighter bound) refuses calls that used to work. Output schemas
// describe what a client reads: removing or retyping a field breaks a client
// that reads it. Everything else only adds.

// Change is one difference between two snapshots.
type Change struct {
	Breaking bool
	Tool     string // empty for the server instructions
	Path     string // where in the tool: "input.who(a team).team", "output.rows"
	Msg      string
}

func (c Change) String() string {
	var b strings.Builder
	if c.Tool != "" {
		b.WriteString(c.Tool)
		if c.Path != "" {
			b.WriteString(" " + c.Path)
		}
		b.WriteString(": ")
	}
	b.WriteString(c.Msg)
	return b.String()
}

// Compare lists what changed from old to new: breaking changes first, then
// additive ones, each group in tool and path order.
func Compare(old, new *Snapshot) []Change {
	var cs changes
	if old.Instructions != new.Instructions {
		cs.add(false, "", "", "the server instructions changed")
	}
	for _, o := range old.Tools {
		n, ok := new.tool(o.Name)
		if !ok {
			cs.add(true, o.Name, "", "the tool was removed or renamed; clients that cached it will call a tool that no longer exists")
			continue
		}
		if o.Title != n.Title {
			cs.add(false, o.Name, "", "the title changed")
		}
		if o.Description != n.Description {
			cs.add(false, o.Name, "", "the description changed")
		}
		cs.schema(o.Name, "input", true, o.InputSchema, n.InputSchema)
		cs.schema(o.Name, "output", false, o.OutputSchema, n.OutputSchema)
	}
	for _, n := range new.Tools {
		if _, ok := old.tool(n.Name); !ok {
			cs.add(false, n.Name, "", "a new tool")
		}
	}
	slices.SortStableFunc(cs, func(a, b Change) int {
		switch {
		case a.Breaking != b.Breaking:
			if a.Breaking {
				return -1
			}
			return 1
		case a.Tool != b.Tool:
			return strings.Compare(a.Tool, b.Tool)
		}
		return strings.Compare(a.Path, b.Path)
	})
	return cs
}

// Breaking reports whether any change breaks a client.
func Breaking(cs []Change) bool {
	return slices.ContainsFunc(cs, func(c Change) bool { return c.Breaking })
}

type changes []Change

func (cs *changes) add(breaking bool, tool, path, format string, args ...any) {
	*cs = append(*cs, Change{Breaking: breaking, Tool: tool, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// schema compares two schemas at path. input says whether the schema
// describes what clients send (true) or what they read (false).
func (cs *changes) schema(tool, path string, input bool, oldV, newV any) {
	o, _ := oldV.(map[string]any)
	n, _ := newV.(map[string]any)
	if o == nil || n == nil {
		if !reflect.DeepEqual(oldV, newV) {
			cs.add(true, tool, path, "the schema changed shape")
		}
		return
	}
	if !reflect.DeepEqual(o["type"], n["type"]) {
		cs.add(true, tool, path, "the type changed from %s to %s", show(o["type"]), show(n["type"]))
		return
	}
	if o["description"] != n["description"] && path != "input" && path != "output" {
		cs.add(false, tool, path, "the description changed")
	}
	if input {
		cs.enum(tool, path, o, n)
		cs.bounds(tool, path, o, n)
		for _, key := range []string{"const", "pattern", "default"} {
			if !reflect.DeepEqual(o[key], n[key]) {
				cs.add(true, tool, path, "%s changed from %s to %s", key, show(o[key]), show(n[key]))
			}
		}
		cs.required(tool, path, o, n)
	}
	cs.properties(tool, path, input, o, n)
	if oi, ni := o["items"], n["items"]; oi != nil || ni != nil {
		cs.schema(tool, path+"[]", input, oi, ni)
	}
	cs.additional(tool, path, input, o["additionalProperties"], n["additionalProperties"])
	for _, key := range []string{"oneOf", "anyOf"} {
		cs.variants(tool, path, input, o[key], n[key])
	}
}

// enum: a value a client may send that is no longer accepted breaks it.
func (cs *changes) enum(tool, path string, o, n map[string]any) {
	ov, ok1 := o["enum"].([]any)
	nv, ok2 := n["enum"].([]any)
	switch {
	case !ok1 && !ok2:
		return
	case !ok1:
		cs.add(true, tool, path, "now accepts only %s (a new enum)", show(nv))
		return
	case !ok2:
		cs.add(false, tool, path, "now accepts any value (the enum was dropped)")
		return
	}
	for _, v := range ov {
		if !slices.Contains(nv, v) {
			cs.add(true, tool, path, "no longer accepts %s (a narrowed enum: calls that send it are refused)", show(v))
		}
	}
	for _, v := range nv {
		if !slices.Contains(ov, v) {
			cs.add(false, tool, path, "now also accepts %s", show(v))
		}
	}
}

// Upper bounds narrow when they fall, lower bounds when they rise.
var (
	upperBounds = []string{"maximum", "maxItems", "maxLength", "maxProperties"}
	lowerBounds = []string{"minimum", "minItems", "minLength", "minProperties"}
)

func (cs *changes) bounds(tool, path string, o, n map[string]any) {
	for _, key := range append(slices.Clone(upperBounds), lowerBounds...) {
		ov, ok1 := o[key].(float64)
		nv, ok2 := n[key].(float64)
		upper := slices.Contains(upperBounds, key)
		switch {
		case !ok1 && !ok2, ok1 && ok2 && ov == nv:
		case !ok1:
			cs.add(true, tool, path, "%s %s is new", key, show(nv))
		case !ok2:
			cs.add(false, tool, path, "%s %s was dropped", key, show(ov))
		case upper == (nv < ov):
			cs.add(true, tool, path, "%s narrowed from %s to %s", key, show(ov), show(nv))
		default:
			cs.add(false, tool, path, "%s widened from %s to %s", key, show(ov), show(nv))
		}
	}
}

func (cs *changes) required(tool, path string, o, n map[string]any) {
	or, nr := stringList(o["required"]), stringList(n["required"])
	for _, f := range nr {
		if !slices.Contains(or, f) {
			cs.add(true, tool, path, "%s is newly required: calls that leave it out are refused", show(f))
		}
	}
	for _, f := range or {
		if !slices.Contains(nr, f) && hasProperty(n, f) {
			cs.add(false, tool, path, "%s is no longer required", show(f))
		}
	}
}

func hasProperty(s map[string]any, name string) bool {
	props, _ := s["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}

func (cs *changes) properties(tool, path string, input bool, o, n map[string]any) {
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	for _, name := range sortedKeys(op) {
		p := path + "." + name
		if _, ok := np[name]; !ok {
			if input {
				cs.add(true, tool, p, "the argument was removed: calls that send it are refused")
			} else {
				cs.add(true, tool, p, "the output field was removed: clients that read it find nothing")
			}
			continue
		}
		cs.schema(tool, p, input, op[name], np[name])
	}
	for _, name := range sortedKeys(np) {
		if _, ok := op[name]; ok {
			continue
		}
		switch {
		case !input:
			cs.add(false, tool, path+"."+name, "a new output field")
		case !slices.Contains(stringList(n["required"]), name):
			cs.add(false, tool, path+"."+name, "a new optional argument")
		}
	}
}

func (cs *changes) additional(tool, path string, input bool, o, n any) {
	ob, ok1 := o.(bool)
	nb, ok2 := n.(bool)
	switch {
	case ok1 && ok2 && ob != nb && input:
		cs.add(ob, tool, path, "additionalProperties changed from %v to %v", ob, nb)
	case !ok1 && !ok2 && (o != nil || n != nil):
		cs.schema(tool, path+"{}", input, o, n)
	}
}

// variants matches oneOf/anyOf alternatives by title, else by position.
func (cs *changes) variants(tool, path string, input bool, o, n any) {
	ov, _ := o.([]any)
	nv, _ := n.([]any)
	name := func(v any, i int) string {
		if m, ok := v.(map[string]any); ok {
			if t, ok := m["title"].(string); ok && t != "" {
				return t
			}
		}
		return strconv.Itoa(i)
	}
	find := func(list []any, key string) (any, bool) {
		for i, v := range list {
			if name(v, i) == key {
				return v, true
			}
		}
		return nil, false
	}
	for i, v := range ov {
		key := name(v, i)
		p := path + "(" + key + ")"
		if w, ok := find(nv, key); ok {
			cs.schema(tool, p, input, v, w)
		} else if input {
			cs.add(true, tool, p, "this shape is no longer accepted")
		} else {
			cs.add(true, tool, p, "this shape is no longer answered")
		}
	}
	for i, v := range nv {
		if _, ok := find(ov, name(v, i)); !ok {
			cs.add(false, tool, path+"("+name(v, i)+")", "a new accepted shape")
		}
	}
}

func stringList(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// show writes a JSON value briefly for a message.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "none"
	case string:
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = show(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
