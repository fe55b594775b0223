package oauth

import "net/http"

// BearerTransport returns a client transport that sends token as a bearer
// token on every request through next, for plumbline's own clients (ask,
// bench). An empty token sends none.
func BearerTransport(token string, next http.RoundTripper) http.RoundTripper {
	return bearer{token: token, next: next}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
