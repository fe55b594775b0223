package scim_test

import (
	"net/url"
	"strings"
	"testing"
)

// The requests Microsoft Entra ID's provisioning service sends, as its
// documentation gives them, quirks included: its connection test looks up
// a user no one has, it creates a user with the enterprise extension (the
// employee number becomes the person's id in plumbline), matches by
// externalId, sends a PATCH per attribute with capitalised operations, the
// manager as a bare id and active as the string "False", provisions groups
// with a schema of its own, removes members by listing them in the value,
// and deletes. The person is refused on their next call once deactivated,
// and the deleted one is gone.
func TestEntra(t *testing.T) {
	e := newEnv(t)
	probe := "/Users?filter=" + url.QueryEscape(`userName eq "c2a4a5c9-3e27-4a8a-9b36-0b6c2a1f5e11"`)
	if a := e.scim("GET", probe, ""); a.status != 200 || a.body["totalResults"] != 0.0 {
		t.Fatalf("the connection test: %d %s", a.status, a.raw)
	}

	created := e.scim("POST", "/Users", `{
		"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
		"externalId":"0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef","userName":"Test_User_ab6490ee@testuser.com","active":true,
		"emails":[{"primary":true,"type":"work","value":"Test_User_fd0ea19b@testuser.com"}],
		"meta":{"resourceType":"User"},"name":{"formatted":"givenName familyName","familyName":"familyName","givenName":"givenName"},
		"roles":[],"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"A-1001","department":"Sales"}}`)
	id := created.str("id")
	if created.status != 201 || !strings.Contains(created.raw, `"employeeNumber":"A-1001"`) ||
		created.str("displayName") != "givenName familyName" {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	if n := e.count(`SELECT count(*) FROM plumbline.members WHERE person_id = 'A-1001' AND scim_id::text = $1
		AND email = 'test_user_fd0ea19b@testuser.com' AND user_name = 'Test_User_ab6490ee@testuser.com'`, id); n != 1 {
		t.Errorf("the member's row after create: %d", n)
	}
	match := e.scim("GET", "/Users?filter="+url.QueryEscape(`externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"`), "")
	if match.status != 200 || match.body["totalResults"] != 1.0 {
		t.Errorf("match by externalId: %d %s", match.status, match.raw)
	}
	cs := e.connect("A-1001")
	if err := call(cs); err != nil {
		t.Fatalf("an active member's call: %v", err)
	}

	update := e.scim("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
		{"op":"Replace","path":"emails[type eq \"work\"].value","value":"updatedEmail@testuser.com"},
		{"op":"Replace","path":"name.familyName","value":"updatedFamilyName"},
		{"op":"Add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"2819c223-7f76-453a-919d-413861904646"},
		{"op":"Replace","path":"phoneNumbers[type eq \"work\"].value","value":"555-0100"}]}`)
	if update.status != 200 || update.str("name.familyName") != "updatedFamilyName" || !strings.Contains(update.raw, "updatedemail@testuser.com") ||
		strings.Contains(update.raw, "555-0100") || strings.Contains(update.raw, "2819c223") {
		t.Errorf("update, keeping nothing of the phone or the manager: %d %s", update.status, update.raw)
	}
	if err := call(cs); err != nil {
		t.Errorf("a call after a profile update: %v", err)
	}

	disable := e.scim("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Replace","path":"active","value":"False"}]}`)
	if disable.status != 200 || disable.body["active"] != false {
		t.Fatalf("disable: %d %s", disable.status, disable.raw)
	}
	if err := call(cs); err == nil {
		t.Error("a disabled member's next call was answered")
	}

	group := e.scim("POST", "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group",
		"http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"],
		"externalId":"8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159","displayName":"Floor managers","meta":{"resourceType":"Group"}}`)
	gid := group.str("id")
	if group.status != 201 || gid == "" {
		t.Fatalf("create a group: %d %s", group.status, group.raw)
	}
	lookup := "/Groups?excludedAttributes=members&filter=" + url.QueryEscape(`displayName eq "Floor managers"`)
	if a := e.scim("GET", lookup, ""); a.status != 200 || a.body["totalResults"] != 1.0 {
		t.Errorf("look a group up: %d %s", a.status, a.raw)
	}
	add := e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Add","path":"members","value":[{"$ref":null,"value":"`+id+`"}]}]}`)
	if add.status != 200 || e.count(`SELECT count(*) FROM plumbline.group_members WHERE person_id = 'A-1001'`) != 1 {
		t.Errorf("add a member: %d %s", add.status, add.raw)
	}
	remove := e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Remove","path":"members","value":[{"$ref":null,"value":"`+id+`"}]}]}`)
	if remove.status != 200 || e.count(`SELECT count(*) FROM plumbline.group_members`) != 0 {
		t.Errorf("remove a member: %d %s", remove.status, remove.raw)
	}
	e.scim("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"Add","path":"members","value":[{"value":"`+id+`"}]}]}`)

	if a := e.scim("DELETE", "/Users/"+id, ""); a.status != 204 {
		t.Fatalf("delete: %d %s", a.status, a.raw)
	}
	if a := e.scim("GET", "/Users/"+id, ""); a.status != 404 || a.str("status") != "404" {
		t.Errorf("a deleted user: %d %s", a.status, a.raw)
	}
	if n := e.count(`SELECT count(*) FROM plumbline.members WHERE person_id = 'A-1001'`) +
		e.count(`SELECT count(*) FROM plumbline.group_members`); n != 0 {
		t.Error("a deleted member's row or group membership is still there")
	}
	if n := e.count(`SELECT count(*) FROM plumbline.oauth_tokens WHERE subject = 'A-1001' AND revoked_at IS NULL`); n != 0 {
		t.Errorf("%d tokens of a deleted member are live", n)
	}
}
