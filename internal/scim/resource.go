package scim

import (
	"context"
	"net/http"

	"github.com/elimity-com/scim"

	"plumbline/internal/members"
)

// resourceHandler serves one resource type (/Users, /Groups) from the
// directory, which keeps each resource as a T: the directory's calls for a
// T, and how a resource fills, patches and renders one, are its fields.
type resourceHandler[T any] struct {
	s *server
	// blank is what Create fills.
	blank T
	// fill sets what a whole resource says; patch applies the i-th
	// operation of a PATCH, and done checks what the operations made.
	fill  func(*T, scim.ResourceAttributes) *problem
	patch func(*T, int, scim.PatchOperation) *problem
	done  func(*T) *problem
	// render shows a T as its resource.
	render func(T) scim.Resource
	// The directory's calls: create, read, list, change and delete a T,
	// changes on record as made by the first string.
	create func(ctx context.Context, by string, v T) (T, error)
	get    func(ctx context.Context, id string) (T, error)
	list   func(ctx context.Context) ([]T, error)
	modify func(ctx context.Context, by, id string, change func(*T) error) (T, error)
	remove func(ctx context.Context, by, id string) error
}

// userHandler serves /Users: a User is a member of plumbline's directory.
// Of what a provider sends, plumbline keeps the user name, one email
// address (the primary one, else the work one, else the first), the
// display name, given and family names, active, externalId and the
// employee number; anything else the schemas define (phone numbers,
// addresses, a password) is accepted and not kept. A member is created
// active unless the request says otherwise; their person id never changes;
// a member deleted has their tokens revoked.
func userHandler(s *server) resourceHandler[members.Person] {
	st := s.store
	return resourceHandler[members.Person]{s: s, blank: members.Person{Status: members.StatusActive},
		fill: fill, patch: patchUser, done: settle, render: userResource,
		create: st.CreatePerson, get: st.Person, list: st.People, modify: st.ModifyPerson, remove: st.DeletePerson}
}

// groupHandler serves /Groups: a group of members, by their User ids. A
// group deleted is gone, and its members stay members.
func groupHandler(s *server) resourceHandler[members.Group] {
	st := s.store
	return resourceHandler[members.Group]{s: s,
		fill: fillGroup, patch: patchGroup, done: named, render: groupResource,
		create: st.CreateGroup, get: st.Group, list: st.Groups, modify: st.ModifyGroup, remove: st.DeleteGroup}
}

// Create adds a resource.
func (h resourceHandler[T]) Create(r *http.Request, a scim.ResourceAttributes) (scim.Resource, error) {
	v := h.blank
	if pr := h.fill(&v, a); pr != nil {
		return scim.Resource{}, h.s.fail(r, pr)
	}
	v, err := h.create(r.Context(), by(r), v)
	return respond(h.s, r, v, err, h.render)
}

// Get returns a resource.
func (h resourceHandler[T]) Get(r *http.Request, id string) (scim.Resource, error) {
	v, err := h.get(r.Context(), id)
	return respond(h.s, r, v, err, h.render)
}

// GetAll lists the resources a filter lets through, a page at a time.
func (h resourceHandler[T]) GetAll(r *http.Request, params scim.ListRequestParams) (scim.Page, error) {
	all, err := h.list(r.Context())
	return page(h.s, r, params, all, err, h.render)
}

// Replace sets a resource to what a whole one says.
func (h resourceHandler[T]) Replace(r *http.Request, id string, a scim.ResourceAttributes) (scim.Resource, error) {
	v, err := h.modify(r.Context(), by(r), id, func(v *T) error {
		if pr := h.fill(v, a); pr != nil {
			return pr
		}
		return nil
	})
	return respond(h.s, r, v, err, h.render)
}

// Delete deletes a resource.
func (h resourceHandler[T]) Delete(r *http.Request, id string) error {
	return h.s.refused(r, h.remove(r.Context(), by(r), id))
}

// Patch applies operations to a resource.
func (h resourceHandler[T]) Patch(r *http.Request, id string, ops []scim.PatchOperation) (scim.Resource, error) {
	v, err := h.modify(r.Context(), by(r), id, applying(ops, h.patch, h.done))
	return respond(h.s, r, v, err, h.render)
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
