package scim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/elimity-com/scim"
	scimerr "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/scim2/filter-parser/v2"

	"plumbline/internal/members"
)

func groupResource(g members.Group) scim.Resource {
	ms := []map[string]any{}
	for _, m := range g.Members {
		ms = append(ms, map[string]any{"value": m.ID, "display": m.Display, "type": "User"})
	}
	external := optional.String{}
	if g.ExternalID != "" {
		external = optional.NewString(g.ExternalID)
	}
	created, updated := g.Created, g.Updated
	return scim.Resource{ID: g.ID, ExternalID: external, Attributes: scim.ResourceAttributes{"displayName": g.Name, "members": ms},
		Meta: scim.Meta{Created: &created, LastModified: &updated}}
}

// memberRefs reads a list of members, each an object with the User's id
// as its value.
func memberRefs(v any) []members.Ref {
	list, ok := v.([]any)
	if !ok && v != nil {
		list = []any{v}
	}
	var out []members.Ref
	for _, e := range list {
		m, _ := e.(map[string]any)
		id, _ := m["value"].(string)
		out = append(out, members.Ref{ID: id})
	}
	return out
}

// fillGroup sets what a whole Group resource says; it refuses nothing.
func fillGroup(g *members.Group, a scim.ResourceAttributes) *problem {
	g.Name, _ = a["displayName"].(string)
	g.ExternalID, _ = a["externalId"].(string)
	g.Members = memberRefs(a["members"])
	return nil
}

// named checks that a group has a name.
func named(g *members.Group) *problem {
	if g.Name == "" {
		return invalid("displayName", "a Group must have one")
	}
	return nil
}

// patchGroup applies the i-th operation to a group: its name, and its
// members added, removed (by a filter on their value, as Okta does, or
// listed in the value, as Microsoft Entra ID does) or replaced.
func patchGroup(g *members.Group, i int, op scim.PatchOperation) *problem {
	if op.Path == nil {
		attrs, _ := op.Value.(map[string]any)
		for k, v := range attrs {
			if pr := setGroup(g, i, op.Op, k, nil, v); pr != nil {
				return pr
			}
		}
		return nil
	}
	return setGroup(g, i, op.Op, op.Path.AttributePath.AttributeName, op.Path.ValueExpression, op.Value)
}

// setGroup applies one attribute of an operation to a group.
func setGroup(g *members.Group, i int, op, name string, which filter.Expression, v any) *problem {
	remove := op == scim.PatchOperationRemove
	str, _ := v.(string)
	switch strings.ToLower(name) {
	case "displayname":
		if remove {
			return &problem{place: "Operations[" + strconv.Itoa(i) + "]", rule: "a Group must keep its displayName", kind: scimerr.ScimTypeMutability}
		}
		g.Name = str
	case "externalid":
		g.ExternalID = unlessRemoved(remove, str)
	case "members":
		refs := memberRefs(v)
		if which != nil {
			id, ok := memberID(which)
			if !ok {
				return &problem{place: "Operations[" + strconv.Itoa(i) + "].path",
					rule: "a filter on members must be value eq \"<a User's id>\"", kind: scimerr.ScimTypeInvalidFilter}
			}
			refs = []members.Ref{{ID: id}}
		}
		switch {
		case op == scim.PatchOperationReplace:
			g.Members = refs
		case remove && which == nil && v == nil:
			g.Members = nil
		case remove:
			g.Members = slices.DeleteFunc(g.Members, func(m members.Ref) bool {
				return slices.ContainsFunc(refs, func(r members.Ref) bool { return r.ID == m.ID })
			})
		default:
			g.Members = append(g.Members, refs...)
		}
	}
	return nil
}

// memberID reads the id out of a filter value eq "<id>".
func memberID(e filter.Expression) (string, bool) {
	ae, ok := e.(*filter.AttributeExpression)
	if !ok || !strings.EqualFold(ae.AttributePath.AttributeName, "value") || ae.Operator != filter.EQ {
		return "", false
	}
	id, ok := ae.CompareValue.(string)
	return id, ok
}
