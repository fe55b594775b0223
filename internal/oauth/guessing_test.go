package oauth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"plumbline/internal/oauth"
)

// The machine client the guessing tests pre-register, and its secret.
const (
	vmID     = "floor-analyst-vm"
	vmSecret = "a secret only the contained agent's machine knows"
)

// machineEnv is a server, its token store signed in as plumbline's login,
// with the machine client pre-registered as `serve --clients` reads it.
func machineEnv(t *testing.T) *env {
	t.Helper()
	sum := sha256.Sum256([]byte(vmSecret))
	path := t.TempDir() + "/clients.yaml"
	yaml := "- client_id: " + vmID + "\n  service: floor-analyst\n  scope: reports:read analyst:sql\n  client_secret_sha256: " + hex.EncodeToString(sum[:]) + "\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	clients, err := oauth.LoadClients(path)
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, envOptions{asApp: true, adjust: func(c *oauth.Config) { c.Clients = append(c.Clients, clients...) }})
}

// clientCredentials asks base's token endpoint for a token by the client
// credentials grant, as id with secret (HTTP Basic), from the client c; it
// returns the status and Retry-After.
func clientCredentials(t *testing.T, c *http.Client, base, id, secret string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// Guessing a machine client's secret is slow: after 10 failed
// authentications in 15 minutes from one address, every request from it
// is refused (429, with Retry-After) whatever it sends, the right secret
// too, on every replica, since the failures are counted in the database;
// after 30 failed authentications of one client from any addresses, that
// client is refused from every address. Once the failures leave the
// window, the right secret works again.
func TestGuessingClientSecretsIsSlow(t *testing.T) {
	e := machineEnv(t)
	a, b := e.from("127.0.0.2"), e.from("127.0.0.3")
	statuses := map[int]int{}
	start := time.Now()
	for i := range 200 {
		status, retry := clientCredentials(t, a, e.base, vmID, "guess "+strconv.Itoa(i))
		statuses[status]++
		if wait, _ := strconv.Atoi(retry); status == http.StatusTooManyRequests && (wait < 1 || wait > 900) {
			t.Fatalf("guess %d: 429 with Retry-After %q", i, retry)
		}
	}
	took := time.Since(start)
	t.Logf("200 wrong secrets from one address: %d answered 401, %d limited (429), in %s", statuses[401], statuses[429], took.Round(time.Millisecond))
	if statuses[401] != 10 || statuses[429] != 190 {
		t.Fatalf("200 wrong secrets from one address were answered %v; want 10 401s, then 429s", statuses)
	}
	if status, _ := clientCredentials(t, a, e.base, vmID, vmSecret); status != http.StatusTooManyRequests {
		t.Errorf("the right secret from the limited address: %d, want 429", status)
	}
	resp, _ := postForm(t, a, e.base+"/revoke", url.Values{"token": {"plb_x"}, "client_id": {known.ID}})
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the revocation endpoint from the limited address: %d, want 429", resp.StatusCode)
	}
	replica, err := oauth.New(*e.server.Config(), e.store, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(replica.Handler(http.NotFoundHandler()))
	defer ts.Close()
	if status, _ := clientCredentials(t, a, ts.URL, vmID, vmSecret); status != http.StatusTooManyRequests {
		t.Errorf("the right secret from the limited address on another replica: %d, want 429", status)
	}
	if status, _ := clientCredentials(t, b, e.base, vmID, vmSecret); status != http.StatusOK {
		t.Errorf("the right secret from another address: %d, want 200", status)
	}

	// What time does: the failures leave the window.
	e.exec("UPDATE plumbline.oauth_client_failures SET failed_at = failed_at - interval '15 minutes'")
	if status, _ := clientCredentials(t, a, e.base, vmID, vmSecret); status != http.StatusOK {
		t.Errorf("the right secret from the first address after the window: %d, want 200", status)
	}

	// Unknown clients count against the address too.
	c := e.from("127.0.0.4")
	for i := range 10 {
		if status, _ := clientCredentials(t, c, e.base, "nobody-"+strconv.Itoa(i), "x"); status != http.StatusUnauthorized {
			t.Fatalf("unknown client %d: %d, want 401", i, status)
		}
	}
	if status, _ := clientCredentials(t, c, e.base, vmID, vmSecret); status != http.StatusTooManyRequests {
		t.Errorf("the right secret from an address that tried 10 unknown clients: %d, want 429", status)
	}

	// Many addresses, one client: 30 failures limit the client everywhere.
	for i := range 30 {
		from := e.from("127.0.1." + strconv.Itoa(1+i/10))
		if status, _ := clientCredentials(t, from, e.base, vmID, "guess"); status != http.StatusUnauthorized {
			t.Fatalf("guess %d from its own address: %d, want 401", i, status)
		}
	}
	for _, from := range []string{"127.0.2.1", "127.0.0.2"} {
		if status, _ := clientCredentials(t, e.from(from), e.base, vmID, vmSecret); status != http.StatusTooManyRequests {
			t.Errorf("the right secret from %s once the client failed 30 times: %d, want 429", from, status)
		}
	}
}
