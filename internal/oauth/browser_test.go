package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"plumbline/internal/clienttest"
	"plumbline/internal/oauth"
)

// chromium starts a headless Chromium for a test.
func chromium(t *testing.T) context.Context { return clienttest.Chromium(t) }

// signInWithBrowser takes the browser from an authorization URL through
// the development sign-in (as email) and the consent page, approving, and
// returns the consent page's redirect host as the browser showed it.
func signInWithBrowser(t *testing.T, ctx context.Context, authURL, email string) string {
	t.Helper()
	person := chromedp.CSS(`button[value="` + email + `"]`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(authURL),
		chromedp.WaitVisible(person),
		chromedp.Click(person),
		chromedp.WaitVisible(chromedp.ID("approve")),
	)
	var redirectHost string
	if err == nil {
		redirectHost, err = chromedp.Run(ctx, chromedp.Text(chromedp.ID("redirect-host")))
	}
	if err == nil {
		err = chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve")))
	}
	if err != nil {
		page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
		t.Fatalf("sign in with the browser: %v\n%s", err, page)
	}
	return redirectHost
}

// The whole sign-in in a real browser: a client starts authorization, the
// development sign-in signs a person in, the consent page shows the
// redirect host, the approval brings a code to the client's loopback
// callback, and the client redeems it and calls a report.
func TestBrowserSignIn(t *testing.T) {
	e := newEnv(t, nil)
	ctx := chromium(t)
	callbacks := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			callbacks <- r.URL.Query()
		}
		w.Write([]byte("signed in; you can close this page"))
	}))
	defer client.Close()
	clientHost := strings.TrimPrefix(client.URL, "http://")

	verifier, challenge := pkce("browser")
	p := authParams(challenge)
	p.Set("redirect_uri", client.URL+"/callback")
	shown := signInWithBrowser(t, ctx, e.authorizeURL(p), dana.Email)
	if shown != clientHost {
		t.Errorf("the consent page showed %q as the redirect host, want %q", shown, clientHost)
	}
	var q url.Values
	select {
	case q = <-callbacks:
	case <-time.After(30 * time.Second):
		t.Fatal("the client's callback was never reached")
	}
	if q.Get("state") != "st-123" || q.Get("iss") != e.base || q.Get("code") == "" {
		t.Fatalf("the callback got %v", q)
	}
	tr := e.redeem(t, q.Get("code"), verifier, url.Values{"redirect_uri": {client.URL + "/callback"}})
	if tr.status != 200 {
		t.Fatalf("redeem the code: %+v", tr)
	}
	cs := e.connect(t, tr.Access)
	out, isErr := callTool(t, cs, "sales", `{"who":{"team":"falcons"},"period":{"named":"last_week"},"group_by":"week"}`)
	if isErr || len(out["rows"].([]any)) != 1 {
		t.Fatalf("a report with the browser-issued token: %v", out)
	}
	if got := e.records.last().Caller; got.Person != dana.PersonID || got.Client != known.ID {
		t.Errorf("the report was recorded as %+v", got)
	}
}

// A client names itself, and a name can try to lie: a right-to-left
// override that makes "Reports desk" end in what reads as a file name, a
// bell, a line separator. The consent page, as a real browser shows it,
// holds none of those characters, marks where each was and says the name
// was altered; every other client-supplied text on it (the redirect host,
// the client id) is shown the same way.
func TestConsentPageNeutralisesClientText(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) { c.Registration = true })
	ctx := chromium(t)
	resp, err := http.Post(e.base+"/register", "application/json", strings.NewReader(
		`{"redirect_uris":["http://127.0.0.1/callback"],"application_type":"native","token_endpoint_auth_method":"none",`+
			`"client_name":"Reports desk\u202eexe.cod\u0007\u2028\u2066x"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if reg.ClientID == "" {
		t.Fatalf("registration: %d", resp.StatusCode)
	}
	_, challenge := pkce("bidi")
	p := authParams(challenge)
	p.Set("client_id", reg.ClientID)
	person := chromedp.CSS(`button[value="` + dana.Email + `"]`)
	err = chromedp.Do(ctx, chromedp.Navigate(e.authorizeURL(p)), chromedp.WaitVisible(person), chromedp.Click(person),
		chromedp.WaitVisible(chromedp.ID("approve")))
	if err != nil {
		t.Fatalf("reach the consent page: %v", err)
	}
	name, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("client-name")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r == '\u202e' || r == '\u0007' || r == '\u2028' || r == '\u2066' }) {
		t.Errorf("the consent page shows the client's name with its control and direction characters: %q", name)
	}
	if want := "Reports desk\ufffdexe.cod\ufffd\ufffd\ufffdx"; name != want {
		t.Errorf("the client's name reads %q, want %q", name, want)
	}
	said, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("client-text-altered")?.checkVisibility() === true`))
	if err != nil || !said {
		t.Errorf("the consent page does not say what the app sent was altered (%v)", err)
	}
}
