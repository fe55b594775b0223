package catalog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"plumbline/catalog"
)

// FuzzLoad loads two arbitrary catalogue files merged: nothing panics, a
// catalogue that fails to load says why with a file, a line and a column in
// one of its files, and one that loads has a version and reports whose
// metrics exist. Seeded from the demo catalogue and the broken one the
// check tests use.
func FuzzLoad(f *testing.F) {
	var files [][]byte
	for _, dir := range []string{"demo", "../testdata/check/broken"} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			files = append(files, b)
		}
	}
	if len(files) < 6 {
		f.Fatalf("seeded from %d files", len(files))
	}
	for i := range files {
		f.Add(files[i], files[(i+1)%len(files)])
	}
	f.Add([]byte("version: 1\n"), []byte("metrics: {x: {sum: \"a +\"}}\n"))
	f.Add([]byte("{"), []byte(""))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		cat, err := catalog.Load(fstest.MapFS{"a.yaml": {Data: a}, "b.yaml": {Data: b}}, "cat")
		if err != nil {
			errs, ok := err.(catalog.Errors)
			if !ok || len(errs) == 0 {
				t.Fatalf("an error that is not a list of catalogue errors: %T %v", err, err)
			}
			for _, e := range errs {
				if e.File != filepath.Join("cat", "a.yaml") && e.File != filepath.Join("cat", "b.yaml") || e.Line < 0 || e.Column < 0 ||
					strings.TrimSpace(e.Msg) == "" {
					t.Fatalf("an error without its place or its reason: %+v", e)
				}
			}
			return
		}
		if cat.Version() == "" {
			t.Fatal("a catalogue without a version")
		}
		for _, rep := range cat.Reports() {
			for _, m := range rep.Metrics {
				if _, ok := cat.Metric(m.ID); !ok {
					t.Fatalf("report %s lists metric %s, which the catalogue does not hold", rep.ID, m.ID)
				}
			}
		}
	})
}

// An entry with nothing in it, and an id that is not plain text, are
// problems with a place, not a crash (FuzzLoad found both).
func TestEmptyEntriesAndIDsThatAreNotText(t *testing.T) {
	_, err := catalog.Load(fstest.MapFS{"a.yaml": {Data: []byte("version: 1\nmetrics:\n  x:\n  ? {a: 1}\n  : {}\nsources: {y: }\n")}}, "")
	for _, want := range []string{`a.yaml:3:3: metrics "x" is empty`, `a.yaml:4:5: metrics must be keyed by ids`, `a.yaml:6:11: sources "y" is empty`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %s among:\n%v", want, err)
		}
	}
}
