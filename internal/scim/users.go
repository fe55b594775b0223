package scim

import (
	"net/http"
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

// userHandler serves /Users: a User is a member of plumbline's directory.
// Of what a provider sends, plumbline keeps the user name, one email
// address (the primary one, else the work one, else the first), the
// display name, given and family names, active, externalId and the
// employee number; anything else the schemas define (phone numbers,
// addresses, a password) is accepted and not kept.
type userHandler struct{ s *server }

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

// Create adds a member, active unless the request says otherwise.
func (h userHandler) Create(r *http.Request, a scim.ResourceAttributes) (scim.Resource, error) {
	p := members.Person{Status: members.StatusActive}
	if pr := fill(&p, a); pr != nil {
		return scim.Resource{}, h.s.fail(r, pr)
	}
	p, err := h.s.store.CreatePerson(r.Context(), by(r), p)
	return respond(h.s, r, p, err, userResource)
}

// Get returns a member.
func (h userHandler) Get(r *http.Request, id string) (scim.Resource, error) {
	p, err := h.s.store.Person(r.Context(), id)
	return respond(h.s, r, p, err, userResource)
}

// GetAll lists the members a filter lets through, a page at a time.
func (h userHandler) GetAll(r *http.Request, params scim.ListRequestParams) (scim.Page, error) {
	people, err := h.s.store.People(r.Context())
	return page(h.s, r, params, people, err, userResource)
}

// respond renders what the directory answered, or refuses as its error
// says.
func respond[T any](s *server, r *http.Request, v T, err error, render func(T) scim.Resource) (scim.Resource, error) {
	if err != nil {
		return scim.Resource{}, s.fail(r, err)
	}
	return render(v), nil
}

// page renders what the directory listed, cut to what a filter lets
// through and to the page asked for, or refuses as its error says.
func page[T any](s *server, r *http.Request, params scim.ListRequestParams, all []T, err error, render func(T) scim.Resource) (scim.Page, error) {
	if err != nil {
		return scim.Page{}, s.fail(r, err)
	}
	matched := []scim.Resource{}
	for _, v := range all {
		res := render(v)
		if params.FilterValidator == nil || params.FilterValidator.PassesFilter(filterable(res)) == nil {
			matched = append(matched, res)
		}
	}
	start := min(max(params.StartIndex, 1)-1, len(matched))
	end := min(start+max(params.Count, 0), len(matched))
	return scim.Page{TotalResults: len(matched), Resources: matched[start:end]}, nil
}

// filterable is a resource as a filter reads it: its attributes with its
// id and externalId.
func filterable(res scim.Resource) map[string]any {
	m := map[string]any{"id": res.ID}
	for k, v := range res.Attributes {
		m[k] = v
	}
	if res.ExternalID.Present() {
		m["externalId"] = res.ExternalID.Value()
	}
	return m
}

// Replace sets a member to what a whole User resource says. Their person
// id never changes.
func (h userHandler) Replace(r *http.Request, id string, a scim.ResourceAttributes) (scim.Resource, error) {
	p, err := h.s.store.ModifyPerson(r.Context(), by(r), id, func(p *members.Person) error {
		if pr := fill(p, a); pr != nil {
			return pr
		}
		return nil
	})
	return respond(h.s, r, p, err, userResource)
}

// Delete deletes a member; their tokens are revoked.
func (h userHandler) Delete(r *http.Request, id string) error {
	return h.s.refused(r, h.s.store.DeletePerson(r.Context(), by(r), id))
}

// Patch applies operations to a member, as Okta sends them (a value of
// attributes without a path) and as Microsoft Entra ID does (a path each).
func (h userHandler) Patch(r *http.Request, id string, ops []scim.PatchOperation) (scim.Resource, error) {
	p, err := h.s.store.ModifyPerson(r.Context(), by(r), id, applying(ops, patchUser, settle))
	return respond(h.s, r, p, err, userResource)
}

// applying returns the change that applies operations in turn, then
// checks what they made with done.
func applying[T any](ops []scim.PatchOperation, apply func(*T, int, scim.PatchOperation) *problem, done func(*T) *problem) func(*T) error {
	return func(v *T) error {
		for i, op := range ops {
			if p := apply(v, i, op); p != nil {
				return p
			}
		}
		if p := done(v); p != nil {
			return p
		}
		return nil
	}
}

// patchUser applies the i-th operation to a person.
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
