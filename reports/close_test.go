package reports_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"plumbline/internal/contract"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// Candidates close to a name typed wrong say so, in the note and the text,
// and never repeat what was typed; candidates a name matched say they
// matched (and their names hold what was typed, as matching names do).
func TestCloseCandidatesSaySo(t *testing.T) {
	e := exampleEngine()
	for _, tc := range []struct {
		typed, first, note string
		keys               []string
	}{
		{"Ana Reyse", "No figures: who.agent matches none, and these names are close to it;", "No agent has that name, but these names are close to it", []string{"a1"}},
		{"ANA ROMERO", "", "", []string{}},
		{"Ana", "No figures: who.agent matches several;", "Several agents match", []string{"a1", "a3"}},
		{"ana.romer@floor.example", "No figures: who.agent matches none, and these names are close to it;", "close to it", []string{"a3"}},
	} {
		args := `{"who":{"agent":"` + tc.typed + `"},"period":{"day":"2026-11-17"}}`
		a := e.Call(context.Background(), ask.Caller{Person: "p-dana"}, "sales", json.RawMessage(args))
		c, ok := a.Body.(*reports.CandidatesAnswer)
		if tc.first == "" {
			if ok || a.Refusal != nil {
				t.Errorf("%q: an exact name did not answer: %+v", tc.typed, a.Body)
			}
			continue
		}
		if !ok {
			t.Fatalf("%q: no candidates: %+v", tc.typed, a.Body)
		}
		var keys []string
		for _, k := range c.Candidates {
			keys = append(keys, k.AgentKey)
		}
		text, _ := contract.Text(e, a, func(s string) string { return s })
		b, _ := json.Marshal(a.Body)
		switch {
		case strings.Join(keys, " ") != strings.Join(tc.keys, " "):
			t.Errorf("%q: candidates %v, want %v", tc.typed, keys, tc.keys)
		case !strings.HasPrefix(text, tc.first):
			t.Errorf("%q reads %q", tc.typed, text)
		case !strings.Contains(c.Notes[0], tc.note):
			t.Errorf("%q: note %q", tc.typed, c.Notes[0])
		case tc.typed != "Ana" && strings.Contains(strings.ToLower(text+string(b)), strings.ToLower(tc.typed)):
			t.Errorf("%q: the answer repeats the typed text", tc.typed)
		}
	}
}
