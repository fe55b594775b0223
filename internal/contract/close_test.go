package contract_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/internal/contract"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// roster is a store of a directory alone, three agents on one team (two
// of them named Ana), with no figures loaded.
type roster struct{}

func (roster) Directory(context.Context, string) (*ask.Roster, error) {
	hired := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	r := &ask.Roster{Teams: []ask.Team{{Key: "hawks", Name: "Hawks"}},
		Floor: []ask.FloorDecision{{Team: "hawks", From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), CountsAsSales: true, DecidedBy: "ops", Reason: "sales team"}}}
	for _, a := range []ask.Agent{
		{Key: "a1", Name: "Ana Reyes", Email: "ana@floor.example"},
		{Key: "a2", Name: "Ben Okafor", Email: "ben@floor.example"},
		{Key: "a3", Name: "Ana Romero", Email: "ana.romero@floor.example"},
	} {
		a.Hired = hired
		r.Agents = append(r.Agents, a)
		r.Memberships = append(r.Memberships, ask.Membership{Agent: a.Key, Team: "hawks", From: hired})
	}
	return r, nil
}

func (roster) Run(_ context.Context, plans ...*ask.Plan) ([]*ask.Result, error) {
	results := make([]*ask.Result, len(plans))
	for i := range plans {
		results[i] = &ask.Result{Coverage: map[string]ask.Coverage{}}
	}
	return results, nil
}

func (roster) Coverage(context.Context, []*catalog.Source) (map[string]ask.Coverage, error) {
	return map[string]ask.Coverage{}, nil
}

func (roster) Ping(context.Context) error { return nil }

// Candidates close to a name typed wrong say so, in the note and the text,
// and never repeat what was typed; candidates a name matched say they
// matched (and their names hold what was typed, as matching names do).
func TestCloseCandidatesSaySo(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 18, 15, 0, 0, 0, time.UTC)
	e := reports.New(cat, roster{}, &reports.Options{Now: func() time.Time { return now }})
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
