package reports

import (
	"encoding/json"
	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
	"slices"
	"testing"
	"time"
)

// FuzzDecodeReport feeds arbitrary arguments through decoding and
// resolution: nothing panics, every refusal teaches, and whatever is
// accepted resolves to a period the rules allow.
func FuzzDecodeReport(f *testing.F) {
	for _, seed := range []string{
		`{"who":{"floor":true},"period":{"named":"last_week"}}`,
		`{"who":{"agent":"Maria"},"period":{"week":"2026-11-01"},"group_by":"day"}`,
		`{"who":{"team":"falcons"},"period":{"start":"2026-07-21","end":"2026-11-17"},"metrics":["close_rate"],"sort":{"metric":"close_rate"},"top_n":3}`,
		`{"who":{"floor":true},"period":{"day":"2026-02-30"}}`,
		`{"who":{"floor":true},"period":{"named":"today"},"compare_counts":true,"compact":true,"known_definitions":"x"}`,
		`{"who":{"floor":false},"period":{}}`, `[1]`, `null`, `{"who":"x"}`, `{"top_n":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	cat := demoCatalog(f)
	sales, _ := cat.Report("sales")
	now := time.Date(2026, 11, 18, 19, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, r := grammar.Parse(json.RawMessage(raw))
		var req *grammar.Request
		if r == nil {
			req, r = a.Report(sales, catalog.NamedPeriods)
		}
		if r != nil {
			if r.Argument == "" || r.Rule == "" || r.Choices == nil || r.Code != ask.CodeInvalidArgument {
				t.Fatalf("a refusal that does not teach: %+v", r)
			}
			return
		}
		p, r := resolvePeriod(req.Period, now, cat, true)
		if r != nil {
			if r.Argument == "" || r.Rule == "" {
				t.Fatalf("a period refusal that does not teach: %+v", r)
			}
			return
		}
		if p.End.After(calendar.Today(now, cat.Zone())) || p.Start.After(p.End) || p.Days() > 120 && p.Named == "" {
			t.Fatalf("%s resolved to %v..%v", raw, p.Start, p.End)
		}
		scope, cands, r := testDir.resolveWho(req.Who)
		if (r != nil) == (scope.Kind != "" || cands != nil) || len(cands) == 1 && !cands[0].close {
			t.Fatalf("who resolved to scope %+v, %d candidates, refusal %v", scope, len(cands), r)
		}
	})
}

// FuzzResolveWho matches arbitrary text against the directory: one answer,
// several candidates, the names close to it or a refusal, and a refusal is the same whatever the
// text, so it never holds it (the text may still be a piece of its fixed
// words, such as " no ").
func FuzzResolveWho(f *testing.F) {
	for _, seed := range []string{"Maria", "maria lop", "JOSÉ", "a003", "ann.lee@floor.example", "Red", "", " ", "ñ", "@", "Ann Lee"} {
		f.Add(seed)
	}
	_, _, noAgent := testDir.resolveWho(grammar.WhoArg{Agent: "\x00"})
	_, _, noTeam := testDir.resolveWho(grammar.WhoArg{Team: "\x00"})
	if noAgent == nil || noTeam == nil {
		f.Fatal("a name of one NUL byte matched someone")
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, w := range []grammar.WhoArg{{Agent: text}, {Team: text}} {
			if w.Agent == "" && w.Team == "" {
				continue
			}
			scope, cands, r := testDir.resolveWho(w)
			switch {
			case r != nil:
				want := noAgent
				if w.Team != "" {
					want = noTeam
				}
				if r.Argument != want.Argument || r.Rule != want.Rule || !slices.Equal(r.Choices, want.Choices) {
					t.Fatalf("the refusal of %q depends on it: %+v", text, r)
				}
			case cands != nil:
				// One candidate is a name close to the text, never a match.
				if len(cands) < 2 && !cands[0].close {
					t.Fatalf("%q: one candidate should have been an answer", text)
				}
				for _, c := range cands[1:] {
					if c.close != cands[0].close {
						t.Fatalf("%q: candidates both matched and close: %+v", text, cands)
					}
				}
			case scope.Key == "":
				t.Fatalf("%q resolved to nothing", text)
			}
		}
	})
}
