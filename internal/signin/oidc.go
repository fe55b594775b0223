package signin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// OIDCConfig configures sign-in with an OpenID Connect provider.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL; its configuration is discovered
	// from Issuer/.well-known/openid-configuration.
	Issuer string
	// ClientID and ClientSecret are plumbline's registration with the
	// provider.
	ClientID     string
	ClientSecret string
	// RedirectURL is plumbline's callback, BASE/signin/oidc/callback, as
	// registered with the provider.
	RedirectURL string
	// HTTPClient, if set, is used to reach the provider.
	HTTPClient *http.Client
}

// OIDC signs people in with an OpenID Connect provider: the authorization
// code flow with PKCE (S256), state and nonce, and the ID token's
// signature, issuer, audience and expiry verified by go-oidc. The person is
// the token's email, which the provider must vouch for: email_verified, or
// Microsoft Entra ID's xms_edov.
type OIDC struct {
	cfg      OIDCConfig
	oauth    oauth2.Config
	provider *oidc.Provider
	verifier *oidc.IDTokenVerifier
}

// stateCookie carries a sign-in in progress through the provider. The
// __Host- prefix keeps other hosts and paths from setting it.
const stateCookie = "__Host-plumbline-oidc"

// NewOIDC discovers the provider and returns the sign-in method.
func NewOIDC(ctx context.Context, cfg OIDCConfig) (*OIDC, error) {
	ctx = cfg.context(ctx)
	provider, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, err
	}
	return &OIDC{
		cfg: cfg,
		oauth: oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: provider.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}},
		provider: provider,
		verifier: provider.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
	}, nil
}

func (c OIDCConfig) context(ctx context.Context) context.Context {
	if c.HTTPClient != nil {
		return oidc.ClientContext(ctx, c.HTTPClient)
	}
	return ctx
}

// pending is a sign-in waiting for the provider's answer.
type pending struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	ReturnTo string `json:"r"`
}

func random() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Start sends the browser to the provider.
func (o *OIDC) Start(w http.ResponseWriter, r *http.Request, returnTo string) {
	p := pending{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), ReturnTo: returnTo}
	b, _ := json.Marshal(p)
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/",
		MaxAge: int((10 * time.Minute).Seconds()), Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, o.oauth.AuthCodeURL(p.State, oidc.Nonce(p.Nonce), oauth2.S256ChallengeOption(p.Verifier)), http.StatusSeeOther)
}

// Handler serves the provider's callback at /signin/oidc/callback.
func (o *OIDC) Handler(done Done) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /signin/oidc/callback", func(w http.ResponseWriter, r *http.Request) {
		p, ok := readPending(r)
		http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: "/", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
		q := r.URL.Query()
		switch {
		case !ok || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.State)) != 1:
			Problem(w, http.StatusBadRequest, "This sign-in was not started in this browser, or took longer than ten minutes. Start again from the app.")
			return
		case q.Get("error") != "":
			Problem(w, http.StatusForbidden, "The identity provider did not sign you in.")
			return
		}
		email, err := o.email(r.Context(), q.Get("code"), p)
		if err != nil {
			Problem(w, http.StatusForbidden, "The identity provider's answer could not be verified: "+err.Error()+".")
			return
		}
		done(w, r, email, p.ReturnTo)
	})
	return mux
}

func readPending(r *http.Request) (pending, bool) {
	var p pending
	c, err := r.Cookie(stateCookie)
	if err != nil {
		return p, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	return p, err == nil && json.Unmarshal(b, &p) == nil && p.State != ""
}

// email redeems the code and returns the verified email of the ID token.
func (o *OIDC) email(ctx context.Context, code string, p pending) (string, error) {
	ctx = o.cfg.context(ctx)
	tok, err := o.oauth.Exchange(ctx, code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		return "", errors.New("the code could not be redeemed")
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return "", errors.New("no ID token came back")
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		return "", errors.New("the ID token is not valid")
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(p.Nonce)) != 1 {
		return "", errors.New("the ID token is not for this sign-in")
	}
	var claims emailClaims
	if err := idt.Claims(&claims); err != nil {
		return "", errors.New("the ID token's claims cannot be read")
	}
	if claims.Email == "" {
		// Providers may keep scope claims for the UserInfo endpoint when
		// they issue an access token (OpenID Connect Core §5.4); its
		// subject must be the ID token's.
		info, err := o.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil || info.Subject != idt.Subject || info.Claims(&claims) != nil {
			return "", errors.New("the provider's user info could not be read")
		}
	}
	if claims.Email == "" || !claims.verified() {
		return "", errors.New("the provider vouches for no verified email address")
	}
	return claims.Email, nil
}

// emailClaims are the claims that say who the person is: the email address,
// and whether the provider vouches for it. Either vouching claim may come
// as a boolean or as a string.
type emailClaims struct {
	Email string `json:"email"`
	// Verified is the standard claim (OpenID Connect Core §5.1).
	Verified any `json:"email_verified"`
	// DomainVerified is Microsoft Entra ID's instead (an optional claim
	// an administrator adds): the address's domain is one the tenant has
	// proved it owns, so no one else can hold the address there.
	DomainVerified any `json:"xms_edov"`
}

func (c emailClaims) verified() bool { return isTrue(c.Verified) || isTrue(c.DomainVerified) }

func isTrue(v any) bool { return v == true || v == "true" || v == "1" }
