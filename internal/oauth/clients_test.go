package oauth_test

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"plumbline/internal/oauth"
	"plumbline/internal/oauth/cimd"
)

// docServer serves Client ID Metadata Documents over TLS on loopback.
type docServer struct {
	*httptest.Server
	mu      sync.Mutex
	docs    map[string]func(w http.ResponseWriter, id string)
	fetches map[string]int
}

func newDocServer(t *testing.T) *docServer {
	d := &docServer{docs: map[string]func(http.ResponseWriter, string){}, fetches: map[string]int{}}
	d.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		serve, ok := d.docs[r.URL.Path]
		d.fetches[r.URL.Path]++
		d.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		serve(w, d.URL+r.URL.Path)
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *docServer) set(path string, serve func(w http.ResponseWriter, id string)) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[path] = serve
	return d.URL + path
}

func (d *docServer) count(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fetches[path]
}

// jsonDoc serves a document built from a good one with change applied.
func jsonDoc(change func(doc map[string]any), header http.Header) func(http.ResponseWriter, string) {
	return func(w http.ResponseWriter, id string) {
		doc := map[string]any{"client_id": id, "client_name": "Desk app", "redirect_uris": []string{"http://127.0.0.1/callback"},
			"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code"}}
		if change != nil {
			change(doc)
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}
}

func cimdEnv(t *testing.T, d *docServer, allowLoopback bool) *env {
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	return newEnv(t, func(c *oauth.Config) {
		c.CIMD = cimd.Options{AllowLoopback: allowLoopback, RootCAs: pool, Timeout: 500 * time.Millisecond, FetchesPerMinute: fetchesPerMinute}
	})
}

// fetchesPerMinute lets one test address fetch every document its tests
// need; TestNothingFetchedForABadRequest holds the default.
var fetchesPerMinute = 100

// A client identified by its metadata document: a good one is accepted
// and the consent page shows the host that publishes it; each defect is
// refused with an error page and no redirect, and refusals are not cached.
func TestClientMetadataDocuments(t *testing.T) {
	d := newDocServer(t)
	e := cimdEnv(t, d, true)
	good := d.set("/good.json", jsonDoc(nil, nil))
	_, challenge := pkce("c")
	start := func(clientID, redirect string) (*http.Response, string) {
		p := authParams(challenge)
		p.Set("client_id", clientID)
		p.Set("redirect_uri", redirect)
		return get(t, e.browser(), e.authorizeURL(p))
	}
	if resp, page := start(good, "http://127.0.0.1:7777/callback"); resp.StatusCode != 200 || !strings.Contains(page, "Development sign-in") {
		t.Fatalf("a good document: %d\n%s", resp.StatusCode, page)
	}
	c := e.browser()
	p := authParams(challenge)
	p.Set("client_id", good)
	p.Set("redirect_uri", "http://127.0.0.1:7777/callback")
	_, consent := e.signIn(t, c, e.authorizeURL(p), dana.Email)
	docHost := strings.TrimPrefix(d.URL, "https://")
	if !strings.Contains(consent, `id="client-host">`+docHost+`<`) || !strings.Contains(consent, "Desk app") || !strings.Contains(consent, "chose that name itself") {
		t.Errorf("consent page for a metadata document client:\n%s", consent)
	}

	big := bytes.Repeat([]byte("x"), cimd.MaxDocumentBytes)
	// The document too slow to come is sent only once this test is done,
	// long after the fetch has given up.
	late := make(chan struct{})
	defer close(late)
	defects := map[string]func(http.ResponseWriter, string){
		"client_id differs":    jsonDoc(func(doc map[string]any) { doc["client_id"] = "https://elsewhere.example.com/client.json" }, nil),
		"no redirect_uris":     jsonDoc(func(doc map[string]any) { delete(doc, "redirect_uris") }, nil),
		"no client_name":       jsonDoc(func(doc map[string]any) { delete(doc, "client_name") }, nil),
		"a shared secret":      jsonDoc(func(doc map[string]any) { doc["client_secret"] = "s3cret" }, nil),
		"a secret auth method": jsonDoc(func(doc map[string]any) { doc["token_endpoint_auth_method"] = "client_secret_basic" }, nil),
		"an http redirect":     jsonDoc(func(doc map[string]any) { doc["redirect_uris"] = []string{"http://desk.example.com/cb"} }, nil),
		"implicit grant only":  jsonDoc(func(doc map[string]any) { doc["grant_types"] = []string{"implicit"} }, nil),
		"larger than 5 KB":     jsonDoc(func(doc map[string]any) { doc["padding"] = string(big) }, nil),
		"not JSON": func(w http.ResponseWriter, _ string) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("<html>"))
		},
		"served as text/html": func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`{}`))
		},
		"a redirect to a good": func(w http.ResponseWriter, _ string) {
			w.Header().Set("Location", good)
			w.WriteHeader(http.StatusFound)
		},
		"a 500":                 func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusInternalServerError) },
		"too slow":              func(w http.ResponseWriter, id string) { <-late; jsonDoc(nil, nil)(w, id) },
		"a 201, not 200":        func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusCreated) },
		"redirect not listed":   jsonDoc(func(doc map[string]any) { doc["redirect_uris"] = []string{"https://desk.example.com/cb"} }, nil),
		"a fragment in a redir": jsonDoc(func(doc map[string]any) { doc["redirect_uris"] = []string{"http://127.0.0.1/callback#x"} }, nil),
	}
	for name, serve := range defects {
		id := d.set("/defect/"+strings.ReplaceAll(name, " ", "-")+".json", serve)
		resp, page := start(id, "http://127.0.0.1:7777/callback")
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" || !strings.Contains(page, "This sign-in cannot go on") {
			t.Errorf("%s: %d %q\n%s", name, resp.StatusCode, resp.Header.Get("Location"), page)
		}
	}
	if resp, _ := start(d.URL+"/missing.json", "http://127.0.0.1:7777/callback"); resp.StatusCode != 400 {
		t.Errorf("a 404 document: %d", resp.StatusCode)
	}
	for name, id := range map[string]string{
		"a query":         good + "?v=1",
		"a dot segment":   d.URL + "/a/../good.json",
		"user info":       strings.Replace(good, "https://", "https://user@", 1),
		"no path":         d.URL + "/",
		"plain http":      strings.Replace(good, "https://", "http://", 1),
		"a fragment here": good + "#frag",
	} {
		if resp, _ := start(id, "http://127.0.0.1:7777/callback"); resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("a client_id with %s: %d", name, resp.StatusCode)
		}
	}

	// An error is never cached: once the document is fixed, it works.
	fixed := d.set("/flaky.json", func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusServiceUnavailable) })
	if resp, _ := start(fixed, "http://127.0.0.1:7777/callback"); resp.StatusCode != 400 {
		t.Fatalf("the flaky document's error: %d", resp.StatusCode)
	}
	d.set("/flaky.json", jsonDoc(nil, nil))
	if resp, _ := start(fixed, "http://127.0.0.1:7777/callback"); resp.StatusCode != 200 {
		t.Errorf("the fixed document: %d", resp.StatusCode)
	}

	// A valid document is cached as its headers allow, and no longer.
	cached := d.set("/cached.json", jsonDoc(nil, http.Header{"Cache-Control": {"max-age=600"}}))
	uncached := d.set("/uncached.json", jsonDoc(nil, http.Header{"Cache-Control": {"no-store"}}))
	for range 3 {
		start(cached, "http://127.0.0.1:7777/callback")
		start(uncached, "http://127.0.0.1:7777/callback")
	}
	if n := d.count("/cached.json"); n != 1 {
		t.Errorf("a document cacheable for ten minutes was fetched %d times", n)
	}
	if n := d.count("/uncached.json"); n != 3 {
		t.Errorf("a no-store document was fetched %d times, want 3", n)
	}
}

// By default the fetcher dials no loopback, private or link-local
// address, whatever name resolves to it.
func TestClientMetadataSSRF(t *testing.T) {
	d := newDocServer(t)
	e := cimdEnv(t, d, false)
	_, challenge := pkce("c")
	for _, id := range []string{
		d.set("/good.json", jsonDoc(nil, nil)),
		strings.Replace(d.URL, "127.0.0.1", "localhost", 1) + "/good.json",
		"https://10.0.0.1/client.json",
		"https://169.254.169.254/latest/meta-data.json",
		"https://[::1]/client.json",
	} {
		p := authParams(challenge)
		p.Set("client_id", id)
		p.Set("redirect_uri", "http://127.0.0.1:7777/callback")
		resp, page := get(t, e.browser(), e.authorizeURL(p))
		if resp.StatusCode != 400 || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d", id, resp.StatusCode)
		}
		if strings.HasPrefix(id, d.URL) && !strings.Contains(page, "an address this server does not fetch from") {
			t.Errorf("%s was refused for another reason:\n%s", id, page)
		}
	}
	if n := d.count("/good.json"); n != 0 {
		t.Errorf("the loopback document server was reached %d times", n)
	}
}

// The client domain allow-list admits only listed hosts.
func TestClientDomains(t *testing.T) {
	d := newDocServer(t)
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	e := newEnv(t, func(c *oauth.Config) {
		c.CIMD = cimd.Options{AllowLoopback: true, RootCAs: pool, Domains: []string{".example.org"}}
	})
	_, challenge := pkce("c")
	p := authParams(challenge)
	p.Set("client_id", d.set("/good.json", jsonDoc(nil, nil)))
	resp, page := get(t, e.browser(), e.authorizeURL(p))
	if resp.StatusCode != 400 || !strings.Contains(page, "allowed client domains") || d.count("/good.json") != 0 {
		t.Errorf("a host off the allow-list: %d\n%s", resp.StatusCode, page)
	}
}

// Dynamic Client Registration is off by default; turned on, it requires
// application_type, never mints a URL-like id, is rate-limited, and the
// client it registers completes the flow with its secret.
func TestDynamicClientRegistration(t *testing.T) {
	off := newEnv(t, nil)
	if resp, _ := postForm(t, http.DefaultClient, off.base+"/register", nil); resp.StatusCode != 404 {
		t.Errorf("registration while off: %d", resp.StatusCode)
	}
	e := newEnv(t, func(c *oauth.Config) { c.Registration = true })
	_, meta := get(t, http.DefaultClient, e.base+"/.well-known/oauth-authorization-server")
	if !strings.Contains(meta, `"registration_endpoint":"`+e.base+`/register"`) {
		t.Errorf("metadata while registration is on: %s", meta)
	}
	register := func(body string) (int, map[string]any) {
		resp, err := http.Post(e.base+"/register", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if status, out := register(`{"redirect_uris":["http://127.0.0.1/cb"],"client_name":"Old app"}`); status != 400 || out["error"] != "invalid_client_metadata" {
		t.Errorf("without application_type: %d %v", status, out)
	}
	if status, out := register(`{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"web"}`); status != 400 || out["error"] != "invalid_redirect_uri" {
		t.Errorf("a web app with an http redirect: %d %v", status, out)
	}
	status, out := register(`{"redirect_uris":["http://127.0.0.1/cb"],"client_name":"Old app","application_type":"native"}`)
	id, _ := out["client_id"].(string)
	secret, _ := out["client_secret"].(string)
	if status != 201 || id == "" || strings.HasPrefix(id, "http") || secret == "" || out["client_secret_expires_at"] != 0.0 {
		t.Fatalf("register: %d %v", status, out)
	}

	verifier, challenge := pkce("dcr")
	p := authParams(challenge)
	p.Set("client_id", id)
	p.Set("redirect_uri", "http://127.0.0.1:5151/cb")
	c := e.browser()
	_, consent := e.signIn(t, c, e.authorizeURL(p), dana.Email)
	back := e.approve(t, c, consent)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "code_verifier": {verifier}}
	req, _ := http.NewRequest(http.MethodPost, e.base+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
		t.Errorf("a wrong secret: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, e.base+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tr tokenResponse
	json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	if resp.StatusCode != 200 || e.mcpStatus(t, tr.Access, nil).StatusCode != 200 {
		t.Errorf("the registered client's token: %d %+v", resp.StatusCode, tr)
	}

	// Twenty registrations in a burst, then the limit.
	var limited bool
	for range 25 {
		if status, _ := register(`{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"native","token_endpoint_auth_method":"none"}`); status == 429 {
			limited = true
			break
		}
	}
	if !limited {
		t.Error("25 registrations in a row were not rate-limited")
	}
}
