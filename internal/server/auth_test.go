package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
	"plumbline/internal/server"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The development sign-in, which lets anyone at the keyboard be anyone,
// exists only when the server listens on loopback and its public URL is
// loopback too: never behind a proxy, never on a network interface.
func TestDevSignInOnlyOnLoopback(t *testing.T) {
	db := pgtest.NewDB(t).DSN
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		publicURL        string
		loopbackListener bool
		dev              bool
	}{
		{"", true, true},
		{"https://reports.example.com", true, false},
		{"", false, false},
	} {
		a := &server.Auth{PublicURL: tc.publicURL}
		store, closeStore, err := a.Store(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer closeStore()
		as, err := a.AuthServer(context.Background(), store, "127.0.0.1:8080", tc.loopbackListener, quiet, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(as.Handler(http.NotFoundHandler()))
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/signin/dev", nil)
		req.Host = strings.TrimPrefix(as.Config().BaseURL, "https://")
		req.Host = strings.TrimPrefix(req.Host, "http://")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ts.Close()
		if got := resp.StatusCode == http.StatusOK; got != tc.dev {
			t.Errorf("public URL %q, loopback listener %v: development sign-in answered %d", tc.publicURL, tc.loopbackListener, resp.StatusCode)
		}
	}
}
