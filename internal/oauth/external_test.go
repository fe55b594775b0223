package oauth_test

import (
	"bufio"
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"plumbline/internal/clienttest"
	"plumbline/internal/oauth"
	"plumbline/internal/oauth/cimd"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// runClient runs a Node client, driving the browser through sign-in and
// consent whenever it prints an authorization URL of base, and returns its
// output once it exits.
func runClient(t *testing.T, base string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, clienttest.Node(t), args...)
	cmd.Dir = clienttest.Dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var browser context.Context
	var out strings.Builder
	var mu sync.Mutex
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := ansi.ReplaceAllString(sc.Text(), "")
		mu.Lock()
		out.WriteString(line + "\n")
		mu.Unlock()
		if i := strings.Index(line, base+"/authorize?"); i >= 0 {
			if browser == nil {
				browser = chromium(t)
			}
			signInWithBrowser(t, browser, strings.Fields(line[i:])[0], dana.Email)
		}
	}
	err = cmd.Wait()
	return out.String() + stderr.String(), err
}

// The official conformance suite's authorization-server scenarios pass:
// the metadata endpoint, and the authorization code grant with a
// pre-registered client, its code-grant step signed in and approved in the
// browser.
func TestConformanceAuthorizationServer(t *testing.T) {
	e := newEnv(t, func(c *oauth.Config) {
		c.Clients = append(c.Clients, oauth.Client{ID: "conformance", Name: "MCP conformance suite", RedirectURIs: []string{"http://127.0.0.1/callback"}})
	})
	port := freePort(t)
	out, err := runClient(t, e.base, "node_modules/@modelcontextprotocol/conformance/dist/index.js", "authorization",
		"--url", e.base, "--client-id", "conformance", "--port", fmt.Sprint(port))
	t.Logf("conformance suite:\n%s", out)
	if err != nil {
		t.Fatalf("the conformance suite failed: %v", err)
	}
	for _, scenario := range []string{"authorization-server-metadata-endpoint", "authorization-code-grant"} {
		if !regexp.MustCompile(`✓ ` + scenario + `: [1-9]\d* passed, 0 failed`).MatchString(out) {
			t.Errorf("scenario %s did not pass", scenario)
		}
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("the conformance suite warned")
	}
}

// A third-party client on the official TypeScript SDK connects with
// nothing but the URL: it discovers the authorization server, identifies
// itself by a Client ID Metadata Document, completes the flow (signed in
// in the browser) and calls a report.
func TestTypeScriptSDKClient(t *testing.T) {
	d := newDocServer(t)
	pool := x509.NewCertPool()
	pool.AddCert(d.Certificate())
	e := newEnv(t, func(c *oauth.Config) {
		c.CIMD = cimd.Options{AllowLoopback: true, RootCAs: pool}
	})
	port := freePort(t)
	metadataURL := d.set("/sdk-client.json", jsonDoc(func(doc map[string]any) {
		doc["client_name"] = "SDK test client"
		doc["redirect_uris"] = []string{fmt.Sprintf("http://127.0.0.1:%d/callback", port)}
	}, nil))
	out, err := runClient(t, e.base, "signin-client.mjs", e.base+"/mcp", fmt.Sprint(port), metadataURL)
	if err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, `RESULT {`) || !strings.Contains(out, `"close_rate"`) || !strings.Contains(out, `"data_through"`) {
		t.Errorf("the client's report:\n%s", out)
	}
	if got := e.records.last().Caller; got.Person != dana.PersonID || got.Client != metadataURL {
		t.Errorf("the report was recorded as %+v", got)
	}
	if d.count("/sdk-client.json") == 0 {
		t.Error("the client's metadata document was never fetched")
	}
}
