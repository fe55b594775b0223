package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"plumbline/catalog"
)

func TestDemoCatalogLoads(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatalf("the demo catalogue does not load:\n%v", err)
	}
	for _, m := range cat.Metrics() {
		t.Logf("%-16s %-8s %s", m.ID, m.Unit, m.Formula())
	}
}

// The demo catalogue declares both rules of every metric, as a model for
// analysts, rather than leaning on the rules a catalogue gets by default.
func TestDemoDeclaresEveryMetricsRules(t *testing.T) {
	files, err := filepath.Glob("demo/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo files: %v", err)
	}
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Metrics map[string]map[string]any `yaml:"metrics"`
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for id, m := range doc.Metrics {
			seen++
			for _, key := range []string{"compare", "cumulative"} {
				if _, ok := m[key]; !ok {
					t.Errorf("%s: metric %s does not declare %s:", f, id, key)
				}
			}
		}
	}
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(cat.Metrics()) {
		t.Errorf("read %d metrics from the demo files, the catalogue has %d", seen, len(cat.Metrics()))
	}
}

// A catalogue that declares no rules gets the natural one of each metric:
// a share's change in points and anything else's as a difference; a ratio
// running by its parts and a sum as its running total.
func TestRulesLeftOutAreNatural(t *testing.T) {
	cat, err := catalog.LoadDir("../testdata/diff/old")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, m := range cat.Metrics() {
		compare, cumulative := catalog.CompareDifference, catalog.CumulativeRunningSum
		if m.IsRatio() {
			cumulative = catalog.CumulativeRunningParts
			if m.Unit == catalog.UnitShare {
				compare = catalog.ComparePoints
			}
		}
		if m.Compare != compare || m.Cumulative != cumulative {
			t.Errorf("%s (%s): compare %q, cumulative %q; want %q, %q", m.ID, m.Unit, m.Compare, m.Cumulative, compare, cumulative)
		}
		kinds[compare+" "+cumulative] = true
	}
	if len(kinds) < 2 {
		t.Errorf("the catalogue exercises only %v", kinds)
	}
}
