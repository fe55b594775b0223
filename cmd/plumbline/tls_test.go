package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/oauth"
	"plumbline/internal/pgtest"
)

// testCA is a certificate authority a test makes, to issue a server's
// certificate and to verify it with.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "plumbline test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue writes a certificate for 127.0.0.1 and localhost with serial
// number serial, and its key, to certFile and keyFile.
func (ca *testCA) issue(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	// The key first, then the certificate, as a renewal that replaces
	// both files may leave them for a moment.
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serve terminates TLS itself, set up by a configuration file: a client
// that verifies the certificate against the CA that issued it calls a
// report over HTTP/2, TLS 1.1 and plain HTTP are refused, and a renewed
// certificate is served from the next connection on, while a broken one
// leaves the last good one served.
func TestServeTLS(t *testing.T) {
	db := pgtest.NewDB(t)
	dir := t.TempDir()
	ca := newTestCA(t)
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca.issue(t, 100, certFile, keyFile)
	addr := freeAddr(t)
	public := "https://" + addr
	configFile := filepath.Join(dir, "plumbline.yaml")
	if err := os.WriteFile(configFile, []byte("addr: "+addr+"\ntls-cert: "+certFile+"\ntls-key: "+keyFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PLUMBLINE_DB", db.AppDSN)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, logs syncBuffer
	done := make(chan int, 1)
	go func() { done <- runWith(ctx, []string{"serve", "--config", configFile}, &out, &logs) }()
	served := waitFor(t, &logs, regexp.MustCompile(`"url":"([^"]+)"`), done)
	if served != public+"/mcp" || !strings.Contains(logs.String(), `"listen":"`+addr+`","tls":true`) {
		t.Fatalf("serving %s, want %s, with the address listened on:\n%s", served, public+"/mcp", logs.String())
	}

	code, token, errOut := runCLI(t, "token", "create", "--service", "tls", "--db", db.AppDSN, "--public-url", public)
	if code != 0 {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	var mu sync.Mutex
	var seen []*http.Response
	verifying := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}, ForceAttemptHTTP2: true}
	recording := roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := verifying.RoundTrip(r)
		if err == nil {
			mu.Lock()
			seen = append(seen, resp)
			mu.Unlock()
		}
		return resp, err
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tls-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: public + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: oauth.BearerTransport(strings.TrimSpace(token), recording)}}, nil)
	if err != nil {
		t.Fatalf("connect over TLS: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sales",
		Arguments: json.RawMessage(`{"who":{"team":"Falcons"},"period":{"named":"last_week"}}`)})
	if err != nil || res.IsError {
		t.Fatalf("a report over TLS: %v %v", err, res)
	}
	mu.Lock()
	for _, resp := range seen {
		if resp.ProtoMajor != 2 || resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
			t.Errorf("an answer came over %s, TLS %+v; want HTTP/2 over TLS 1.2 or later", resp.Proto, resp.TLS)
		}
	}
	mu.Unlock()

	// The image's health check, from the same file: over TLS, verifying
	// the certificate against the file it is served from.
	if code, out, errOut := runCLI(t, "health", "--config", configFile); code != 0 || !strings.HasSuffix(out, "/healthz: ok\n") ||
		!strings.HasPrefix(out, "https://127.0.0.1:") {
		t.Errorf("health over TLS: exit %d\n%s%s", code, out, errOut)
	}

	serial := func() (int64, error) {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.pool, ServerName: "127.0.0.1"})
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64(), nil
	}
	if _, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.pool, MaxVersion: tls.VersionTLS11}); err == nil {
		t.Error("a TLS 1.1 client was served")
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil && resp.StatusCode == http.StatusOK {
		t.Error("plain HTTP was served beside TLS")
	}
	if _, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: x509.NewCertPool()}); err == nil {
		t.Error("a client that trusts another CA accepted the certificate")
	}

	// A renewal: the next connection gets the new certificate.
	ca.issue(t, 101, certFile, keyFile)
	future := time.Now().Add(time.Minute)
	os.Chtimes(certFile, future, future)
	if got, err := serial(); err != nil || got != 101 {
		t.Errorf("after a renewal, the certificate served is serial %d (%v), want 101", got, err)
	}
	// A broken certificate leaves the last good one served, and says so.
	if err := os.WriteFile(certFile, []byte("-----BEGIN CERTIFICATE-----\nbroken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := serial(); err != nil || got != 101 {
		t.Errorf("with a broken certificate file, the certificate served is serial %d (%v), want 101 still", got, err)
	}
	if !strings.Contains(logs.String(), "could not load the changed TLS certificate; serving the previous one") {
		t.Errorf("a broken certificate was not logged:\n%s", logs.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d:\n%s", code, logs.String())
	}
}
