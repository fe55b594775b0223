package chartview_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"plumbline/internal/chartview"
	"plumbline/internal/pgtest"
)

// buildDir holds a fresh build of the view and of the test host, made once
// per test binary from src/ with the locked packages.
var buildDir string

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// freshBuild builds the view and the test host into a temporary directory
// and returns it. It fails the test, with what to do, when Node or the
// packages are missing.
func freshBuild(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		node, err := exec.LookPath("node")
		if err != nil {
			buildErr = errors.New("node is not on PATH: the views are built with Node.js 20 or later (.ci/run installs it)")
			return
		}
		if _, err := os.Stat(filepath.Join("node_modules", "esbuild")); err != nil {
			buildErr = errors.New("internal/chartview/node_modules is missing: run `npm ci` in internal/chartview (.ci/run does)")
			return
		}
		if buildDir, err = os.MkdirTemp("", "plumbline-views-build-"); err != nil {
			buildErr = err
			return
		}
		out, err := exec.Command(node, "build.mjs", "--harness", buildDir).CombinedOutput()
		if err != nil {
			buildErr = errors.New("node build.mjs failed: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

// The committed view is what its sources build to, so the binary embeds the
// view the sources describe.
func TestCommittedViewIsFresh(t *testing.T) {
	fresh, err := os.ReadFile(filepath.Join(freshBuild(t), "view.html"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("dist", "view.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatalf("internal/chartview/dist/view.html is stale: it differs from a fresh build of internal/chartview/src (%d bytes built, %d committed). Run `make views` and commit dist/view.html.", len(fresh), len(committed))
	}
	if chartview.Chart.HTML != string(committed) {
		t.Fatal("the embedded view is not dist/view.html")
	}
}

// The view is one self-contained page: no script, stylesheet, image, font or
// frame is fetched from anywhere, and its own policy forbids connections.
func TestViewIsSelfContained(t *testing.T) {
	html := chartview.Chart.HTML
	for _, re := range []string{
		`<script[^>]+src=`, `<link[\s>]`, `<img[\s>]`, `<iframe[\s>]`, `@import`, `url\(\s*['"]?(https?:)?//`,
	} {
		if loc := regexp.MustCompile(re).FindStringIndex(html); loc != nil {
			t.Errorf("the view loads something from outside (%s): %.80q", re, html[loc[0]:])
		}
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(html)
	if csp == nil {
		t.Fatal("the view declares no Content-Security-Policy of its own")
	}
	for _, d := range []string{"default-src 'none'", "connect-src 'none'", "font-src 'none'", "frame-src 'none'"} {
		if !strings.Contains(csp[1], d) {
			t.Errorf("the view's policy %q lacks %q", csp[1], d)
		}
	}
}
