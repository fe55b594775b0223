package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"plumbline/internal/oauth"
)

// The token store works signed in as plumbline's login, as the auth role
// with the grants of sql/roles/database.sql: sign-in, consent, codes,
// tokens, revocation, registration and the token commands.
func TestStoreRunsAsAuthRole(t *testing.T) {
	e := newEnvWith(t, envOptions{asApp: true, adjust: func(c *oauth.Config) { c.Registration = true }})
	ctx := context.Background()

	code, verifier := e.code(t)
	tr := e.redeem(t, code, verifier, nil)
	if tr.status != 200 || e.mcpStatus(t, tr.Access, nil).StatusCode != 200 {
		t.Fatalf("the flow as the auth role: %+v", tr)
	}
	if again := e.redeem(t, code, verifier, nil); again.Error != "invalid_grant" || e.mcpStatus(t, tr.Access, nil).StatusCode != 401 {
		t.Errorf("a replayed code as the auth role: %+v", again)
	}
	code, verifier = e.code(t) // consent remembered
	tr = e.redeem(t, code, verifier, nil)
	if resp, _ := postForm(t, http.DefaultClient, e.base+"/revoke", map[string][]string{"token": {tr.Access}, "client_id": {known.ID}}); resp.StatusCode != 200 ||
		e.mcpStatus(t, tr.Access, nil).StatusCode != 401 {
		t.Errorf("revocation as the auth role: %d", resp.StatusCode)
	}
	resp, err := http.Post(e.base+"/register", "application/json",
		strings.NewReader(`{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"native","token_endpoint_auth_method":"none"}`))
	if err != nil || resp.StatusCode != 201 {
		t.Errorf("registration as the auth role: %v %v", resp.StatusCode, err)
	}
	for range oauth.MaxPersonTokens + 1 {
		if _, _, err := e.store.CreatePersonToken(ctx, e.server.Config(), dana.PersonID, time.Hour); err != nil {
			t.Fatalf("a person token as the auth role: %v", err)
		}
	}
	token, info, err := e.store.CreateServiceToken(ctx, e.server.Config(), "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil || e.mcpStatus(t, token, nil).StatusCode != 200 {
		t.Fatalf("a service token as the auth role: %v", err)
	}
	if list, err := e.store.ListTokens(ctx, true); err != nil || len(list) == 0 {
		t.Errorf("list tokens as the auth role: %v", err)
	}
	if n, err := e.store.RevokeTokens(ctx, []int64{info.ID}, "", ""); err != nil || n != 1 {
		t.Errorf("revoke tokens as the auth role: %d %v", n, err)
	}
}
