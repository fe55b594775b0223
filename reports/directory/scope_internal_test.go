package directory

import (
	"maps"
	"slices"
	"testing"
	"time"
	"unsafe"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// A directory keeps a floor's thousands of stints a period for later
// calls (maxMemoStints is reckoned at 16 bytes each), so a stint stays
// small.
func TestStintIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(Stint{}); n > 16 {
		t.Errorf("a stint takes %d bytes, more than the 16 the memo is bounded by", n)
	}
}

// A roster is the company's own: a membership may name a team the roster
// does not list, or no team (an empty key), and an agent's key may be
// listed twice. Stints keep the team a membership names, count a
// membership naming none as days on no team, and give each listing of a
// key the key's moves.
func TestStintsOfAnUnlistedTeamAndATwiceListedAgent(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	d := settled(ask.Roster{
		Teams:  []ask.Team{{Key: "hawks", Name: "Hawks"}, {Key: "", Name: "Bench"}},
		Agents: []ask.Agent{{Key: "a1"}, {Key: "a2"}, {Key: "a1"}, {Key: "a3"}},
		Memberships: []ask.Membership{
			{Agent: "a1", Team: "hawks", From: day(0)}, {Agent: "a1", Team: "ghosts", From: day(10)},
			{Agent: "a2", Team: "ghosts", From: day(5)},
			{Agent: "a3", Team: "hawks", From: day(0)}, {Agent: "a3", Team: "", From: day(10)},
		},
	})
	p := ask.Period{Start: day(0), End: day(19)}
	days := map[string]int{}
	for _, st := range d.Stints(ask.Scope{Kind: ask.ScopeTeam, Key: "ghosts"}, p) {
		days[d.AgentOf(st)] += st.Days()
	}
	// a1 is listed twice, and each listing counts its ten days on ghosts.
	if want := map[string]int{"a1": 20, "a2": 15}; !maps.Equal(days, want) {
		t.Errorf("days counted for the unlisted team: %v, want %v", days, want)
	}
	if got := d.GroupsInScope(ask.Scope{Kind: ask.ScopeTeam, Key: "ghosts"}, catalog.GroupTeam, p); !slices.Equal(got, []string{"ghosts"}) {
		t.Errorf("groups of the unlisted team: %v", got)
	}
	if !d.Covers(d.Stints(ask.Scope{Kind: ask.ScopeTeam, Key: "ghosts"}, p), catalog.GroupTeam, "ghosts", day(12), day(12)) ||
		d.Covers(d.Stints(ask.Scope{Kind: ask.ScopeTeam, Key: "ghosts"}, p), catalog.GroupTeam, "ghosts", day(2), day(4)) {
		t.Errorf("the unlisted team's stints cover the wrong days")
	}
	if got := d.GroupsInScope(ask.Scope{Kind: ask.ScopeAgent, Key: "a3"}, catalog.GroupTeam, p); !slices.Equal(got, []string{"hawks"}) {
		t.Errorf("an agent's teams, with days on none: %v", got)
	}
	if n := len(d.Stints(ask.Scope{Kind: ask.ScopeTeam, Key: ""}, p)); n != 0 {
		t.Errorf("days on no team counted for a team keyed \"\": %d stints", n)
	}
	if _, ok := d.Team("ghosts"); ok {
		t.Errorf("a team only a membership names was found as a team of the roster")
	}
}
