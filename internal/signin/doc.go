// Package signin signs a person in for plumbline's authorization server.
// The identity provider only proves who the person is (a verified email
// address); whether they may use plumbline is the membership table's
// decision, and what a client may do is the authorization server's.
//
// Two methods: generic OpenID Connect (discovery, authorization code flow
// with PKCE, ID token verified by github.com/coreos/go-oidc), and a
// development sign-in that lists the directory's people and lets anyone at
// the keyboard pick one, which the server offers only when it is bound to
// loopback.
package signin
