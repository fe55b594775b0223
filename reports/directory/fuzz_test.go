package directory

import (
	"slices"
	"testing"
)

// FuzzResolveWho matches arbitrary text against the directory: one answer,
// several candidates, the names close to it or a refusal, and a refusal is the same whatever the
// text, so it never holds it (the text may still be a piece of its fixed
// words, such as " no ").
func FuzzResolveWho(f *testing.F) {
	for _, seed := range []string{"Maria", "maria lop", "JOSÉ", "a003", "ann.lee@floor.example", "Red", "", " ", "ñ", "@", "Ann Lee"} {
		f.Add(seed)
	}
	_, _, noAgent := testDir.resolveWho("", "\x00")
	_, _, noTeam := testDir.resolveWho("\x00", "")
	if noAgent == nil || noTeam == nil {
		f.Fatal("a name of one NUL byte matched someone")
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, w := range []who{{agent: text}, {team: text}} {
			if w.agent == "" && w.team == "" {
				continue
			}
			scope, cands, r := testDir.resolveWho(w.team, w.agent)
			switch {
			case r != nil:
				want := noAgent
				if w.team != "" {
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
