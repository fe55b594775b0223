package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"plumbline/internal/clienttest"
	"plumbline/internal/signin"
)

// startProvider runs a real OpenID Connect provider (the npm package
// oidc-provider) on loopback, with plumbline registered as a confidential
// client, set as g says, and returns its issuer.
func startProvider(t *testing.T, redirectURI string, g guide) string {
	t.Helper()
	return clienttest.OIDCProvider(t, redirectURI, g.path, g.vouch)
}

// guide is what a sign-in guide of the README ("Sign-in with your
// identity provider") sets, as far as the test's provider can be set so:
// where the issuer is, and the claim that vouches for the email address.
// Each registers BASE/signin/oidc/callback as the redirect URI and is
// asked for the scopes openid, email and profile.
type guide struct{ name, path, vouch string }

var guides = []guide{
	{"Okta", "/oauth2/default", "email_verified"},
	{"Microsoft Entra ID", "/6f1c3a52-8a0e-4d0b-9c55-2b7e5e1d9a10/v2.0", "xms_edov"},
	{"Google", "", "email_verified"},
	{"Clerk", "", "email_verified"},
}

// People sign in with an OpenID Connect provider set as each guide says:
// discovery, the code flow with PKCE, and the ID token verified; the
// email must be vouched for, and an active member's. Driven in the
// browser through the provider's own pages.
func TestOpenIDConnectSignIn(t *testing.T) {
	for _, g := range guides {
		t.Run(g.name, func(t *testing.T) { signInWith(t, g) })
	}
}

func signInWith(t *testing.T, g guide) {
	e := newEnvWith(t, envOptions{signIn: func(base string) signin.Method {
		callback := base + "/signin/oidc/callback"
		m, err := signin.NewOIDC(context.Background(), signin.OIDCConfig{Issuer: startProvider(t, callback, g),
			ClientID: "plumbline", ClientSecret: "op-secret", RedirectURL: callback})
		if err != nil {
			t.Fatalf("discover the provider: %v", err)
		}
		return m
	}})
	callbacks := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		callbacks <- r.URL.Query()
		w.Write([]byte("signed in"))
	}))
	defer client.Close()

	// signInAt the provider with a login (its development login takes any
	// login as the account, whose email it is) and returns where the
	// browser ends up.
	signInAt := func(ctx context.Context, authURL, login string) string {
		submit := chromedp.CSS(`button.login-submit`)
		err := chromedp.Do(ctx,
			chromedp.Navigate(authURL),
			chromedp.WaitVisible(chromedp.CSS(`input[name="login"]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name="login"]`), login),
			chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "any"),
			chromedp.Click(submit),
			chromedp.WaitReady(chromedp.CSS(`input[name="prompt"][value="consent"]`)),
			chromedp.Click(submit),
		)
		if err != nil {
			t.Fatalf("sign in at the provider: %v", err)
		}
		// Wait for the browser to be back on plumbline, on a page of its own.
		for range 100 {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
			if strings.HasPrefix(loc, e.base) && (strings.Contains(page, `id="approve"`) || strings.Contains(page, `id="problem"`)) {
				return page
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the browser did not come back from the provider")
		return ""
	}

	verifier, challenge := pkce("oidc")
	p := authParams(challenge)
	p.Set("redirect_uri", client.URL+"/callback")
	ctx := chromium(t)
	page := signInAt(ctx, e.authorizeURL(p), dana.Email)
	if !strings.Contains(page, `id="approve"`) || !strings.Contains(page, "Signed in as Dana Okafor") {
		t.Fatalf("after the provider, the consent page:\n%s", page)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve"))); err != nil {
		t.Fatal(err)
	}
	var q url.Values
	select {
	case q = <-callbacks:
	case <-time.After(30 * time.Second):
		t.Fatal("the client's callback was never reached")
	}
	tr := e.redeem(t, q.Get("code"), verifier, url.Values{"redirect_uri": {client.URL + "/callback"}})
	if tr.status != 200 || e.mcpStatus(t, tr.Access, nil).StatusCode != 200 {
		t.Fatalf("the token after OpenID Connect sign-in: %+v", tr)
	}

	// Someone the provider knows but the directory does not is refused
	// (whatever the provider), and so is a member whose address the
	// provider does not vouch for.
	if g == guides[0] {
		ctx = chromium(t)
		page = signInAt(ctx, e.authorizeURL(p), "stranger@elsewhere.example")
		if !strings.Contains(page, "not an active member") || strings.Contains(page, `id="approve"`) {
			t.Errorf("a stranger signing in:\n%s", page)
		}
	}
	e.exec(`UPDATE plumbline.members SET email = 'unverified.' || email WHERE person_id = $1`, dana.PersonID)
	ctx = chromium(t)
	page = signInAt(ctx, e.authorizeURL(p), "unverified."+dana.Email)
	if !strings.Contains(page, "vouches for no verified email address") || strings.Contains(page, `id="approve"`) {
		t.Errorf("an address not vouched for:\n%s", page)
	}
}
