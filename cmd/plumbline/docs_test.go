package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs renders a catalogue directory, flags before or after it, and shows
// the review of each granted relation from the grant files.
func TestDocs(t *testing.T) {
	t.Chdir("../..")
	site := filepath.Join(t.TempDir(), "site")
	code, out, errOut := runCLI(t, "docs", "testdata/diff/new", "-o", site, "--grants", "testdata/grants")
	if code != 0 || !strings.Contains(out, "open "+filepath.Join(site, "index.html")) {
		t.Fatalf("docs: exit %d\n%s%s", code, out, errOut)
	}
	page, err := os.ReadFile(filepath.Join(site, "metrics", "talk_share.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sum(talk_hours) / sum(available_hours)", "Sam Okafor, 2026-10-28", "Share of the time an agent was available"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("talk_share's page lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(site, "metrics", "lost.html")); err == nil {
		t.Error("a page for a metric the catalogue does not define")
	}
	// The demo catalogue by default; no grant files: every page says so.
	code, _, errOut = runCLI(t, "docs", "-o", site, "--grants", t.TempDir())
	page, _ = os.ReadFile(filepath.Join(site, "metrics", "board_sales.html"))
	if code != 0 || !strings.Contains(string(page), "No grant file yet") {
		t.Errorf("docs of the demo catalogue without grant files: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "docs", "-o", site, "--grants", "sql/nothing"); code != 2 || !strings.Contains(errOut, "--grants sql/nothing is not a directory") {
		t.Errorf("docs with a --grants that is not there: exit %d %s", code, errOut)
	}
	// Without --grants, the grant files beside the catalogue, from any
	// working directory.
	catalogDir, _ := filepath.Abs("catalog/demo")
	t.Chdir(t.TempDir())
	code, _, errOut = runCLI(t, "docs", catalogDir, "-o", site)
	page, _ = os.ReadFile(filepath.Join(site, "metrics", "close_rate.html"))
	if code != 0 || strings.Contains(string(page), "No grant file yet") || !strings.Contains(string(page), "metrics.agent_sales_daily.sql") {
		t.Errorf("docs of catalog/demo from another directory: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "docs", "catalog/demo"); code != 2 || !strings.Contains(errOut, "-o is required") {
		t.Errorf("docs without -o: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "docs", "testdata/check/broken", "-o", site); code != 1 || !strings.Contains(errOut, "load catalogue") {
		t.Errorf("docs of a broken catalogue: exit %d: %s", code, errOut)
	}
}

// Each workbench command opens its help with its usage and names the
// environment variable of every flag.
func TestWorkbenchHelp(t *testing.T) {
	for _, cmd := range []string{"docs", "explain", "ask", "contract"} {
		code, out, _ := runCLI(t, "help", cmd)
		if code != 0 || !strings.HasPrefix(out, "Usage: plumbline "+cmd) || !strings.Contains(out, "$PLUMBLINE_") {
			t.Errorf("help %s: exit %d\n%s", cmd, code, out)
		}
	}
}
