package scim

import (
	"net/mail"
	"strconv"
	"strings"

	"github.com/elimity-com/scim"
	scimerr "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/scim2/filter-parser/v2"

	"plumbline/internal/members"
)

// enterprise is the enterprise extension's URI, under which the employee
// number comes.
var enterprise = users.extensions[0].ID

// resource renders a person as a SCIM User.
func userResource(p members.Person) scim.Resource {
	attrs := scim.ResourceAttributes{
		"userName":    p.UserName,
		"displayName": p.DisplayName,
		"active":      p.Active(),
		"emails":      []map[string]any{{"value": p.Email, "type": "work", "primary": true}},
	}
	name := map[string]any{}
	if p.GivenName != "" {
		name["givenName"] = p.GivenName
	}
	if p.FamilyName != "" {
		name["familyName"] = p.FamilyName
	}
	if len(name) > 0 {
		attrs["name"] = name
	}
	if p.EmployeeNumber != "" {
		attrs[enterprise] = map[string]any{"employeeNumber": p.EmployeeNumber}
	}
	if len(p.Groups) > 0 {
		var gs []map[string]any
		for _, g := range p.Groups {
			gs = append(gs, map[string]any{"value": g.ID, "display": g.Display, "type": "direct"})
		}
		attrs["groups"] = gs
	}
	external := optional.String{}
	if p.ExternalID != "" {
		external = optional.NewString(p.ExternalID)
	}
	created, updated := p.Created, p.Updated
	return scim.Resource{ID: p.ID, ExternalID: external, Attributes: attrs, Meta: scim.Meta{Created: &created, LastModified: &updated}}
}

// fill sets what a whole User resource says of a person: attributes it
// leaves out are cleared, and active, when left out, is left as it is.
func fill(p *members.Person, a scim.ResourceAttributes) *problem {
	p.UserName, _ = a["userName"].(string)
	p.ExternalID, _ = a["externalId"].(string)
	p.DisplayName, _ = a["displayName"].(string)
	p.GivenName, p.FamilyName, p.EmployeeNumber = "", "", ""
	if name, ok := a["name"].(map[string]any); ok {
		p.GivenName, _ = name["givenName"].(string)
		p.FamilyName, _ = name["familyName"].(string)
		if formatted, _ := name["formatted"].(string); p.DisplayName == "" {
			p.DisplayName = formatted
		}
	}
	if ext, ok := a[enterprise].(map[string]any); ok {
		p.EmployeeNumber, _ = ext["employeeNumber"].(string)
	}
	if active, ok := a["active"].(bool); ok {
		p.SetActive(active)
	}
	emails, _ := a["emails"].([]any)
	p.Email = pickEmail(emails)
	return settle(p)
}

// pickEmail chooses the address to keep: the primary one, else the work
// one, else the first.
func pickEmail(emails []any) string {
	var work, first string
	for _, e := range emails {
		m, _ := e.(map[string]any)
		v, _ := m["value"].(string)
		if v == "" {
			continue
		}
		if primary, _ := m["primary"].(bool); primary {
			return v
		}
		if t, _ := m["type"].(string); strings.EqualFold(t, "work") && work == "" {
			work = v
		}
		if first == "" {
			first = v
		}
	}
	if work != "" {
		return work
	}
	return first
}

// settle fills in what a person must have and checks it: the email
// address (the user name, when it is one, if none was sent) and the
// display name (the names, else the user name).
func settle(p *members.Person) *problem {
	if p.UserName == "" {
		return invalid("userName", "a User must have one")
	}
	if p.Email == "" && isEmail(p.UserName) {
		p.Email = p.UserName
	}
	if !isEmail(p.Email) {
		return invalid("emails", "a User needs an email address (user@domain), the one their identity provider verifies when they sign in; "+
			"send it as the primary email, or as a userName that is an address")
	}
	if strings.HasPrefix(strings.ToLower(p.EmployeeNumber), "service:") {
		return invalid(enterprise+":employeeNumber", "must not start with service:, which names a service in plumbline's request log")
	}
	if p.DisplayName == "" {
		p.DisplayName = strings.TrimSpace(p.GivenName + " " + p.FamilyName)
	}
	if p.DisplayName == "" {
		p.DisplayName = p.UserName
	}
	return nil
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == ""
}

// patchUser applies the i-th operation to a person, as Okta sends them (a
// value of attributes without a path) and as Microsoft Entra ID does (a
// path each).
func patchUser(p *members.Person, i int, op scim.PatchOperation) *problem {
	if op.Path == nil {
		attrs, _ := op.Value.(map[string]any)
		for k, v := range attrs {
			if ext, ok := v.(map[string]any); ok && strings.EqualFold(k, enterprise) {
				for ek, ev := range ext {
					if pr := setUser(p, i, op.Op, filter.AttributePath{AttributeName: ek, URIPrefix: &enterprise}, ev); pr != nil {
						return pr
					}
				}
				continue
			}
			if pr := setUser(p, i, op.Op, filter.AttributePath{AttributeName: k}, v); pr != nil {
				return pr
			}
		}
		return nil
	}
	ap := op.Path.AttributePath
	if sub := op.Path.SubAttributeName(); sub != "" {
		ap.SubAttribute = &sub
	}
	return setUser(p, i, op.Op, ap, op.Value)
}

// setUser applies one attribute of an operation to a person: those
// plumbline keeps change, the rest are let be.
func setUser(p *members.Person, i int, op string, ap filter.AttributePath, v any) *problem {
	remove := op == scim.PatchOperationRemove
	str, _ := v.(string)
	if list, ok := v.([]any); ok && len(list) == 1 {
		// A path to one element, given a list of it (Entra).
		v = list[0]
	}
	if m, ok := v.(map[string]any); ok && ap.SubAttribute != nil {
		str, _ = m[*ap.SubAttribute].(string)
	}
	place := func() string { return "Operations[" + strconv.Itoa(i) + "]" }
	switch name, sub := strings.ToLower(ap.AttributeName), strings.ToLower(ap.SubAttributeName()); {
	case ap.URI() == enterprise && name == "employeenumber":
		p.EmployeeNumber = unlessRemoved(remove, str)
	case ap.URI() == enterprise:
	case name == "username":
		if remove {
			return &problem{place: place(), rule: "a User must keep its userName", kind: scimerr.ScimTypeMutability}
		}
		p.UserName = str
	case name == "displayname":
		p.DisplayName = unlessRemoved(remove, str)
	case name == "externalid":
		p.ExternalID = unlessRemoved(remove, str)
	case name == "active":
		active, _ := v.(bool)
		p.SetActive(active && !remove)
	case name == "name" && sub == "givenname":
		p.GivenName = unlessRemoved(remove, str)
	case name == "name" && sub == "familyname":
		p.FamilyName = unlessRemoved(remove, str)
	case name == "name" && sub == "":
		m, _ := v.(map[string]any)
		p.GivenName, _ = m["givenName"].(string)
		p.FamilyName, _ = m["familyName"].(string)
	case name == "emails" && remove:
		return &problem{place: place(), rule: "a User must keep an email address, the one they sign in with; replace it instead",
			kind: scimerr.ScimTypeMutability}
	case name == "emails" && sub == "value":
		p.Email = str
	case name == "emails":
		list, ok := v.([]any)
		if !ok {
			list = []any{v}
		}
		if e := pickEmail(list); e != "" {
			p.Email = e
		}
	}
	return nil
}

// unlessRemoved is s, or nothing for a remove operation.
func unlessRemoved(remove bool, s string) string {
	if remove {
		return ""
	}
	return s
}
