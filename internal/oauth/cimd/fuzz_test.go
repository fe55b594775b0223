package cimd

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary client metadata documents through the check a
// fetched document passes: nothing panics, a refusal is plumbline's own
// rule, and an accepted document names the
// URL it came from, a client name of at most 100 characters, and only
// redirect URIs that may be registered. Seeded from the documents the
// sign-in tests serve, good and defective.
func FuzzParse(f *testing.F) {
	const id = "https://desk.example.com/client.json"
	good := `{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["http://127.0.0.1/callback"],` +
		`"token_endpoint_auth_method":"none","grant_types":["authorization_code"]}`
	for _, seed := range []string{
		good,
		`{"client_id":"https://elsewhere.example.com/client.json","client_name":"Desk app","redirect_uris":["http://127.0.0.1/callback"]}`,
		`{"client_id":"` + id + `","client_name":"Desk app"}`,
		`{"client_id":"` + id + `","redirect_uris":["https://desk.example.com/cb"]}`,
		`{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["https://desk.example.com/cb"],"client_secret":"s3cret"}`,
		`{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["https://desk.example.com/cb"],"token_endpoint_auth_method":"client_secret_basic"}`,
		`{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["http://desk.example.com/cb"]}`,
		`{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["https://desk.example.com/cb"],"grant_types":["implicit"]}`,
		`{"client_id":"` + id + `","client_name":"Desk app","redirect_uris":["http://127.0.0.1/callback#x"],"response_types":["code"]}`,
		`{"client_id":"` + id + `","client_name":"` + strings.Repeat("é", 120) + `","redirect_uris":["https://[::1]/cb"],"client_uri":"https://desk.example.com"}`,
		`<html>`, `{}`, `null`, `[]`, `{"client_id":1}`,
	} {
		f.Add([]byte(seed), id)
	}
	f.Fuzz(func(t *testing.T, body []byte, clientID string) {
		doc, err := parse(body, clientID)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Rule == "" {
				t.Fatalf("a refusal that is not a rule: %v", err)
			}
			return
		}
		if doc.ClientID != clientID || strings.TrimSpace(doc.ClientName) == "" || utf8.RuneCountInString(doc.ClientName) > 100 || len(doc.RedirectURIs) == 0 {
			t.Fatalf("accepted %+v for %q", doc, clientID)
		}
		for _, r := range doc.RedirectURIs {
			if !ValidRedirect(r) || strings.Contains(r, "#") {
				t.Fatalf("accepted the redirect URI %q", r)
			}
		}
	})
}
