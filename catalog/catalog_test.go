package catalog_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"plumbline/catalog"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Each directory under testdata/check is a catalogue; its .want file holds
// what loading it reports: every problem with file:line:column, or "ok".
func TestCheckGolden(t *testing.T) {
	entries, err := os.ReadDir("../testdata/check")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name, dir := e.Name(), filepath.Join("../testdata/check", e.Name())
		t.Run(name, func(t *testing.T) {
			_, err := catalog.Load(os.DirFS(dir), "testdata/check/"+name)
			got := "ok\n"
			if err != nil {
				got = err.Error() + "\n"
			}
			golden := filepath.Join("../testdata/check", name+".want")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("loading %s reported:\n%s\nwant:\n%s", name, got, want)
			}
		})
	}
}

// Every problem names a real place in a file and says how to fix it.
func TestErrorsCarryPositionsAndHints(t *testing.T) {
	_, err := catalog.LoadDir("../testdata/check/broken")
	var errs catalog.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("loading the broken catalogue gave %v, want catalog.Errors", err)
	}
	if len(errs) < 20 {
		t.Errorf("only %d problems found in a catalogue with more than 20", len(errs))
	}
	for _, e := range errs {
		if e.Line < 1 || e.Column < 1 || !strings.HasSuffix(e.File, ".yaml") {
			t.Errorf("%q has no file:line:column", e.Error())
		}
		if e.Hint == "" {
			t.Errorf("%q has no hint", e.Error())
		}
	}
}

func TestEmptyDirectory(t *testing.T) {
	_, err := catalog.LoadDir(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no catalogue files found") {
		t.Fatalf("loading an empty directory gave %v", err)
	}
}

// The demo catalogue offers what the demo floor needs, with a definition a
// manager can read for every metric.
func TestDemoCatalog(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatalf("the demo catalogue does not load:\n%v", err)
	}
	fromDisk, err := catalog.LoadDir("demo")
	if err != nil {
		t.Fatal(err)
	}
	if fromDisk.Version() != cat.Version() {
		t.Errorf("the embedded catalogue (%s) and the one on disk (%s) differ", cat.Version(), fromDisk.Version())
	}
	want := map[string][]string{
		"hours":   {"logged_hours", "available_hours", "talk_hours", "talk_share", "availability"},
		"sales":   {"submitted_sales", "close_rate", "board_sales", "approved_sales", "approval_rate", "sales_per_hour"},
		"quality": {"audits", "audits_passed", "audit_pass_rate"},
	}
	for id, metrics := range want {
		rep, ok := cat.Report(id)
		if !ok {
			t.Errorf("no %s report", id)
			continue
		}
		for _, m := range metrics {
			if !rep.Offers(m) {
				t.Errorf("report %s does not offer %s", id, m)
			}
		}
	}
	bases := map[string]string{"board_sales": "board", "submitted_sales": "submitted", "approved_sales": "approved"}
	for _, m := range cat.Metrics() {
		if len(m.Definition()) < 30 {
			t.Errorf("metric %s has no definition a manager can read", m.ID)
		}
		if b, ok := bases[m.ID]; ok && (m.Basis == nil || m.Basis.ID != b) {
			t.Errorf("metric %s should count on the %s basis", m.ID, b)
		}
	}
	sph, _ := cat.Metric("sales_per_hour")
	if len(sph.Sources()) != 2 || sph.Formula() != "sum(metrics.agent_sales_daily: submitted) / sum(metrics.agent_time_daily: logged_hours)" {
		t.Errorf("sales_per_hour is not a ratio across two sources: %s", sph.Formula())
	}
	approved, _ := cat.Metric("approved_sales")
	if approved.Settles().DaysAfter != 14 {
		t.Errorf("approved figures settle by %v, want the approved basis's 14 days", approved.Settles())
	}
	relations := strings.Join(cat.Relations(), " ")
	if strings.Contains(relations, "crm.") {
		t.Errorf("the demo catalogue reads member data: %s", relations)
	}
}
