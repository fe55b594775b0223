package oauth_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"plumbline/internal/clienttest"
	"plumbline/internal/signin"
)

// startProvider runs a real OpenID Connect provider (the npm package
// oidc-provider) on loopback, with plumbline registered as a confidential
// client, and returns its issuer.
func startProvider(t *testing.T, redirectURI string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, clienttest.Node(t), "oidc-provider.mjs", fmt.Sprint(freePort(t)), "plumbline", "op-secret", redirectURI)
	cmd.Dir = clienttest.Dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if issuer, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- issuer
			}
		}
	}()
	select {
	case issuer := <-ready:
		return issuer
	case <-time.After(30 * time.Second):
		t.Fatal("the OpenID Connect provider did not start")
		return ""
	}
}

// People sign in with an OpenID Connect provider: discovery, the code flow
// with PKCE, and the ID token verified; the verified email must be an
// active member's. Driven in the browser through the provider's own pages.
func TestOpenIDConnectSignIn(t *testing.T) {
	e := newEnvWith(t, envOptions{signIn: func(base string) signin.Method {
		callback := base + "/signin/oidc/callback"
		m, err := signin.NewOIDC(context.Background(), signin.OIDCConfig{Issuer: startProvider(t, callback),
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

	// Someone the provider knows but the directory does not is refused.
	ctx = chromium(t)
	page = signInAt(ctx, e.authorizeURL(p), "stranger@elsewhere.example")
	if !strings.Contains(page, "not an active member") || strings.Contains(page, `id="approve"`) {
		t.Errorf("a stranger signing in:\n%s", page)
	}
}
