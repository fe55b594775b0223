package clienttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// conformanceCLI is the suite's command line, under Dir.
const conformanceCLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js"

// baselineFile lists what does not apply to plumbline, under Dir.
const baselineFile = "conformance-baseline.yml"

// Exclusion is a group of the suite's scenarios, or of single checks of
// scenarios, that do not apply to plumbline, and why.
type Exclusion struct {
	Reason    string              `yaml:"reason"`
	Revisions []string            `yaml:"revisions"` // the MCP revisions it holds for; every one if empty
	Scenarios []string            `yaml:"scenarios"` // every check of these may fail
	Checks    map[string][]string `yaml:"checks"`    // by scenario, the checks that may fail
}

// Exclusions reads the baseline, conformance-baseline.yml.
func Exclusions(t testing.TB) []Exclusion {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Dir, baselineFile))
	if err != nil {
		t.Fatal(err)
	}
	var ex []Exclusion
	if err := yaml.Unmarshal(b, &ex); err != nil {
		t.Fatalf("%s: %v", baselineFile, err)
	}
	return ex
}

// Check is one check of a scenario, as the suite reports it.
type Check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED or INFO
	ErrorMessage string `json:"errorMessage"`
}

// ConformanceRun is one run of the suite: the line it printed for each
// scenario, and each scenario's checks.
type ConformanceRun struct {
	Lines  []string           // "✓ tools-list: 4 passed, 0 failed", one per scenario, and the total
	Checks map[string][]Check // by scenario
}

var (
	scenarioLine = regexp.MustCompile(`(?m)^[✓✗] \S+: \d+ passed, \d+ failed$|^Total: .*$`)
	resultDir    = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T`)
)

// Conformance runs the scenarios the MCP revision requires (2025-11-25 or
// 2026-07-28) of the official conformance suite against the MCP endpoint
// url, and fails the test unless everything that fails is in the baseline
// and everything in the baseline fails. It logs the suite's line for every
// scenario.
func Conformance(t *testing.T, url, revision string) *ConformanceRun {
	t.Helper()
	var exclusions []Exclusion
	for _, ex := range Exclusions(t) {
		if len(ex.Revisions) == 0 || slices.Contains(ex.Revisions, revision) {
			exclusions = append(exclusions, ex)
		}
	}
	var expected []string
	for _, ex := range exclusions {
		expected = append(expected, ex.Scenarios...)
		for scenario := range ex.Checks {
			expected = append(expected, scenario)
		}
	}
	baseline, err := yaml.Marshal(map[string][]string{"server": expected})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	baselinePath := filepath.Join(dir, "baseline.yml")
	if err := os.WriteFile(baselinePath, baseline, 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	res := Run(t, 5*time.Minute, conformanceCLI, "server", "--url", url, "--requirements", revision,
		"--expected-failures", baselinePath, "--timeout", "20000", "-o", results)

	run := &ConformanceRun{Lines: scenarioLine.FindAllString(res.Stdout, -1), Checks: map[string][]Check{}}
	t.Logf("conformance suite, %s requirements, against %s:\n%s", revision, url, strings.Join(run.Lines, "\n"))
	if len(run.Lines) == 0 {
		t.Fatalf("the conformance suite ran no scenario (exit %d):\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	if res.Code != 0 {
		t.Errorf("the conformance suite failed against its baseline (exit %d):\n%s\n%s", res.Code, baselineReport(res.Stdout), res.Stderr)
	}
	entries, err := os.ReadDir(results)
	if err != nil {
		t.Fatalf("the conformance suite wrote no results: %v", err)
	}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(results, e.Name(), "checks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var checks []Check
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		run.Checks[m[1]] = checks
	}
	run.compare(t, exclusions)
	return run
}

// compare fails the test on a failing or warning check the exclusions do
// not allow, and on an exclusion of a scenario that ran in which nothing
// fails any more.
func (run *ConformanceRun) compare(t *testing.T, exclusions []Exclusion) {
	t.Helper()
	allowed := func(scenario, check string) bool {
		for _, ex := range exclusions {
			if slices.Contains(ex.Scenarios, scenario) || slices.Contains(ex.Checks[scenario], check) {
				return true
			}
		}
		return false
	}
	failing := map[string]bool{} // "scenario" and "scenario check"
	for scenario, checks := range run.Checks {
		for _, c := range checks {
			if c.Status != "FAILURE" && c.Status != "WARNING" {
				continue
			}
			failing[scenario], failing[scenario+" "+c.ID] = true, true
			if !allowed(scenario, c.ID) {
				t.Errorf("%s: check %s: %s: %s", scenario, c.ID, c.Status, c.ErrorMessage)
			}
		}
	}
	for _, ex := range exclusions {
		for _, scenario := range ex.Scenarios {
			if _, ran := run.Checks[scenario]; ran && !failing[scenario] {
				t.Errorf("%s passes now: remove it from %s and from the README", scenario, baselineFile)
			}
		}
		for scenario, checks := range ex.Checks {
			for _, c := range checks {
				if _, ran := run.Checks[scenario]; ran && !failing[scenario+" "+c] {
					t.Errorf("%s: check %s passes now: remove it from %s and from the README", scenario, c, baselineFile)
				}
			}
		}
	}
}

// baselineReport is the part of the suite's output that says what broke
// the baseline.
func baselineReport(out string) string {
	if i := strings.Index(out, "\nTotal: "); i >= 0 {
		return out[i+1:]
	}
	return out
}
