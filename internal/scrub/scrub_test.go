package scrub_test

import (
	"encoding/json"
	"testing"

	"plumbline/internal/scrub"
)

// text scrubs one string as the strings of an answer are scrubbed.
func text(s string, keep ...string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(scrub.JSON(b, keep...), &out)
	return out
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"call 5551234567 now", "call 4567 now"},
		{"member 1234567", "member 4567"},
		{"123456 stays", "123456 stays"},
		{"MBR98765432X", "MBR5432X"},
		{"2026-11-18", "2026-11-18"},
		{"a 12345678 and 87654321", "a 5678 and 4321"},
		{"555-123-4567", "555-123-4567"},
		{"", ""},
	} {
		if got := text(tc.in); got != tc.want {
			t.Errorf("%q scrubbed is %q, want %q", tc.in, got, tc.want)
		}
		if got := scrub.String(tc.in); got != tc.want {
			t.Errorf("%q scrubbed as a plain string is %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A kept token survives whole, even when it holds a long digit run; the
// same digits elsewhere are cut.
func TestKeptTokens(t *testing.T) {
	id := "ab12345678cd"
	if got := scrub.String(`a \u1234567 in plain text`); got != `a \u4567 in plain text` {
		t.Errorf("a backslash in a plain string is no escape: %q", got)
	}
	if got := scrub.String("request "+id+", phone 12345678", id); got != "request "+id+", phone 5678" {
		t.Errorf("a kept token in a plain string: %q", got)
	}
	got := text("request "+id+", phone 12345678", id)
	if want := "request " + id + ", phone 5678"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// In JSON, strings are scrubbed and numbers (figures) are not; escapes are
// never broken; the kept tokens survive in any string they appear in.
func TestJSON(t *testing.T) {
	version := "6f1644845067d757" // a catalogue version with a seven-digit run
	body, _ := json.Marshal(map[string]any{
		"request_id":      "0a9876543210bb",
		"catalog_version": version,
		"rows":            [][]any{{"Falcons 5551234567", 12345678, 0.000123456789}},
		"notes":           []string{"known_definitions does not match (catalog_version " + version + ")", "sep\u20281234567"},
		"definition_ref":  "close_rate@" + version,
		"<html>":          "x",
	})
	got := scrub.JSON(body, "0a9876543210bb", version)
	var a struct {
		RequestID      string `json:"request_id"`
		CatalogVersion string `json:"catalog_version"`
		Rows           [][]any
		Notes          []string
		DefinitionRef  string `json:"definition_ref"`
	}
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("scrubbed JSON does not parse: %v\n%s", err, got)
	}
	if a.RequestID != "0a9876543210bb" || a.CatalogVersion != version || a.DefinitionRef != "close_rate@"+version {
		t.Errorf("identifiers were cut: %s", got)
	}
	if a.Rows[0][0] != "Falcons 4567" {
		t.Errorf("a phone number in a name came through as %v", a.Rows[0][0])
	}
	if a.Rows[0][1] != float64(12345678) || a.Rows[0][2] != 0.000123456789 {
		t.Errorf("figures were changed: %v", a.Rows[0])
	}
	if a.Notes[0] != "known_definitions does not match (catalog_version "+version+")" || a.Notes[1] != "sep\u20284567" {
		t.Errorf("notes = %q", a.Notes)
	}
	clean := []byte(`{"rows":[[1,2]],"notes":["123456"]}`)
	if got := scrub.JSON(clean); &got[0] != &clean[0] {
		t.Error("a body with no long digit run was copied")
	}
}

func BenchmarkJSON(b *testing.B) {
	body, _ := json.Marshal(map[string]any{"rows": [][]any{{"falcons", 130, 0.225303, 130, 577}},
		"notes": []string{"Null means no data, never zero.", "phone 5551234567"}, "catalog_version": "6f164484a506d757"})
	for b.Loop() {
		scrub.JSON(body, "6f164484a506d757")
	}
}

// A decoded JSON value has the runs of its strings cut, keys among them,
// at any depth, and its numbers left alone; the count says how many
// strings were cut. A JSON text is cut as JSON is, counted once.
func TestValue(t *testing.T) {
	var v any
	json.Unmarshal([]byte(`{"phone 5551234567": ["call 5551234567", 5551234567, {"n": 12345678, "s": "12345678"}], "ok": "123456"}`), &v)
	got, n := scrub.Value(v)
	b, _ := json.Marshal(got)
	if want := `{"ok":"123456","phone 4567":["call 4567",5551234567,{"n":12345678,"s":"5678"}]}`; string(b) != want || n != 3 {
		t.Errorf("scrubbed %s (%d cut), want %s (3 cut)", b, n, want)
	}
	for _, v := range []any{nil, true, 12345678.0, "123456"} {
		if got, n := scrub.Value(v); got != v || n != 0 {
			t.Errorf("%v became %v (%d cut)", v, got, n)
		}
	}
	raw, n := scrub.Value(json.RawMessage(`{"phone 5551234567":["call 5551234567",5551234567]}`))
	if b, _ := json.Marshal(raw); string(b) != `{"phone 4567":["call 4567",5551234567]}` || n != 1 {
		t.Errorf("a JSON text scrubbed as %s (%d cut)", b, n)
	}
}
