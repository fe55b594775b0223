package directory

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"plumbline/reports/ask"
)

var testDir = settled(ask.Roster{
	Teams: []ask.Team{{Key: "falcons", Name: "Falcons"}, {Key: "hawks", Name: "Hawks"}, {Key: "retention", Name: "Retention & Service"}, {Key: "red_team", Name: "Red Team"}, {Key: "red_sales", Name: "Red Sales"}},
	Agents: []ask.Agent{
		{Key: "a001", Name: "Maria Lopez", Email: "maria.lopez@floor.example", Team: "falcons"},
		{Key: "a002", Name: "Maria Lopes", Email: "maria.lopes@floor.example", Team: "hawks"},
		{Key: "a003", Name: "Jamal Carter", Email: "jamal.carter@floor.example", Team: "falcons"},
		{Key: "a004", Name: "Jamal Reed", Email: "jamal.reed@floor.example", Team: "hawks"},
		{Key: "a005", Name: "José Peña", Email: "jose.pena@floor.example", Team: "falcons"},
		{Key: "a006", Name: "Ann Lee", Email: "ann.lee@floor.example", Team: "hawks"},
		{Key: "a007", Name: "Ann Leeman", Email: "ann.leeman@floor.example", Team: "hawks"},
	},
})

// testDay is the day the tests' directories are indexed as of.
var testDay = time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)

// settled indexes a roster as the engine does when it reads one.
func settled(r ask.Roster) *Directory { return New(&r, testDay, nil) }

// resolveWho resolves a who's team or agent text over the whole floor.
func (d *Directory) resolveWho(team, agent string) (ask.Scope, []Candidate, *ask.Refusal) {
	return d.Resolve(team, agent, ask.FloorReach, "")
}

func TestResolveAgent(t *testing.T) {
	for _, tc := range []struct {
		typed string
		want  []string // one key answers; several are candidates
	}{
		{"a003", []string{"a003"}},
		{"A003", []string{"a003"}},
		{"MARIA.LOPES@floor.example", []string{"a002"}},
		{"Maria Lopez", []string{"a001"}},
		{"maria lopes", []string{"a002"}},
		{"Maria", []string{"a001", "a002"}},
		{"maria lop", []string{"a001", "a002"}},
		{"Lopez Maria", []string{"a001"}},
		{"M. Lopez", []string{"a001"}},
		{"Jamal", []string{"a003", "a004"}},
		{"jose pena", []string{"a005"}},
		{"JOSÉ", []string{"a005"}},
		{"Peña", []string{"a005"}},
		{"Ann Lee", []string{"a006"}}, // an exact name wins over a longer one
		{"ann le", []string{"a006", "a007"}},
		{"Nobody Here", nil},
		{"nobody@floor.example", nil},
		{"!!!", nil},
	} {
		scope, cands, r := testDir.resolveWho("", tc.typed)
		var got []string
		switch {
		case r != nil:
			if r.Argument != "who.agent" {
				t.Errorf("%q: refusal names %s", tc.typed, r.Argument)
			}
		case cands != nil:
			for _, c := range cands {
				got = append(got, c.AgentKey)
			}
		default:
			got = []string{scope.Key}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("agent %q resolved to %v, want %v", tc.typed, got, tc.want)
		}
	}
}

func TestResolveTeam(t *testing.T) {
	for typed, want := range map[string][]string{
		"falcons":   {"falcons"},
		"Falcons":   {"falcons"},
		"retention": {"retention"},
		"Red":       {"red_team", "red_sales"},
		"red team":  {"red_team"},
		"Owls":      nil,
	} {
		scope, cands, r := testDir.resolveWho(typed, "")
		var got []string
		switch {
		case r != nil:
			if len(r.Choices) != len(testDir.Teams) {
				t.Errorf("%q: an unknown team should list every team key, got %v", typed, r.Choices)
			}
		case cands != nil:
			for _, c := range cands {
				got = append(got, c.TeamKey)
			}
		default:
			got = []string{scope.Key}
		}
		if !slices.Equal(got, want) {
			t.Errorf("team %q resolved to %v, want %v", typed, got, want)
		}
	}
}

func TestCandidatesCarryTeams(t *testing.T) {
	_, cands, _ := testDir.resolveWho("", "Maria")
	if len(cands) != 2 || cands[0].Team != "Falcons" || cands[1].Team != "Hawks" {
		t.Errorf("candidates = %+v", cands)
	}
}

// A team's agents are those ever on it, each once however often they came
// back, in directory order; the floor's are every agent, an agent's the
// agent alone.
func TestInScope(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	d := settled(ask.Roster{
		Teams:  []ask.Team{{Key: "falcons", Name: "Falcons"}, {Key: "hawks", Name: "Hawks"}, {Key: "owls", Name: "Owls"}},
		Agents: []ask.Agent{{Key: "a1"}, {Key: "a2"}, {Key: "a3"}, {Key: "a4"}},
		Memberships: []ask.Membership{
			{Agent: "a3", Team: "hawks", From: day(1)}, {Agent: "a1", Team: "falcons", From: day(1)}, {Agent: "a1", Team: "hawks", From: day(5)}, {Agent: "a1", Team: "falcons", From: day(9)},
			{Agent: "a2", Team: "hawks", From: day(2)}, {Agent: "a3", Team: "falcons", From: day(3)}, {Agent: "a3", Team: "hawks", From: day(7)},
		},
	})
	keys := func(s ask.Scope) []string {
		var out []string
		for a := range d.InScope(s) {
			out = append(out, a.Key)
		}
		return out
	}
	for _, tc := range []struct {
		scope ask.Scope
		want  []string
	}{
		{ask.Scope{Kind: ask.ScopeTeam, Key: "falcons"}, []string{"a1", "a3"}},
		{ask.Scope{Kind: ask.ScopeTeam, Key: "hawks"}, []string{"a1", "a2", "a3"}},
		{ask.Scope{Kind: ask.ScopeTeam, Key: "owls"}, nil},
		{ask.Scope{Kind: ask.ScopeAgent, Key: "a2"}, []string{"a2"}},
		{ask.Scope{Kind: ask.ScopeAgent, Key: "nobody"}, nil},
		{ask.Scope{Kind: ask.ScopeFloor}, []string{"a1", "a2", "a3", "a4"}},
	} {
		if got := keys(tc.scope); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: %v, want %v", tc.scope.Kind, tc.scope.Key, got, tc.want)
		}
	}
}

// Text in ASCII is taken as it is, costing nothing, and comes out as the
// full fold (decompose, drop the marks, compose) would make it; other text
// goes through that fold.
func TestUnaccented(t *testing.T) {
	fold := func(s string) string {
		out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.IntN(128))
		}
		if s := string(b); unaccented(s) != fold(s) {
			t.Errorf("unaccented(%q) = %q, the fold makes %q", s, unaccented(s), fold(s))
		}
	}
	for in, want := range map[string]string{"José Peña": "Jose Pena", "Zoë  O'Brien-Ünal": "Zoe  O'Brien-Unal", "Łukasz": "Łukasz"} {
		if got := unaccented(in); got != want || got != fold(in) {
			t.Errorf("unaccented(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { unaccented("Maria Lopez") }); n != 0 {
		t.Errorf("unaccented of ASCII text allocates %v times", n)
	}
}

// A name or an email typed wrong, matching nothing, returns the names close
// to it as candidates, the closest first; an exact match still wins, and a
// name close to nothing is refused.
func TestCloseNames(t *testing.T) {
	for _, tc := range []struct {
		team  bool
		typed string
		want  []string // keys, in order
		close bool     // candidates suggested, not matched
	}{
		{typed: "Mraia Lopez", want: []string{"a001", "a002"}, close: true}, // swapped letters: 1 and 2 edits
		{typed: "maria lopz", want: []string{"a001", "a002"}, close: true},  // a missing letter
		{typed: "Lopz", want: []string{"a001"}, close: true},                // one word, one edit from lopez, two from lopes
		{typed: "Jose Pna", want: []string{"a005"}, close: true},            // accents dropped on both sides
		{typed: "JOSE PENNA", want: []string{"a005"}, close: true},
		{typed: "Jamla", want: []string{"a003", "a004"}, close: true},
		{typed: "maria.lopze@floor.example", want: []string{"a001", "a002"}, close: true},
		{typed: "jamal.carter@floor.exmaple", want: []string{"a003"}, close: true},
		{typed: "Ann Lea", want: []string{"a006"}, close: true}, // one edit from ann lee; ann leeman is three
		{typed: "Ann Lee", want: []string{"a006"}},              // an exact match wins outright
		{typed: "Maria Lopes", want: []string{"a002"}},
		{typed: "Tim Lee", want: nil}, // three letters must be typed exactly
		{typed: "Zebediah Quux", want: nil},
		{typed: "zebediah@floor.example", want: nil},
		{team: true, typed: "Falcns", want: []string{"falcons"}, close: true},
		{team: true, typed: "hawsk", want: []string{"hawks"}, close: true},
		{team: true, typed: "Red Taem", want: []string{"red_team"}, close: true},
		{team: true, typed: "Retension", want: []string{"retention"}, close: true},
		{team: true, typed: "Owls", want: nil},
	} {
		team, agent := "", tc.typed
		if tc.team {
			team, agent = tc.typed, ""
		}
		scope, cands, r := testDir.resolveWho(team, agent)
		var got []string
		suggested := false
		switch {
		case r != nil:
		case cands != nil:
			for _, c := range cands {
				got = append(got, c.AgentKey+c.TeamKey)
				suggested = c.close
			}
		default:
			got = []string{scope.Key}
		}
		if !slices.Equal(got, tc.want) || suggested != tc.close {
			t.Errorf("%q resolved to %v (close %v), want %v (close %v)", tc.typed, got, suggested, tc.want, tc.close)
		}
		for _, c := range cands {
			if c.Name == tc.typed {
				t.Errorf("%q: a candidate echoes the typed text", tc.typed)
			}
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"tom beker", "tom becker", 1},
		{"mraia", "maria", 1}, // a swap is one edit
		{"ca", "abc", 3},      // no letter is edited twice: not 2
		{"pena", "peña", 1},
		{"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

// What a directory keeps of the stints it worked out stays bounded however
// large the floor and however many periods calls ask, and what it hands
// back is what it works out afresh.
func TestStintsMemoIsBounded(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	r := ask.Roster{Teams: []ask.Team{{Key: "hawks", Name: "Hawks"}}}
	for i := range 3000 {
		key := fmt.Sprintf("a%04d", i)
		r.Agents = append(r.Agents, ask.Agent{Key: key})
		r.Memberships = append(r.Memberships, ask.Membership{Agent: key, Team: "hawks", From: day(0)})
	}
	d := settled(r)
	team := ask.Scope{Kind: ask.ScopeTeam, Key: "hawks"}
	for i := range 40 {
		p := ask.Period{Start: day(i), End: day(i + 27)}
		got := d.Stints(team, p)
		if want := d.workOutStints(team, p); len(got) != len(d.Agents) || !slices.Equal(got, want) {
			t.Fatalf("period %d: %d stints kept, %d worked out afresh", i, len(got), len(want))
		}
		held := 0
		for _, s := range d.stintsMemo {
			held += len(s.stints)
		}
		if held != d.memoStints || held > maxMemoStints {
			t.Fatalf("period %d: the memo holds %d stints and counts %d; at most %d", i, held, d.memoStints, maxMemoStints)
		}
	}
}

// A roster indexed again and found equal, on the same day, is the
// directory already indexed, with what it worked out since; a changed one,
// or the same one on another day, is new.
func TestAnUnchangedRosterKeepsItsDirectory(t *testing.T) {
	roster := func(teams int) *ask.Roster {
		r := &ask.Roster{}
		for i := range teams {
			r.Teams = append(r.Teams, ask.Team{Key: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("Team %d", i)})
		}
		return r
	}
	first := New(roster(2), testDay, nil)
	first.scoped(ask.Scope{Kind: ask.ScopeFloor}, ask.Period{Start: testDay, End: testDay})
	if again := New(roster(2), testDay, first); again != first || len(again.stintsMemo) != 1 {
		t.Errorf("an equal roster indexed again gave a new directory, or lost what it had worked out (%d kept)", len(again.stintsMemo))
	}
	if changed := New(roster(3), testDay, first); changed == first || len(changed.Teams) != 3 {
		t.Errorf("a changed roster kept the directory indexed before it")
	}
	if later := New(roster(2), testDay.AddDate(0, 0, 1), first); later == first || !later.Day().Equal(testDay.AddDate(0, 0, 1)) {
		t.Errorf("a roster indexed on another day kept the directory of the day before")
	}
}
