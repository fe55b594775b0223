package reports_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// declaring is the demo catalogue with some of its metrics' rules declared
// otherwise: each edit replaces, in one file, text that occurs there once.
func declaring(t *testing.T, edits map[string][2]string) *catalog.Catalog {
	t.Helper()
	files, err := filepath.Glob("../catalog/demo/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no demo files: %v", err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if e, ok := edits[filepath.Base(f)]; ok {
			if strings.Count(text, e[0]) != 1 {
				t.Fatalf("%s holds %q %d times, want once", f, e[0], strings.Count(text, e[0]))
			}
			text = strings.Replace(text, e[0], e[1], 1)
		}
		fsys[filepath.Base(f)] = &fstest.MapFile{Data: []byte(text)}
	}
	cat, err := catalog.Load(fsys, "demo")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// A metric the catalogue declares compare: none or cumulative: none is
// refused where a call asks to set it beside the previous period or to run
// it by day: the refusal names the argument, the rule and the metrics that
// can be, and echoes nothing the caller typed. The same calls over the
// demo catalogue, which declares those metrics comparable and cumulative,
// answer, and a call that leaves the metric out answers too.
func TestDeclaredNoneIsRefused(t *testing.T) {
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	none := declaring(t, map[string][2]string{"sales.yaml": {
		"# its own summed parts.\n    compare: points\n", "# its own summed parts.\n    compare: none\n"}})
	flat := declaring(t, map[string][2]string{"sales.yaml": {
		"target: { over_days: additive, periods: [week, month] }\n    compare: difference\n    cumulative: running_sum\n",
		"target: { over_days: additive, periods: [week, month] }\n    compare: difference\n    cumulative: none\n"}})
	if m, _ := none.Metric("close_rate"); m.Compare != catalog.CompareNone {
		t.Fatalf("close_rate is declared compare %q", m.Compare)
	}
	if m, _ := flat.Metric("submitted_sales"); m.Cumulative != catalog.CumulativeNone {
		t.Fatalf("submitted_sales is declared cumulative %q", m.Cumulative)
	}
	sales := []string{"submitted_sales", "close_rate", "board_sales", "approved_sales", "approval_rate", "sales_per_hour"}
	without := func(id string) []string {
		return slices.DeleteFunc(slices.Clone(sales), func(s string) bool { return s == id })
	}
	compare := `{"who": {"team": "hawks"}, "period": {"start": "2026-11-17", "end": "2026-11-17"}, "group_by": "agent",
		"metrics": [%s], "compare_to": "previous_period"}`
	cumulative := `{"who": {"team": "hawks"}, "period": {"start": "2026-11-16", "end": "2026-11-17"}, "group_by": "day",
		"metrics": [%s], "cumulative": true}`
	for _, c := range []struct {
		name     string
		cat      *catalog.Catalog
		tool     string
		args     string
		argument string   // the argument refused; empty for an answer
		choices  []string // the refusal's choices
	}{
		{"compare none", none, "sales", fill(compare, `"submitted_sales", "close_rate"`), "compare_to", without("close_rate")},
		{"compare none by default", none, "sales", strings.Replace(fill(compare, ""), `"metrics": [],`, "", 1), "compare_to", without("close_rate")},
		{"compare without it", none, "sales", fill(compare, `"submitted_sales"`), "", nil},
		{"compare declared", demo(t), "sales", fill(compare, `"submitted_sales", "close_rate"`), "", nil},
		{"cumulative none", flat, "sales", fill(cumulative, `"close_rate", "submitted_sales"`), "cumulative", without("submitted_sales")},
		{"cumulative without it", flat, "sales", fill(cumulative, `"close_rate"`), "", nil},
		{"cumulative declared", demo(t), "sales", fill(cumulative, `"close_rate", "submitted_sales"`), "", nil},
		{"team_weeks compare none", none, "team_weeks", `{"who": {"team": "hawks"}, "compare_to": "previous_period"}`, "compare_to", []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newMemEngine(c.cat, exampleRows, now).Call(context.Background(), ask.Caller{Person: "p-dana"}, c.tool, json.RawMessage(c.args))
			if c.argument == "" {
				if a.Refusal != nil {
					t.Fatalf("refused: %v", a.Refusal)
				}
				return
			}
			r := a.Refusal
			if r == nil || r.Code != ask.CodeInvalidArgument || r.Argument != c.argument {
				t.Fatalf("refusal %+v, want invalid_argument on %s", r, c.argument)
			}
			if !strings.Contains(r.Rule, "("+strings.TrimSuffix(c.argument, "_to")+": none)") {
				t.Errorf("the rule does not name the declared rule: %s", r.Rule)
			}
			if !slices.Equal(r.Choices, c.choices) {
				t.Errorf("choices %v, want %v", r.Choices, c.choices)
			}
			for _, typed := range []string{"hawks", "2026-11", "close_rate", "submitted_sales", "previous_period"} {
				if strings.Contains(r.Rule, typed) {
					t.Errorf("the rule echoes %q: %s", typed, r.Rule)
				}
			}
		})
	}
}

// fill writes the metrics into a call's arguments.
func fill(args, metrics string) string { return strings.Replace(args, "%s", metrics, 1) }
