package scim_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const okta = `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"private.person@floor.example",
	"emails":[{"primary":true,"value":"private.person@floor.example","type":"work"}],"displayName":"Private Person"%s}`

// A request plumbline cannot take is refused with a SCIM error (RFC 7644
// §3.12) whose detail names the request, the place and the rule, changes
// nothing, and never repeats a value it was sent.
func TestRefusalsTeach(t *testing.T) {
	e := newEnv(t)
	patch := func(ops string) string {
		return `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[` + ops + `]}`
	}
	existing := e.scim("POST", "/Users", fmt.Sprintf(okta, ""))
	id := existing.str("id")
	if existing.status != 201 {
		t.Fatalf("create: %d %s", existing.status, existing.raw)
	}
	before := e.count(`SELECT count(*) FROM plumbline.directory_changes`)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		kind, detail             string
	}{
		{"an attribute no schema defines", "POST", "/Users", fmt.Sprintf(okta, `,"favouriteColour":"teal-secret"`), 400, "invalidSyntax",
			"POST /scim/v2/Users: favouriteColour: no such attribute in urn:ietf:params:scim:schemas:core:2.0:User; plumbline refuses attributes its schemas do not define"},
		{"an extension plumbline does not know", "POST", "/Users", fmt.Sprintf(okta, `,"urn:example:scim:Badge":{"pin":"teal-secret"}`), 400, "invalidSyntax",
			"POST /scim/v2/Users: urn:example:scim:Badge: no such attribute"},
		{"a sub-attribute no schema defines", "POST", "/Users", fmt.Sprintf(okta, `,"name":{"middleNme":"teal-secret"}`), 400, "invalidSyntax",
			"POST /scim/v2/Users: name.middleNme: no such sub-attribute of name; it has formatted, familyName, givenName"},
		{"a name that could be personal data", "POST", "/Users", fmt.Sprintf(okta, `,"teal-secret@floor.example":1`), 400, "invalidSyntax",
			"POST /scim/v2/Users: (a name that is not an attribute name): no such attribute"},
		{"a value of the wrong type", "POST", "/Users", strings.Replace(fmt.Sprintf(okta, ""), `"primary":true`, `"primary":"teal-secret"`, 1), 400, "invalidValue",
			"POST /scim/v2/Users: emails[0].primary: must be true or false. Nothing was changed."},
		{"no email address", "POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"teal-secret"}`, 400, "invalidValue",
			"POST /scim/v2/Users: emails: a User needs an email address (user@domain)"},
		{"no user name", "POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"displayName":"teal-secret"}`, 400, "invalidValue",
			"POST /scim/v2/Users: userName: a User must have one"},
		{"no schemas", "POST", "/Users", `{"userName":"teal-secret@floor.example"}`, 400, "invalidSyntax",
			"POST /scim/v2/Users: schemas: must be a list of schema URIs that holds urn:ietf:params:scim:schemas:core:2.0:User"},
		{"not JSON", "POST", "/Users", `{"userName":"teal-secret`, 400, "invalidSyntax", "POST /scim/v2/Users: the body: must be one JSON object"},
		{"a user name another has", "POST", "/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"PRIVATE.PERSON@floor.example",
			"emails":[{"value":"teal-secret@floor.example","primary":true}]}`, 409, "uniqueness",
			"POST /scim/v2/Users: userName: another resource already has this value, and it must be unique"},
		{"an operation that is not one", "PATCH", "/Users/" + id, patch(`{"op":"merge","value":{"active":false}}`), 400, "invalidValue",
			"PATCH /scim/v2/Users/{id}: Operations[0].op: must be add, remove or replace. Nothing was changed."},
		{"a path to no attribute", "PATCH", "/Users/" + id, patch(`{"op":"replace","path":"active"},{"op":"replace","path":"shoeSize","value":"teal-secret"}`),
			400, "invalidPath", "PATCH /scim/v2/Users/{id}: Operations[1].path: no such attribute"},
		{"a path that is not one", "PATCH", "/Users/" + id, patch(`{"op":"replace","path":"emails[type eq","value":"teal-secret"}`), 400, "invalidPath",
			"PATCH /scim/v2/Users/{id}: Operations[0].path: is not an attribute path"},
		{"an unknown key in an operation", "PATCH", "/Users/" + id, patch(`{"op":"replace","path":"active","value":false,"why":"teal-secret"}`), 400, "invalidSyntax",
			"PATCH /scim/v2/Users/{id}: Operations[0].why: an operation has op, path and value only"},
		{"removing the email", "PATCH", "/Users/" + id, patch(`{"op":"remove","path":"emails"}`), 400, "mutability",
			"PATCH /scim/v2/Users/{id}: Operations[0]: a User must keep an email address"},
		{"a malformed filter", "GET", "/Users?filter=" + url.QueryEscape(`userName eq "teal-secret`), "", 400, "invalidFilter",
			"GET /scim/v2/Users: filter: is not a SCIM filter (RFC 7644 §3.4.2.2); write it as attribute, operator, value"},
		{"a filter on no attribute", "GET", "/Users?filter=" + url.QueryEscape(`shoeSize eq "teal-secret"`), "", 400, "invalidFilter",
			"GET /scim/v2/Users: filter: names an attribute Users do not have: shoeSize"},
		{"a count that is not a number", "GET", "/Users?count=teal-secret", "", 400, "invalidValue", "GET /scim/v2/Users: count: must be a whole number."},
		{"an id no one has", "PATCH", "/Users/teal-secret", patch(`{"op":"replace","path":"active","value":false}`), 404, "",
			"PATCH /scim/v2/Users/{id}: no resource has this id"},
		{"a group member no one is", "POST", "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Hawks",
			"members":[{"value":"` + id + `"},{"value":"teal-secret"}]}`, 400, "invalidValue",
			"POST /scim/v2/Groups: members[1].value: no User has this id"},
	} {
		a := e.scim(c.method, c.path, c.body)
		detail := a.str("detail")
		if a.status != c.status || a.str("status") != fmt.Sprint(c.status) || a.str("scimType") != c.kind || !strings.HasPrefix(detail, c.detail) ||
			a.header.Get("Content-Type") != "application/scim+json" {
			t.Errorf("%s: %d %s\nwant %d %s %q", c.name, a.status, a.raw, c.status, c.kind, c.detail)
		}
		if strings.Contains(a.raw, "teal-secret") || strings.Contains(a.raw, "private.person") {
			t.Errorf("%s: the refusal repeats what it was sent: %s", c.name, a.raw)
		}
		if c.method != "GET" && !strings.HasSuffix(detail, "Nothing was changed.") {
			t.Errorf("%s: the refusal does not say that nothing was changed: %s", c.name, detail)
		}
	}
	if n := e.count(`SELECT count(*) FROM plumbline.directory_changes`); n != before ||
		e.count(`SELECT count(*) FROM plumbline.members WHERE status = 'active' AND display_name = 'Private Person'`) != 1 ||
		e.count(`SELECT count(*) FROM plumbline.groups`) != 0 {
		t.Errorf("a refused request changed the directory: %d changes, %d before", n, before)
	}
}

// Only a live SCIM token opens the endpoint; an access token does not, a
// browser may not call it, and an address that keeps sending bad tokens
// is held off, whatever it sends next.
func TestTheEndpointIsItsOwn(t *testing.T) {
	e := newEnv(t)
	with := func(header, value string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set(header, value) }
	}
	if a := e.scim("GET", "/Users", ""); a.status != 200 {
		t.Fatalf("a SCIM token: %d %s", a.status, a.raw)
	}
	if a := e.scim("GET", "/Users", ""); a.status != 200 || a.header.Get("Content-Type") != "application/scim+json" {
		t.Fatalf("a SCIM token: %d %s", a.status, a.raw)
	}
	browser := e.send("GET", "/Users", "", func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+e.token)
		r.Header.Set("Origin", e.base)
	})
	if browser.status != 403 || !strings.Contains(browser.str("detail"), "no browser may call it") {
		t.Errorf("a browser: %d %s", browser.status, browser.raw)
	}
	if a := e.send("GET", "/Users", "", func(r *http.Request) { r.Host = "elsewhere.example" }); a.status != 421 {
		t.Errorf("another Host: %d", a.status)
	}
	access, _, err := e.oauth.CreateServiceToken(t.Context(), e.server.Config(), "nightly", []string{"reports:read"}, 3600e9)
	if err != nil {
		t.Fatal(err)
	}
	for name, adjust := range map[string]func(*http.Request){
		"no token": nil, "an access token": with("Authorization", "Bearer "+access), "a wrong SCIM token": with("Authorization", "Bearer plbscim_wrong"),
	} {
		a := e.send("GET", "/Users", "", adjust)
		if a.status != 401 || !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer ") ||
			!strings.Contains(a.str("detail"), "GET /scim/v2/Users: Authorization: send a live SCIM token") {
			t.Errorf("%s: %d %s", name, a.status, a.raw)
		}
	}
	if n, err := e.dir.RevokeTokens(t.Context(), nil, "idp"); err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	for range 7 {
		if a := e.scim("GET", "/Users", ""); a.status != 401 {
			t.Fatalf("a revoked token: %d %s", a.status, a.raw)
		}
	}
	token, _, err := e.dir.CreateToken(t.Context(), "idp", 3600e9)
	if err != nil {
		t.Fatal(err)
	}
	held := e.send("GET", "/Users", "", with("Authorization", "Bearer "+token))
	if held.status != 429 || held.header.Get("Retry-After") == "" || !strings.Contains(held.str("detail"), "without a valid SCIM token") {
		t.Errorf("the eleventh request after ten failures: %d %s", held.status, held.raw)
	}
}
