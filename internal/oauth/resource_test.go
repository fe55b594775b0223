package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"plumbline/internal/oauth"
	"plumbline/reports/ask"
)

// The metadata documents name one issuer and one resource, byte for byte,
// derived from the one base URL.
func TestMetadata(t *testing.T) {
	e := newEnv(t, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, body := get(t, http.DefaultClient, e.base+path)
		var prm struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
			Bearer               []string `json:"bearer_methods_supported"`
		}
		json.Unmarshal([]byte(body), &prm)
		if resp.StatusCode != 200 || prm.Resource != e.base+"/mcp" || !slices.Equal(prm.AuthorizationServers, []string{e.base}) ||
			!slices.Equal(prm.Scopes, []string{"reports:read", "people:read"}) || !slices.Equal(prm.Bearer, []string{"header"}) ||
			resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, body := get(t, http.DefaultClient, e.base+"/.well-known/oauth-authorization-server")
	var as map[string]any
	json.Unmarshal([]byte(body), &as)
	want := map[string]any{
		"issuer": e.base, "authorization_endpoint": e.base + "/authorize", "token_endpoint": e.base + "/token",
		"revocation_endpoint": e.base + "/revoke", "client_id_metadata_document_supported": true,
		"authorization_response_iss_parameter_supported": true,
	}
	for k, v := range want {
		if as[k] != v {
			t.Errorf("authorization server metadata %s = %v, want %v", k, as[k], v)
		}
	}
	if !strings.Contains(body, `"code_challenge_methods_supported":["S256"]`) || !strings.Contains(body, `"response_types_supported":["code"]`) ||
		!strings.Contains(body, `"grant_types_supported":["authorization_code"]`) || strings.Contains(body, "registration_endpoint") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("authorization server metadata: %s", body)
	}
}

// A request without a token, with a bad, expired or query-string token,
// or with a token for another resource or issuer, is refused with the
// challenge that tells a client where to sign in.
func TestBearerChallenges(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	metadata := `resource_metadata="` + e.base + `/.well-known/oauth-protected-resource/mcp"`

	resp := e.mcpStatus(t, "", nil)
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 ||
		got != `Bearer `+metadata+`, scope="reports:read people:read"` {
		t.Errorf("no token: %d %s", resp.StatusCode, got)
	}
	resp = e.mcpStatus(t, "plb_made-up", nil)
	if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(got, `error="invalid_token"`) ||
		!strings.Contains(got, metadata) || strings.Contains(got, "made-up") {
		t.Errorf("a made-up token: %d %s", resp.StatusCode, got)
	}

	cfg := e.server.Config()
	token, info, err := e.store.CreateServiceToken(ctx, cfg, "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if resp := e.mcpStatus(t, token, nil); resp.StatusCode != 200 {
		t.Fatalf("a good token: %d", resp.StatusCode)
	}
	resp = e.mcpStatus(t, "", func(r *http.Request) { r.URL.RawQuery = "access_token=" + token })
	if resp.StatusCode != 400 {
		t.Errorf("a token in the URL: %d", resp.StatusCode)
	}

	// Tokens issued for another deployment sharing the database: another
	// resource, or the same resource under another issuer.
	other := oauth.Config{BaseURL: "https://other.example.com"}
	foreign, _, err := e.store.CreateServiceToken(ctx, &other, "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if resp := e.mcpStatus(t, foreign, nil); resp.StatusCode != 401 {
		t.Errorf("a token for another resource: %d", resp.StatusCode)
	}
	otherIssuer, info2, _ := e.store.CreateServiceToken(ctx, cfg, "nightly", oauth.ServiceScopes, time.Hour)
	e.exec("UPDATE plumbline.oauth_tokens SET issuer = 'https://evil.example.com' WHERE token_id = $1", info2.ID)
	if resp := e.mcpStatus(t, otherIssuer, nil); resp.StatusCode != 401 {
		t.Errorf("a token from another issuer: %d", resp.StatusCode)
	}

	e.exec("UPDATE plumbline.oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_id = $1", info.ID)
	if resp := e.mcpStatus(t, token, nil); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("an expired token: %d", resp.StatusCode)
	}
}

// A token without reports:read gets 403 insufficient_scope naming the
// scope the call needs.
func TestInsufficientScope(t *testing.T) {
	e := newEnv(t, nil)
	token, _, err := e.store.CreateServiceToken(context.Background(), e.server.Config(), "directory-only", []string{oauth.ScopePeople}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	resp := e.mcpStatus(t, token, nil)
	got := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != 403 || !strings.Contains(got, `error="insufficient_scope"`) || !strings.Contains(got, `scope="reports:read"`) ||
		!strings.Contains(got, `resource_metadata="`+e.base) {
		t.Errorf("insufficient scope: %d %s", resp.StatusCode, got)
	}
}

// A service token calls reports as the service, and is refused the people
// directory with plumbline's own teaching error; a person's token may use
// both. The identity the engine sees (and the request log records) comes
// from the token: person or service, and the client.
func TestIdentityReachesTheEngine(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	svc, _, err := e.store.CreateServiceToken(ctx, e.server.Config(), "nightly-digest", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, svc)
	if _, isErr := callTool(t, cs, "sales", `{"who":{"floor":true},"period":{"named":"last_week"}}`); isErr {
		t.Fatal("a service token could not call sales")
	}
	if got := e.records.last(); got.Caller.Person != "service:nightly-digest" || got.Caller.Client != oauth.CLIClient || got.Tool != "sales" {
		t.Errorf("sales was recorded as %+v", got.Caller)
	}
	out, isErr := callTool(t, cs, "roster", `{"who":{"team":"falcons"}}`)
	refusal, _ := out["error"].(map[string]any)
	if !isErr || refusal["code"] != "forbidden" || refusal["argument"] != "tool" || slices.Contains(toStrings(refusal["choices"]), "roster") {
		t.Errorf("roster with a service token: %v", out)
	}
	if got := e.records.last(); got.Outcome != "forbidden" || got.Tool != "roster" {
		t.Errorf("the refused call was recorded as %+v", got)
	}

	person, _, err := e.store.CreatePersonToken(ctx, e.server.Config(), dana.PersonID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cs = e.connect(t, person)
	if out, isErr := callTool(t, cs, "find_people", `{"query":"maria"}`); isErr {
		t.Errorf("find_people with a person's token: %v", out)
	}
	if got := e.records.last(); got.Caller.Person != dana.PersonID || got.Caller.Client != oauth.CLIClient {
		t.Errorf("find_people was recorded as %+v", got.Caller)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// A revoked token stops working on its next request, whatever the request:
// a tool call with a token seen before has the token's row read in the
// same round trip that puts the call on record, and is refused with the
// same 401 challenge, after no report has run; the refused call stays on
// record.
func TestRevokedTokenLosesAccess(t *testing.T) {
	for _, next := range []string{"tools/list", "tools/call"} {
		t.Run(next, func(t *testing.T) {
			e := newEnv(t, nil)
			token, info, err := e.store.CreateServiceToken(context.Background(), e.server.Config(), "nightly", oauth.ServiceScopes, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if resp := e.mcpStatus(t, token, nil); resp.StatusCode != 200 {
				t.Fatalf("before revocation: %d", resp.StatusCode)
			}
			if status, body := e.toolCall(t, token); status != 200 || !strings.Contains(body, `"request_id"`) {
				t.Fatalf("a tool call before revocation: %d %s", status, body)
			}
			if n, err := e.store.RevokeTokens(context.Background(), []int64{info.ID}, "", ""); err != nil || n != 1 {
				t.Fatalf("revoke: %d %v", n, err)
			}
			e.expectRefused(t, token, next, "service:nightly")
		})
	}
}

// A report called with a token revoked since it was last seen never runs:
// the call's admission reads the token's row and refuses the call before
// its report. Each read of the sales source made for the nightly or weekly
// service leaves a mark (pgtest.MarkReads); the engine has already read
// what it keeps, for another caller.
func TestRevokedTokenRunsNoReport(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.db.MarkReads(t, "metrics.agent_sales_daily", 3, "service:nightly", "service:weekly")
	tokens := map[string]string{}
	var nightly int64
	for _, name := range []string{"warm", "nightly", "weekly"} {
		token, info, err := e.store.CreateServiceToken(ctx, e.server.Config(), name, oauth.ServiceScopes, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		tokens[name] = token
		if name == "nightly" {
			nightly = info.ID
		}
	}
	// Each call asks for a week of its own, as an answer kept for one
	// would be served again to another.
	sales := func(token, start, end string) (int, string) {
		return e.call(t, token, "sales", `{"who":{"floor":true},"period":{"start":"`+start+`","end":"`+end+`"}}`)
	}
	if status, body := sales(tokens["warm"], "2026-11-02", "2026-11-08"); status != 200 || strings.Contains(body, `"error"`) {
		t.Fatalf("the first call: %d %.300s", status, body)
	}
	if status, _ := e.toolCall(t, tokens["nightly"]); status != 200 {
		t.Fatalf("nightly's first call: %d", status)
	}
	if n, err := e.store.RevokeTokens(ctx, []int64{nightly}, "", ""); err != nil || n != 1 {
		t.Fatalf("revoke: %d %v", n, err)
	}
	if status, body := sales(tokens["nightly"], "2026-11-09", "2026-11-15"); status != 401 || strings.Contains(body, "submitted") {
		t.Errorf("a report with a revoked token: %d %.300s, want 401 and no answer", status, body)
	}
	if n := e.db.Marked(t, 3); n != 0 {
		t.Errorf("the report of a call with a revoked token read its source, on %d sessions", n)
	}
	// The mark works: weekly's call reads the source.
	if status, _ := sales(tokens["weekly"], "2026-11-09", "2026-11-15"); status != 200 || e.db.Marked(t, 3) == 0 {
		t.Errorf("weekly's call: %d, and its report left no mark", status)
	}
}

// toolCall posts one tools/call (the metric definitions) with a token and
// returns the status and body.
func (e *env) toolCall(t *testing.T, token string) (int, string) {
	t.Helper()
	return e.call(t, token, "metric_definitions", `{}`)
}

// call posts one tools/call of a tool, with its arguments, and returns the
// status and body.
func (e *env) call(t *testing.T, token, tool, args string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 401 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a 401 without the invalid_token challenge: %q", resp.Header.Get("WWW-Authenticate"))
	}
	return resp.StatusCode, string(body)
}

// expectRefused checks that a token no longer gets in with the next request
// of a kind, and, for a tool call, that the call is on record as refused,
// under whom the token spoke for.
func (e *env) expectRefused(t *testing.T, token, next, principal string) {
	t.Helper()
	if next == "tools/list" {
		if resp := e.mcpStatus(t, token, nil); resp.StatusCode != 401 {
			t.Errorf("tools/list: %d, want 401", resp.StatusCode)
		}
		return
	}
	status, body := e.toolCall(t, token)
	if status != 401 || strings.Contains(body, "definition") {
		t.Errorf("tools/call: %d %.200s, want 401 and no answer", status, body)
	}
	if got := e.records.last(); got.Caller.Person != principal || got.Outcome != ask.CodeUnauthenticated {
		t.Errorf("the refused call is on record as %+v, want %s and %s", got, principal, ask.CodeUnauthenticated)
	}
}

// Removing someone from the directory cuts their access on their next
// request; reinstating them restores it.
func TestRemovedMemberLosesAccess(t *testing.T) {
	for _, next := range []string{"tools/list", "tools/call"} {
		t.Run(next, func(t *testing.T) {
			e := newEnv(t, nil)
			token, _, err := e.store.CreatePersonToken(context.Background(), e.server.Config(), ravi.PersonID, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if status, _ := e.toolCall(t, token); status != 200 {
				t.Fatalf("an active member: %d", status)
			}
			for _, status := range []string{"removed", "banned", "locked"} {
				e.exec("UPDATE plumbline.members SET status = $1 WHERE person_id = $2", status, ravi.PersonID)
				e.expectRefused(t, token, next, ravi.PersonID)
				e.exec("UPDATE plumbline.members SET status = 'active' WHERE person_id = $1", ravi.PersonID)
				if got, _ := e.toolCall(t, token); got != 200 {
					t.Errorf("reinstated after %s: %d", status, got)
				}
			}
			if _, _, err := e.store.CreatePersonToken(context.Background(), e.server.Config(), gone.PersonID, time.Hour); err == nil {
				t.Error("a removed member was given a token")
			}
		})
	}
}

// A person holds at most ten live tokens: the eleventh revokes the oldest.
func TestTokenCapPerPerson(t *testing.T) {
	e := newEnv(t, nil)
	var tokens []string
	for range oauth.MaxPersonTokens + 1 {
		tok, _, err := e.store.CreatePersonToken(context.Background(), e.server.Config(), dana.PersonID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	if resp := e.mcpStatus(t, tokens[0], nil); resp.StatusCode != 401 {
		t.Errorf("the oldest of eleven tokens: %d", resp.StatusCode)
	}
	for i, tok := range tokens[1:] {
		if resp := e.mcpStatus(t, tok, nil); resp.StatusCode != 200 {
			t.Errorf("token %d of eleven: %d", i+2, resp.StatusCode)
		}
	}
	var live int
	e.sql.QueryRow(context.Background(), "SELECT count(*) FROM plumbline.oauth_tokens WHERE subject = $1 AND revoked_at IS NULL", dana.PersonID).Scan(&live)
	if live != oauth.MaxPersonTokens {
		t.Errorf("%d live tokens, want %d", live, oauth.MaxPersonTokens)
	}
}

// Only hashes are stored.
func TestOnlyHashesAreStored(t *testing.T) {
	e := newEnv(t, nil)
	token, _, err := e.store.CreateServiceToken(context.Background(), e.server.Config(), "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := e.code(t)
	var found bool
	err = e.sql.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM plumbline.oauth_tokens t, plumbline.oauth_codes c
		WHERE position(convert_to($1, 'UTF8') in t.token_hash) > 0 OR t::text LIKE '%' || $1 || '%' OR c::text LIKE '%' || $2 || '%')`,
		token, code).Scan(&found)
	if err != nil || found {
		t.Errorf("a secret is stored as is: %v %v", found, err)
	}
}

// Server-Timing names the server's stages (the token check among them),
// so only a request whose token held hears it: a 401, whether the token
// was missing, made up, or revoked since it was last seen (refused after
// the call's admission read its row), or a 403 says nothing of how long
// anything took.
func TestServerTimingOnlyForATokenThatHolds(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	token, info, err := e.store.CreateServiceToken(ctx, e.server.Config(), "nightly", oauth.ServiceScopes, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	narrow, _, err := e.store.CreateServiceToken(ctx, e.server.Config(), "nightly", []string{oauth.ScopePeople}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	timing := func(token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, e.base+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"metric_definitions","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Server-Timing")
	}
	if status, header := timing(token); status != 200 || !strings.HasPrefix(header, "plumbline;dur=") || !strings.Contains(header, "auth;dur=") {
		t.Fatalf("a token that holds: %d, Server-Timing %q", status, header)
	}
	if _, err := e.store.RevokeTokens(ctx, []int64{info.ID}, "", ""); err != nil {
		t.Fatal(err)
	}
	for name, token := range map[string]string{"no token": "", "a made-up token": "plb_made-up", "a token revoked since it was seen": token,
		"a token without reports:read": narrow} {
		if status, header := timing(token); status/100 != 4 || header != "" {
			t.Errorf("%s: %d, Server-Timing %q", name, status, header)
		}
	}
}
