package httpguard_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"plumbline/internal/httpguard"
)

// A page served with HTMLPage reaches the browser uncached, unframeable,
// loading nothing from elsewhere and sending no referrer.
func TestHTMLPageHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpguard.HTMLPage(w.Header())
		w.Write([]byte("<!doctype html><p>hello</p>"))
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for name, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-store",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
		"Referrer-Policy":         "no-referrer",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
