package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"plumbline/internal/httpguard"
	"plumbline/internal/oauth/cimd"
	"plumbline/internal/signin"
	"plumbline/internal/telemetry"
)

// sessionCookie names the signed-in person's session on this origin. The
// __Host- prefix means it was set by this host, over a secure context, for
// every path, and cannot be planted by a sibling host.
const sessionCookie = "__Host-plumbline-session"

// authRequest is a validated authorization request.
type authRequest struct {
	client      *Client
	redirectURI string
	state       string
	challenge   string
	scope       []string
	resource    string
}

// redirectError is a problem with an authorization request that, once the
// client and redirect URI are known good, goes back to the client.
type redirectError struct{ code, description string }

var pkceChallenge = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// parseRequest validates an authorization request's parameters. A bad
// client or redirect URI yields a page message (never a redirect); any
// other problem yields a redirectError for the client. Nothing is fetched
// for a request that is bad anyway: the parameters that need no client are
// checked before a client known by its metadata document is fetched, and
// then, with no redirect URI verified yet, a problem goes on the page.
// source is where the request came from (httpguard.Source), which may have
// only so many documents fetched a minute.
func (s *Server) parseRequest(ctx context.Context, q url.Values, source string) (*authRequest, string, *redirectError) {
	for _, single := range []string{"client_id", "redirect_uri", "response_type", "state", "code_challenge", "code_challenge_method", "scope"} {
		if len(q[single]) > 1 {
			return nil, "The request repeats the " + single + " parameter, which may appear once.", nil
		}
	}
	req, rerr := s.parameters(q)
	if documentID(q.Get("client_id")) {
		if rerr != nil {
			return nil, "The authorization request is not valid: " + rerr.description + ".", nil
		}
		if r := q.Get("redirect_uri"); r != "" && !cimd.ValidRedirect(r) {
			return nil, "The redirect_uri is not one any app may register (https, or http on a loopback address, without a fragment), so this server will not send anything to it.", nil
		}
	}
	c, err := s.client(ctx, q.Get("client_id"), source)
	if err != nil {
		var refused *cimd.Error
		switch {
		case errors.As(err, &refused):
			return nil, "The app's client metadata document was refused: " + refused.Rule + ".", nil
		case errors.Is(err, cimd.ErrTooManyFetches):
			return nil, "Too many apps were looked up from your network in the last minute; try again in a minute.", nil
		case errors.Is(err, errUnknownClient):
			return nil, "The app is not known to this server (unknown client_id).", nil
		default:
			s.cfg.Logger.Error("resolve a client", "err", err)
			return nil, "The app could not be checked just now; try again shortly.", nil
		}
	}
	redirect, ok := c.redirect(q.Get("redirect_uri"))
	if !ok {
		return nil, "The redirect_uri is missing or is not one the app registered, so this server will not send anything to it.", nil
	}
	req.client, req.redirectURI = c, redirect
	return req, "", rerr
}

// parameters checks what an authorization request asks for, apart from
// its client and redirect URI, and returns the request without them.
func (s *Server) parameters(q url.Values) (*authRequest, *redirectError) {
	req := &authRequest{state: q.Get("state")}
	if q.Get("response_type") != "code" {
		return req, &redirectError{"unsupported_response_type", "response_type must be code"}
	}
	if q.Get("code_challenge_method") != "S256" || !pkceChallenge.MatchString(q.Get("code_challenge")) {
		return req, &redirectError{"invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256"}
	}
	req.challenge = q.Get("code_challenge")
	if req.resource = s.resource(q["resource"]); req.resource == "" {
		return req, &redirectError{"invalid_target", "resource must be this server's MCP endpoint, " + s.cfg.Resource()}
	}
	req.scope = grantable(strings.Fields(q.Get("scope")))
	return req, nil
}

// resource checks the resource parameters (RFC 8707) and returns the
// resource to bind the token to: this server's, whether named exactly, with
// a trailing slash, by its origin, or not at all. Anything else is "".
func (s *Server) resource(values []string) string {
	for _, v := range values {
		u, err := url.Parse(v)
		if err != nil || u.Fragment != "" || !u.IsAbs() {
			return ""
		}
		canon := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
		if u.RawQuery != "" || (canon != s.cfg.Resource() && canon != s.cfg.Issuer()) {
			return ""
		}
	}
	return s.cfg.Resource()
}

// grantable keeps the scopes this server knows, in its order; an empty
// result means a person's default scopes. Unknown scopes (offline_access,
// say) are dropped, as RFC 6749 §3.3 allows; the token response says what
// was granted.
func grantable(asked []string) []string {
	var out []string
	for _, s := range Scopes {
		if slices.Contains(asked, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return slices.Clone(PersonScopes)
	}
	return out
}

// sendBack redirects to the client's redirect URI with params, state and
// iss (RFC 9207) added.
func (s *Server) sendBack(w http.ResponseWriter, r *http.Request, req *authRequest, params url.Values) {
	u, _ := url.Parse(req.redirectURI)
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", s.cfg.Issuer())
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) sendError(w http.ResponseWriter, r *http.Request, req *authRequest, e *redirectError) {
	s.sendBack(w, r, req, url.Values{"error": {e.code}, "error_description": {e.description}})
}

// authorize starts or continues an authorization request: it validates the
// request, has the person sign in, and shows the consent page unless the
// person already consented to this client and redirect URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	req, ok := s.request(w, r, r.URL.Query())
	if !ok {
		return
	}
	personID, csrf, ok := s.sessionOf(r)
	if !ok {
		if s.signIn == nil {
			signin.Problem(w, http.StatusServiceUnavailable, "This server has no way for people to sign in configured.")
			return
		}
		s.signIn.Start(w, r, "/authorize?"+r.URL.RawQuery)
		return
	}
	m, ok := s.activeMember(w, r, req, personID)
	if !ok {
		return
	}
	if granted, err := s.store.consented(r.Context(), personID, req.client.ID, req.redirectURI); err == nil && subset(req.scope, granted) {
		s.approve(w, r, req, personID, false)
		return
	}
	s.consentPage(w, req, m, csrf, r.URL.RawQuery)
}

// request parses an authorization request and, when it is bad, answers it:
// an error page for a bad client or redirect, a redirect with the error
// otherwise.
func (s *Server) request(w http.ResponseWriter, r *http.Request, q url.Values) (*authRequest, bool) {
	req, problem, rerr := s.parseRequest(r.Context(), q, httpguard.Source(r).String())
	switch {
	case problem != "":
		signin.Problem(w, http.StatusBadRequest, problem)
		return nil, false
	case rerr != nil:
		s.sendError(w, r, req, rerr)
		return nil, false
	}
	return req, true
}

// activeMember reads the person's membership afresh, past any cache, and
// answers the request itself unless the person is an active member.
func (s *Server) activeMember(w http.ResponseWriter, r *http.Request, req *authRequest, personID string) (Member, bool) {
	m, err := s.store.Member(r.Context(), personID)
	if err != nil && !errors.Is(err, errNotFound) {
		s.cfg.Logger.Error("read a member", "err", err)
		signin.Problem(w, http.StatusServiceUnavailable, "The directory could not be read; try again shortly.")
		return Member{}, false
	}
	if err != nil || m.Status != StatusActive {
		s.sendError(w, r, req, &redirectError{"access_denied", "the person is not an active member of this plumbline"})
		return Member{}, false
	}
	return m, true
}

// decide takes the consent form's answer.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		signin.Problem(w, http.StatusBadRequest, "The form could not be read.")
		return
	}
	q, err := url.ParseQuery(r.PostForm.Get("request"))
	if err != nil {
		signin.Problem(w, http.StatusBadRequest, "The form could not be read.")
		return
	}
	// The approval must come from the consent page before anything of
	// the request it names is looked at, let alone fetched.
	personID, csrf, ok := s.sessionOf(r)
	if !ok || subtle.ConstantTimeCompare([]byte(csrf), []byte(r.PostForm.Get("csrf"))) != 1 {
		signin.Problem(w, http.StatusForbidden, "This approval did not come from the consent page plumbline showed you. Start again from the app.")
		return
	}
	req, ok := s.request(w, r, q)
	if !ok {
		return
	}
	if _, ok := s.activeMember(w, r, req, personID); !ok {
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		s.cfg.Metrics.Auth(telemetry.EventConsentDeclined)
		s.sendError(w, r, req, &redirectError{"access_denied", "the person declined"})
		return
	}
	s.approve(w, r, req, personID, true)
}

// approve issues a code and sends it back to the client.
func (s *Server) approve(w http.ResponseWriter, r *http.Request, req *authRequest, personID string, remember bool) {
	code, err := s.store.newCode(r.Context(), codeGrant{clientID: req.client.ID, personID: personID, redirectURI: req.redirectURI,
		challenge: req.challenge, scope: req.scope, resource: req.resource}, remember)
	if err != nil {
		s.cfg.Logger.Error("issue a code", "err", err)
		s.sendError(w, r, req, &redirectError{"temporarily_unavailable", "try again shortly"})
		return
	}
	s.cfg.Metrics.Auth(telemetry.EventConsentApproved)
	s.sendBack(w, r, req, url.Values{"code": {code}})
}

// sessionOf returns the signed-in person of a request, if any.
func (s *Server) sessionOf(r *http.Request) (personID, csrf string, ok bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return "", "", false
	}
	personID, csrf, err = s.store.session(r.Context(), c.Value)
	if err != nil && !errors.Is(err, errNotFound) {
		s.cfg.Logger.Error("read a session", "err", err)
	}
	return personID, csrf, err == nil
}

// signedIn is where a sign-in method hands over a person who proved their
// email: an active member gets a session and goes back to the
// authorization request.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request, email, returnTo string) {
	if !strings.HasPrefix(returnTo, "/authorize?") {
		signin.Problem(w, http.StatusBadRequest, "The sign-in did not come from an authorization request. Start again from the app.")
		return
	}
	m, err := s.store.MemberByEmail(r.Context(), email)
	if err != nil && !errors.Is(err, errNotFound) {
		s.cfg.Logger.Error("read a member", "err", err)
		signin.Problem(w, http.StatusServiceUnavailable, "The directory could not be read; try again shortly.")
		return
	}
	if err != nil || m.Status != StatusActive {
		s.cfg.Metrics.Auth(telemetry.EventSignInRefused)
		signin.Problem(w, http.StatusForbidden, "You signed in, but you are not an active member of this plumbline. Ask whoever runs it to add you.")
		return
	}
	id, err := s.store.newSession(r.Context(), m.PersonID)
	if err != nil {
		s.cfg.Logger.Error("start a session", "err", err)
		signin.Problem(w, http.StatusServiceUnavailable, "The sign-in could not be recorded; try again shortly.")
		return
	}
	s.cfg.Metrics.Auth(telemetry.EventSignIn)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, returnTo, http.StatusSeeOther)
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// scopeText says what each scope lets an app do, for the consent page.
var scopeText = map[string]string{
	ScopeReports: "Read the sales-floor reports: hours, sales, quality, team days and weeks, the league, freshness and definitions.",
	ScopePeople:  "Browse the people directory: who is on which team, and find people by name or email.",
}

// consentPage asks the person whether the client may act for them. The
// redirect host is the main fact: it is where the approval goes. Every
// text the client supplied is shown as DisplayText makes it, and the page
// says so when that changed any.
func (s *Server) consentPage(w http.ResponseWriter, req *authRequest, m Member, csrf, rawQuery string) {
	redirect, _ := url.Parse(req.redirectURI)
	var scopes []string
	for _, sc := range req.scope {
		scopes = append(scopes, scopeText[sc])
	}
	altered := false
	shown := func(text string) string {
		d := DisplayText(text)
		altered = altered || d != text
		return d
	}
	data := map[string]any{
		"RedirectHost": shown(redirect.Host),
		"Localhost":    cimd.IsLoopback(redirect.Hostname()),
		"ClientName":   shown(req.client.Name),
		"Document":     req.client.Document,
		"ClientID":     shown(req.client.ID),
		"Scopes":       scopes,
		"Person":       m,
		"CSRF":         csrf,
		"Request":      rawQuery,
	}
	if req.client.Document {
		u, _ := url.Parse(req.client.ID)
		data["ClientHost"] = shown(u.Host)
	}
	data["Altered"] = altered
	httpguard.HTMLPage(w.Header())
	consentTemplate.Execute(w, data)
}

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>plumbline: allow access?</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.fact{font-size:1.3rem;font-weight:600}.warn{background:#fff4e5;border:1px solid #f0b35b;padding:.6rem;border-radius:4px}
button{font-size:1rem;padding:.5rem 1rem;margin:.3rem .5rem .3rem 0}ul{padding-left:1.2rem}small{color:#555}</style></head><body>
<h1>Allow an app to read plumbline as you?</h1>
<p>If you approve, plumbline sends the approval to</p>
<p class="fact" id="redirect-host">{{.RedirectHost}}</p>
{{if .Localhost}}<p class="warn" id="localhost-warning">That address is this computer (localhost): an app running here receives the approval.
Approve only if you just started this sign-in from an app on this computer.</p>{{end}}
<p>The app calls itself <strong id="client-name">{{.ClientName}}</strong>. It chose that name itself; plumbline has not checked it.
{{if .Document}}It is published by <strong id="client-host">{{.ClientHost}}</strong>.{{else}}It is registered with this server as <code>{{.ClientID}}</code>.{{end}}</p>
{{if .Altered}}<p class="warn" id="client-text-altered">What the app sent about itself held characters that can make text read as something
it is not (control characters, or marks that change the direction of text); each is shown as &#xFFFD;. Be wary of an app that hides what it is.</p>{{end}}
<p>It will be able to:</p><ul>{{range .Scopes}}<li>{{.}}</li>{{end}}</ul>
<p><small>Signed in as {{.Person.Name}} ({{.Person.Email}}). The access lasts until it expires or is revoked, and ends if you leave the directory.</small></p>
<form method="post" action="/authorize">
<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="request" value="{{.Request}}">
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form></body></html>`))
