package scim_test

import (
	"net/url"
	"strings"
	"testing"
)

// The requests Okta's SCIM 2.0 provisioning sends, as its documentation
// gives them: it looks the user up by userName, creates them (with a
// password and locale plumbline does not keep), updates the profile with
// a PUT of the whole user, deactivates with a PATCH whose value holds
// active and no path, and pushes groups. The person it deactivates is
// refused on their next call, and stays refused when reactivated: their
// tokens were revoked.
func TestOkta(t *testing.T) {
	e := newEnv(t)
	filter := "/Users?filter=" + url.QueryEscape(`userName eq "test.user@okta.local"`) + "&startIndex=1&count=100"
	if a := e.scim("GET", filter, ""); a.status != 200 || a.body["totalResults"] != 0.0 {
		t.Fatalf("look up before creating: %d %s", a.status, a.raw)
	}

	created := e.scim("POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
		"userName":"test.user@okta.local","name":{"givenName":"Test","familyName":"User"},
		"emails":[{"primary":true,"value":"test.user@okta.local","type":"work"}],"displayName":"Test User",
		"locale":"en-US","externalId":"00ujl29u0le5T6Aj10h7","groups":[],"password":"1mz050nq","active":true}`)
	id := created.str("id")
	if created.status != 201 || id == "" || created.str("userName") != "test.user@okta.local" || created.body["active"] != true ||
		created.header.Get("Location") != e.base+"/scim/v2/Users/"+id || created.body["password"] != nil {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	if n := e.count(`SELECT count(*) FROM plumbline.members WHERE person_id = $1 AND scim_id::text = $1 AND email = 'test.user@okta.local'
		AND display_name = 'Test User' AND external_id = '00ujl29u0le5T6Aj10h7' AND status = 'active' AND kept_by = 'scim'`, id); n != 1 {
		t.Errorf("the member's row after create: %d", n)
	}
	if a := e.scim("GET", filter, ""); a.status != 200 || a.body["totalResults"] != 1.0 {
		t.Errorf("look up after creating: %d %s", a.status, a.raw)
	}
	if a := e.scim("GET", "/Users/"+id, ""); a.status != 200 || a.str("name.familyName") != "User" {
		t.Errorf("retrieve: %d %s", a.status, a.raw)
	}

	cs := e.connect(id)
	if err := call(cs); err != nil {
		t.Fatalf("an active member's call: %v", err)
	}

	put := e.scim("PUT", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"`+id+`",
		"userName":"test.user@okta.local","name":{"givenName":"Another","familyName":"User"},
		"emails":[{"primary":true,"value":"test.user@okta.local","type":"work","display":"test.user@okta.local"}],
		"displayName":"Another User","locale":"en-US","externalId":"00ujl29u0le5T6Aj10h7","groups":[],"active":true,
		"meta":{"resourceType":"User"}}`)
	if put.status != 200 || put.str("displayName") != "Another User" || put.str("name.givenName") != "Another" {
		t.Errorf("update by PUT: %d %s", put.status, put.raw)
	}
	if err := call(cs); err != nil {
		t.Errorf("a call after a profile update: %v", err)
	}

	deactivate := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]}`
	if a := e.scim("PATCH", "/Users/"+id, deactivate); a.status != 200 || a.body["active"] != false {
		t.Fatalf("deactivate: %d %s", a.status, a.raw)
	}
	if err := call(cs); err == nil {
		t.Error("a deactivated member's next call was answered")
	}
	if n := e.count(`SELECT count(*) FROM plumbline.oauth_tokens WHERE subject = $1 AND revoked_at IS NULL`, id); n != 0 {
		t.Errorf("%d tokens of a deactivated member are live", n)
	}
	reactivate := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":true}}]}`
	if a := e.scim("PATCH", "/Users/"+id, reactivate); a.status != 200 || a.body["active"] != true {
		t.Fatalf("reactivate: %d %s", a.status, a.raw)
	}
	if err := call(cs); err == nil {
		t.Error("a token revoked at deactivation works again after reactivation")
	}
	if err := call(e.connect(id)); err != nil {
		t.Errorf("a reactivated member's new token: %v", err)
	}

	// Push Groups: create, look up, rename (Okta sends the id in the
	// value), and change its members.
	group := e.scim("POST", "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Test SCIMv2","members":[]}`)
	gid := group.str("id")
	if group.status != 201 || gid == "" {
		t.Fatalf("create a group: %d %s", group.status, group.raw)
	}
	if a := e.scim("GET", "/Groups?filter="+url.QueryEscape(`displayName eq "Test SCIMv2"`)+"&startIndex=1&count=100", ""); a.body["totalResults"] != 1.0 {
		t.Errorf("look a group up: %d %s", a.status, a.raw)
	}
	rename := e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","value":{"id":"`+gid+`","displayName":"Hawks leads"}}]}`)
	if rename.status != 200 || rename.str("displayName") != "Hawks leads" {
		t.Errorf("rename a group: %d %s", rename.status, rename.raw)
	}
	add := e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"add","path":"members","value":[{"value":"`+id+`","display":"test.user@okta.local"}]}]}`)
	if add.status != 200 || e.count(`SELECT count(*) FROM plumbline.group_members WHERE person_id = $1`, id) != 1 {
		t.Errorf("add a member: %d %s", add.status, add.raw)
	}
	if a := e.scim("GET", "/Users/"+id, ""); !strings.Contains(a.raw, `"display":"Hawks leads"`) {
		t.Errorf("the user's groups: %s", a.raw)
	}
	remove := e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"remove","path":"members[value eq \"`+id+`\"]"}]}`)
	if remove.status != 200 || e.count(`SELECT count(*) FROM plumbline.group_members`) != 0 {
		t.Errorf("remove a member: %d %s", remove.status, remove.raw)
	}
	if a := e.scim("DELETE", "/Groups/"+gid, ""); a.status != 204 || e.count(`SELECT count(*) FROM plumbline.groups`) != 0 {
		t.Errorf("delete a group: %d %s", a.status, a.raw)
	}

	// Every change is on record, by the token's name, by id only.
	if n := e.count(`SELECT count(*) FROM plumbline.directory_changes WHERE changed_by = 'scim:idp'`); n != 9 {
		t.Errorf("%d changes on record, want 9 (create, update, deactivate, reactivate, group create, update, join, leave, delete)", n)
	}
}
