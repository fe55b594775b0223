package scim

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// A request's body or filter, whatever it holds, is either taken (put
// right, and still one JSON object) or refused with a place and a rule
// that repeat nothing of a value it holds: "@planted@" cannot be part of
// an attribute's name, the only thing a refusal may repeat.
func FuzzIntake(f *testing.F) {
	for _, seed := range []string{
		`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"@planted@","emails":[{"value":"a@b.c","primary":"True"}]}`,
		`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`,
		`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false,"id":"x"}}]}`,
		`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"remove","path":"members[value eq \"@planted@\"]"}]}`,
		`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"@planted@","members":[{"value":"@planted@"}]}`,
		`userName eq "@planted@"`, `emails[type eq "work" and value co "@planted@"]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, rt := range []resource{users, groups} {
			for _, check := range []func([]byte) ([]byte, *problem){rt.checkResource, rt.checkPatch} {
				out, p := check([]byte(body))
				if p != nil {
					if strings.Contains(p.Error(), "@planted@") {
						t.Fatalf("a refusal repeats a value: %v", p)
					}
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(out, &m); err != nil || m == nil {
					t.Fatalf("taken, but not a JSON object: %s", out)
				}
			}
			if p := rt.checkQuery(url.Values{"filter": {body}, "count": {body}}); p != nil && strings.Contains(p.Error(), "@planted@") {
				t.Fatalf("a refusal repeats a value: %v", p)
			}
		}
	})
}
