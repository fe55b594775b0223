package catalog_test

import (
	"strings"
	"testing"

	"plumbline/catalog"
)

func TestParseExpr(t *testing.T) {
	quote := func(c string) string { return `"` + c + `"` }
	for _, tc := range []struct{ in, sql, cols string }{
		{"submitted", `"submitted"`, "submitted"},
		{"submitted + lost", `("submitted" + "lost")`, "submitted lost"},
		{"a + b * 2", `("a" + ("b" * 2))`, "a b"},
		{"(a + b) * 0.5", `(("a" + "b") * 0.5)`, "a b"},
		{"a - b - c", `(("a" - "b") - "c")`, "a b c"},
		{"  talk_hours  ", `"talk_hours"`, "talk_hours"},
	} {
		e, err := catalog.ParseExpr(tc.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.in, err)
			continue
		}
		if got := e.SQL(quote); got != tc.sql {
			t.Errorf("ParseExpr(%q).SQL = %s, want %s", tc.in, got, tc.sql)
		}
		if got := strings.Join(e.Columns(), " "); got != tc.cols {
			t.Errorf("ParseExpr(%q).Columns = %s, want %s", tc.in, got, tc.cols)
		}
	}
}

// Nothing but column arithmetic can be written: no functions (so no avg),
// no division, no subqueries, no literals other than numbers.
func TestParseExprRejects(t *testing.T) {
	for in, want := range map[string]string{
		"avg(close_rate)":         "function calls",
		"sum(submitted)":          "function calls",
		"submitted / lost":        "division is not allowed",
		"(select 1)":              "missing )",
		"submitted; drop table x": "unexpected",
		"'text'":                  "not allowed",
		"a +":                     "ends too early",
		"(a + b":                  "missing )",
		"1.2.3":                   "not a number",
		"submitted lost":          "unexpected",
		"":                        "ends too early",
		"a--b":                    "unexpected",
	} {
		_, err := catalog.ParseExpr(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseExpr(%q) = %v, want an error about %q", in, err, want)
		}
	}
}
