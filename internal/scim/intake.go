package scim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	scimerr "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/schema"
	"github.com/scim2/filter-parser/v2"
)

// This file checks a request before the SCIM library sees it. The library
// ignores attributes no schema names, and its refusals say neither where
// nor what: here every refusal names the place and the rule, and never
// repeats a value. What Microsoft Entra ID sends against the standard
// (booleans as "True" and "False", the manager as a bare id) is put right.

// problem is a refusal of a request: the place in it (a JSON path or a
// query parameter), the rule it broke, and the SCIM error type.
type problem struct {
	place, rule string
	kind        scimerr.ScimType
}

func (p *problem) Error() string { return p.place + ": " + p.rule }

func syntax(place, rule string) *problem {
	return &problem{place: place, rule: rule, kind: scimerr.ScimTypeInvalidSyntax}
}

func invalid(place, rule string) *problem {
	return &problem{place: place, rule: rule, kind: scimerr.ScimTypeInvalidValue}
}

// resource is a resource type's schemas, as a request is checked against
// them.
type resource struct {
	name       string
	core       schema.Schema
	extensions []schema.Schema
	required   string // the attribute a resource must have
}

// attrName is what SCIM allows as an attribute's name (RFC 7643 §2.1):
// only a name of this shape is repeated in a refusal.
var attrName = regexp.MustCompile(`^(urn:[A-Za-z0-9:._-]{1,200}:)?\$?[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// shown is how a refusal names an attribute a request sent: as it was
// sent when it has the shape of a name, else in general terms.
func shown(name string) string {
	if attrName.MatchString(name) {
		return name
	}
	return "(a name that is not an attribute name)"
}

// decode reads a JSON object, numbers kept as sent.
func decode(body []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return m, nil
}

// checkResource checks a resource sent to be created or to replace one,
// and returns it put right.
func (rt resource) checkResource(body []byte) ([]byte, *problem) {
	m, err := decode(body)
	if err != nil || m == nil {
		return nil, syntax("the body", "must be one JSON object, a "+rt.name+" resource (RFC 7643)")
	}
	if p := rt.checkSchemas(m); p != nil {
		return nil, p
	}
	if p := rt.checkAttributes("", m, false); p != nil {
		return nil, p
	}
	if v, ok := lookup(m, rt.required); !ok || v == nil || v == "" {
		return nil, invalid(rt.required, "a "+rt.name+" must have one")
	}
	out, _ := json.Marshal(m)
	return out, nil
}

func (rt resource) checkSchemas(m map[string]any) *problem {
	list, ok := m["schemas"].([]any)
	if !ok {
		return syntax("schemas", "must be a list of schema URIs that holds "+rt.core.ID)
	}
	for i, s := range list {
		if _, ok := s.(string); !ok {
			return syntax(fmt.Sprintf("schemas[%d]", i), "must be a schema URI")
		}
		if s == rt.core.ID {
			return nil
		}
	}
	return syntax("schemas", "must hold "+rt.core.ID)
}

// lookup returns the value of a top-level attribute, whatever its case.
func lookup(m map[string]any, name string) (any, bool) {
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// checkAttributes checks the attributes of a resource, or of a PATCH
// operation's value without a path (patch set), at place: each must be one
// its schemas define, of the right type. The id (which Okta sends in a
// PATCH), meta and schemas are the server's and are ignored.
func (rt resource) checkAttributes(place string, m map[string]any, patch bool) *problem {
	for k, v := range m {
		at := join(place, shown(k))
		switch strings.ToLower(k) {
		case "schemas", "id", "meta":
			continue
		case "externalid":
			if _, ok := v.(string); !ok && v != nil {
				return invalid(at, "must be a string")
			}
			continue
		}
		if ext, ok := rt.extension(k); ok {
			sub, ok := v.(map[string]any)
			if !ok {
				return invalid(at, "must be an object of the attributes of "+ext.ID)
			}
			for sk, sv := range sub {
				attr, ok := find(ext.Attributes, sk)
				if !ok {
					return syntax(join(at, shown(sk)), unknown(ext))
				}
				fixed, p := checkValue(join(at, shown(sk)), attr, sv, false)
				if p != nil {
					return p
				}
				sub[sk] = fixed
			}
			continue
		}
		attr, s, ok := rt.attribute(k)
		if !ok {
			return syntax(at, unknown(rt.core))
		}
		fixed, p := checkValue(at, attr, v, false)
		if p != nil {
			return p
		}
		if patch && s.ID != rt.core.ID {
			// A qualified name (urn:…:User:employeeNumber) in a
			// PATCH value: the library takes it as its extension's.
			delete(m, k)
			k = s.ID
			ext, _ := m[k].(map[string]any)
			if ext == nil {
				ext = map[string]any{}
			}
			ext[attr.Name()] = fixed
			m[k] = ext
			continue
		}
		m[k] = fixed
	}
	return nil
}

func unknown(s schema.Schema) string {
	return "no such attribute in " + s.ID + "; plumbline refuses attributes its schemas do not define (GET /scim/v2/Schemas lists them)"
}

func join(place, name string) string {
	if place == "" {
		return name
	}
	return place + "." + name
}

// extension returns the extension schema whose URI is name.
func (rt resource) extension(name string) (schema.Schema, bool) {
	for _, e := range rt.extensions {
		if strings.EqualFold(e.ID, name) {
			return e, true
		}
	}
	return schema.Schema{}, false
}

// attribute finds an attribute by name, bare (the core schema's) or
// qualified by its schema's URI, and returns it with its schema.
func (rt resource) attribute(name string) (schema.CoreAttribute, schema.Schema, bool) {
	for _, s := range append([]schema.Schema{rt.core}, rt.extensions...) {
		bare := name
		if len(name) > len(s.ID)+1 && strings.EqualFold(name[:len(s.ID)+1], s.ID+":") {
			bare = name[len(s.ID)+1:]
		} else if s.ID != rt.core.ID {
			continue
		}
		if a, ok := find(s.Attributes, bare); ok {
			return a, s, true
		}
	}
	return schema.CoreAttribute{}, schema.Schema{}, false
}

func find(attrs schema.Attributes, name string) (schema.CoreAttribute, bool) {
	for _, a := range attrs {
		if strings.EqualFold(a.Name(), name) {
			return a, true
		}
	}
	return schema.CoreAttribute{}, false
}

// checkValue checks a value of attr at place and returns it put right;
// element checks one element of a multi-valued attribute. null stands for
// no value.
func checkValue(place string, attr schema.CoreAttribute, v any, element bool) (any, *problem) {
	if v == nil {
		return nil, nil
	}
	if attr.MultiValued() && !element {
		list, ok := v.([]any)
		if !ok {
			return nil, invalid(place, "must be a list")
		}
		for i, e := range list {
			fixed, p := checkValue(fmt.Sprintf("%s[%d]", place, i), attr, e, true)
			if p != nil {
				return nil, p
			}
			list[i] = fixed
		}
		return list, nil
	}
	switch attr.AttributeType() {
	case "complex":
		m, ok := v.(map[string]any)
		if s, bare := v.(string); bare && strings.EqualFold(attr.Name(), "manager") {
			// Entra sends the manager as the bare id.
			return map[string]any{"value": s}, nil
		}
		if !ok {
			return nil, invalid(place, "must be an object")
		}
		for k, sv := range m {
			sub, ok := find(attr.SubAttributes(), k)
			if !ok {
				return nil, syntax(place+"."+shown(k), "no such sub-attribute of "+attr.Name()+"; it has "+subNames(attr))
			}
			fixed, p := checkValue(place+"."+sub.Name(), sub, sv, false)
			if p != nil {
				return nil, p
			}
			m[k] = fixed
		}
		return m, nil
	case "boolean":
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			// Entra sends "True" and "False".
			if t, err := strconv.ParseBool(b); err == nil && len(b) > 1 {
				return t, nil
			}
		}
		return nil, invalid(place, "must be true or false")
	case "integer", "decimal":
		if _, ok := v.(json.Number); !ok {
			return nil, invalid(place, "must be a number")
		}
		return v, nil
	default:
		if _, ok := v.(string); !ok {
			return nil, invalid(place, "must be a string")
		}
		return v, nil
	}
}

func subNames(attr schema.CoreAttribute) string {
	var names []string
	for _, s := range attr.SubAttributes() {
		names = append(names, s.Name())
	}
	return strings.Join(names, ", ")
}

// checkPatch checks a PATCH request (RFC 7644 §3.5.2) and returns it put
// right.
func (rt resource) checkPatch(body []byte) ([]byte, *problem) {
	m, err := decode(body)
	if err != nil || m == nil {
		return nil, syntax("the body", "must be one JSON object, a PatchOp message (RFC 7644 §3.5.2)")
	}
	for k := range m {
		if !strings.EqualFold(k, "schemas") && !strings.EqualFold(k, "Operations") {
			return nil, syntax(shown(k), "a PatchOp message has schemas and Operations only")
		}
	}
	if s, _ := lookup(m, "schemas"); !isPatchOp(s) {
		return nil, syntax("schemas", "must be [\"urn:ietf:params:scim:api:messages:2.0:PatchOp\"]")
	}
	v, _ := lookup(m, "Operations")
	ops, ok := v.([]any)
	if !ok || len(ops) == 0 {
		return nil, syntax("Operations", "must be a list of one or more operations")
	}
	if len(ops) > maxOperations {
		return nil, invalid("Operations", fmt.Sprintf("at most %d operations in one request", maxOperations))
	}
	for i, o := range ops {
		if p := rt.checkOperation(fmt.Sprintf("Operations[%d]", i), o); p != nil {
			return nil, p
		}
	}
	out, _ := json.Marshal(m)
	return out, nil
}

// maxOperations is the most operations one PATCH may carry.
const maxOperations = 1000

func isPatchOp(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 1 && l[0] == "urn:ietf:params:scim:api:messages:2.0:PatchOp"
}

func (rt resource) checkOperation(place string, o any) *problem {
	op, ok := o.(map[string]any)
	if !ok {
		return syntax(place, "must be an object with op, and path or value")
	}
	var verb, path string
	var value any
	var hasValue bool
	for k, v := range op {
		switch strings.ToLower(k) {
		case "op":
			verb, _ = v.(string)
			op[k] = strings.ToLower(verb) // Entra sends Add, Replace and Remove
		case "path":
			if path, ok = v.(string); !ok {
				return invalid(place+".path", "must be a string, an attribute path (RFC 7644 §3.5.2)")
			}
		case "value":
			value, hasValue = v, true
		default:
			return syntax(place+"."+shown(k), "an operation has op, path and value only")
		}
	}
	verb = strings.ToLower(verb)
	if verb != "add" && verb != "remove" && verb != "replace" {
		return invalid(place+".op", "must be add, remove or replace")
	}
	if path == "" {
		if verb == "remove" {
			return &problem{place: place + ".path", rule: "a remove operation needs a path", kind: scimerr.ScimTypeNoTarget}
		}
		m, ok := value.(map[string]any)
		if !ok {
			return invalid(place+".value", "without a path, the value must be an object of attributes")
		}
		return rt.checkAttributes(place+".value", m, true)
	}
	p, err := filter.ParsePath([]byte(path))
	if err != nil {
		return &problem{place: place + ".path", rule: "is not an attribute path, such as emails[type eq \"work\"].value (RFC 7644 §3.5.2)",
			kind: scimerr.ScimTypeInvalidPath}
	}
	name := p.AttributePath.AttributeName
	if uri := p.AttributePath.URI(); uri != "" {
		name = uri + ":" + name
	}
	attr, _, ok := rt.attribute(name)
	if !ok {
		return &problem{place: place + ".path", rule: unknown(rt.core), kind: scimerr.ScimTypeInvalidPath}
	}
	target, element := attr, p.ValueExpression != nil
	for _, sub := range []string{p.AttributePath.SubAttributeName(), p.SubAttributeName()} {
		if sub == "" {
			continue
		}
		if target, ok = find(attr.SubAttributes(), sub); !ok {
			return &problem{place: place + ".path", rule: "no such sub-attribute of " + attr.Name() + "; it has " + subNames(attr),
				kind: scimerr.ScimTypeInvalidPath}
		}
		element = false
	}
	if !hasValue || verb == "remove" {
		return nil
	}
	if l, isList := value.([]any); isList && target.MultiValued() && element {
		value = l // a list where one element is meant: checked as the list
		element = false
	}
	fixed, pr := checkValue(place+".value", target, value, element && target.MultiValued())
	if pr != nil {
		return pr
	}
	for k := range op {
		if strings.EqualFold(k, "value") {
			op[k] = fixed
		}
	}
	return nil
}

// checkQuery checks a list request's parameters: the filter, and count
// and startIndex.
func (rt resource) checkQuery(q map[string][]string) *problem {
	for _, k := range []string{"count", "startIndex"} {
		if v, ok := q[k]; ok && len(v) > 0 {
			if _, err := strconv.Atoi(v[0]); err != nil {
				return invalid(k, "must be a whole number")
			}
		}
	}
	f, ok := q["filter"]
	if !ok || len(f) == 0 || f[0] == "" {
		return nil
	}
	e, err := filter.ParseFilter([]byte(f[0]))
	if err != nil {
		return &problem{place: "filter", rule: "is not a SCIM filter (RFC 7644 §3.4.2.2); write it as attribute, operator, value, such as " +
			"userName eq \"…\" or externalId eq \"…\", with the value in double quotes", kind: scimerr.ScimTypeInvalidFilter}
	}
	return rt.checkExpression(e)
}

func (rt resource) checkExpression(e filter.Expression) *problem {
	switch e := e.(type) {
	case *filter.LogicalExpression:
		if p := rt.checkExpression(e.Left); p != nil {
			return p
		}
		return rt.checkExpression(e.Right)
	case *filter.NotExpression:
		return rt.checkExpression(e.Expression)
	case *filter.ValuePath:
		return rt.checkFilterPath(e.AttributePath)
	case *filter.AttributeExpression:
		return rt.checkFilterPath(e.AttributePath)
	}
	return nil
}

func (rt resource) checkFilterPath(ap filter.AttributePath) *problem {
	name := ap.AttributeName
	if uri := ap.URI(); uri != "" {
		name = uri + ":" + name
	}
	switch strings.ToLower(name) {
	case "id", "externalid", "meta":
		return nil
	}
	attr, _, ok := rt.attribute(name)
	if !ok {
		return &problem{place: "filter", rule: "names an attribute " + rt.name + "s do not have: " + shown(name) +
			"; filter on one of their attributes (GET /scim/v2/Schemas lists them), such as userName or externalId",
			kind: scimerr.ScimTypeInvalidFilter}
	}
	if sub := ap.SubAttributeName(); sub != "" {
		if _, ok := find(attr.SubAttributes(), sub); !ok {
			return &problem{place: "filter", rule: "no such sub-attribute of " + attr.Name() + "; it has " + subNames(attr),
				kind: scimerr.ScimTypeInvalidFilter}
		}
	}
	return nil
}
