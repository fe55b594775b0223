// Package intake reads what a caller sends the OAuth endpoints before
// anything else looks at it: the form of the token and revocation
// endpoints and the JSON of Dynamic Client Registration, each checked
// against the rules plumbline holds it to, and the OAuth error a refusal
// is answered with. It does no I/O of its own, so its decoders can be
// fuzzed on their own.
package intake
