package intake_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"plumbline/internal/oauth/cimd"
	"plumbline/internal/oauth/intake"
)

// FuzzReadForm feeds arbitrary bodies, content types and query strings to
// the form reader of the token and revocation endpoints: nothing panics, a
// refusal is an OAuth error, and an accepted
// form came as a form in the body alone, within 64 KiB, with no parameter
// but resource repeated.
func FuzzReadForm(f *testing.F) {
	for _, seed := range []struct{ contentType, query, body string }{
		{"application/x-www-form-urlencoded", "", "grant_type=authorization_code&code=abc&code_verifier=" + strings.Repeat("v", 43) +
			"&redirect_uri=http%3A%2F%2F127.0.0.1%3A7777%2Fcallback&client_id=dcr_x&resource=http%3A%2F%2F127.0.0.1%2Fmcp"},
		{"application/x-www-form-urlencoded; charset=utf-8", "", "grant_type=client_credentials&scope=reports%3Aread+analyst%3Asql"},
		{"application/x-www-form-urlencoded", "", "token=plb_abc&client_id=a&client_id=b"},
		{"application/x-www-form-urlencoded", "", "resource=a&resource=b"},
		{"application/x-www-form-urlencoded", "code=1", "grant_type=authorization_code"},
		{"application/json", "", `{"grant_type":"authorization_code"}`},
		{"application/x-www-form-urlencoded", "", "%zz=1&a=%"},
		{"", "", ""},
	} {
		f.Add(seed.contentType, seed.query, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, contentType, query string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/token", bytes.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", contentType)
		err := intake.ReadForm(httptest.NewRecorder(), r)
		if err != nil {
			var oe *intake.Error
			if !errors.As(err, &oe) || oe.Code == "" || oe.Description == "" || oe.Status < 400 {
				t.Fatalf("a refusal that is not an OAuth error: %v", err)
			}
			return
		}
		if !strings.HasPrefix(contentType, "application/x-www-form-urlencoded") || query != "" || len(body) > intake.MaxForm {
			t.Fatalf("accepted a form of type %q with query %q and %d bytes", contentType, query, len(body))
		}
		for k, v := range r.PostForm {
			if len(v) > 1 && k != "resource" {
				t.Fatalf("accepted %s repeated", k)
			}
		}
	})
}

// FuzzDecodeRegistration feeds arbitrary bodies to Dynamic Client
// Registration: nothing panics, a refusal is an OAuth error of
// registration, and an accepted client has an
// application type, an authentication method this server offers, a name of
// at most 100 characters and one to ten redirect URIs that may be
// registered (https only, for a web app).
func FuzzDecodeRegistration(f *testing.F) {
	for _, seed := range []string{
		`{"redirect_uris":["http://127.0.0.1:7777/callback"],"client_name":"Desk app","token_endpoint_auth_method":"none","application_type":"native"}`,
		`{"redirect_uris":["https://app.example.com/cb"],"client_name":"Web app","application_type":"web","grant_types":["authorization_code"],"response_types":["code"]}`,
		`{"redirect_uris":["http://app.example.com/cb"],"application_type":"web"}`,
		`{"redirect_uris":["https://app.example.com/cb#frag"],"application_type":"native","token_endpoint_auth_method":"client_secret_post"}`,
		`{"redirect_uris":[],"application_type":"native"}`,
		`{"redirect_uris":["https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5","https://a.example/6","https://a.example/7","https://a.example/8","https://a.example/9","https://a.example/10","https://a.example/11"],"application_type":"web"}`,
		`{"redirect_uris":["https://app.example.com/cb"],"application_type":"native","grant_types":["implicit"]}`,
		`{"redirect_uris":["https://app.example.com/cb"],"application_type":"native","token_endpoint_auth_method":"private_key_jwt"}`,
		`{"redirect_uris":["https://app.example.com/cb"],"client_name":"` + strings.Repeat("ü", 130) + `","application_type":"native"}`,
		`{"redirect_uris":["https://app.example.com/cb"]}`, `[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := intake.DecodeRegistration(bytes.NewReader(body))
		if err != nil {
			var oe *intake.Error
			if !errors.As(err, &oe) || oe.Status != http.StatusBadRequest || !strings.HasPrefix(oe.Code, "invalid_") || oe.Description == "" {
				t.Fatalf("a refusal that is not a registration error: %v", err)
			}
			return
		}
		appType := c.ApplicationType
		if appType != "native" && appType != "web" {
			t.Fatalf("accepted application type %q", appType)
		}
		if c.AuthMethod != "none" && c.AuthMethod != "client_secret_basic" && c.AuthMethod != "client_secret_post" {
			t.Fatalf("accepted the authentication method %q", c.AuthMethod)
		}
		if strings.TrimSpace(c.Name) == "" || utf8.RuneCountInString(c.Name) > 100 || len(c.RedirectURIs) < 1 || len(c.RedirectURIs) > 10 {
			t.Fatalf("accepted the name %q and %d redirect URIs", c.Name, len(c.RedirectURIs))
		}
		for _, u := range c.RedirectURIs {
			if !cimd.ValidRedirect(u) || appType == "web" && !strings.HasPrefix(u, "https://") {
				t.Fatalf("accepted the redirect URI %q for a %s app", u, appType)
			}
		}
	})
}
