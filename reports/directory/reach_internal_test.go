package directory

import (
	"slices"
	"testing"

	"plumbline/reports/ask"
)

// who is a who as a call gives it: the floor, or a team's or an agent's
// text.
type who struct {
	floor       bool
	team, agent string
}

// resolveFor resolves a who within a reach, for person calling.
func (d *Directory) resolveFor(w who, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	if w.floor {
		s, refusal := FloorScope(r, person)
		return s, nil, refusal
	}
	return d.Resolve(w.team, w.agent, r, person)
}

// A who resolves only among what the reach covers; outside it the
// refusal names what the caller may ask for.
func TestResolveWithin(t *testing.T) {
	falcons := ask.Reach{Teams: []string{"falcons"}}
	two := ask.Reach{Teams: []string{"falcons", "hawks"}}
	own := ask.Reach{Own: true}
	for _, tc := range []struct {
		name   string
		reach  ask.Reach
		person string
		who    who
		want   string   // the scope's key, or the refusal's code
		cands  []string // candidates' keys, when several match
	}{
		{"a team lead's team", falcons, "p1", who{team: "Falcons"}, "falcons", nil},
		{"a team lead's mine", falcons, "p1", who{team: "MINE"}, "falcons", nil},
		{"another team", falcons, "p1", who{team: "hawks"}, ask.CodeForbidden, nil},
		{"the floor", falcons, "p1", who{floor: true}, ask.CodeForbidden, nil},
		{"a name matching on both teams", falcons, "p1", who{agent: "Maria"}, "a001", nil},
		{"the same name over two teams", two, "p1", who{agent: "Maria"}, "", []string{"a001", "a002"}},
		{"an agent of another team by email", falcons, "p1", who{agent: "maria.lopes@floor.example"}, ask.CodeForbidden, nil},
		{"mine over two teams", two, "p1", who{team: "mine"}, ask.CodeInvalidArgument, nil},
		{"mine on the floor: the caller's own team", ask.FloorReach, "a002", who{team: "mine"}, "hawks", nil},
		{"mine on the floor for someone on no team", ask.FloorReach, "p1", who{team: "mine"}, ask.CodeInvalidArgument, nil},
		{"own: themselves", own, "a003", who{agent: "a003"}, "a003", nil},
		{"own: their team", own, "a003", who{team: "falcons"}, ask.CodeForbidden, nil},
		{"own: another agent", own, "a003", who{agent: "Jamal"}, "a003", nil},
		{"none", ask.Reach{}, "p1", who{floor: true}, ask.CodeForbidden, nil},
	} {
		scope, cands, r := testDir.resolveFor(tc.who, tc.reach, tc.person)
		var got string
		var keys []string
		switch {
		case r != nil:
			got = r.Code
			if slices.Contains(r.Choices, "hawks") && !tc.reach.Floor && !slices.Contains(tc.reach.Teams, "hawks") {
				t.Errorf("%s: the refusal names a team outside the reach: %v", tc.name, r.Choices)
			}
		case cands != nil:
			for _, c := range cands {
				keys = append(keys, c.AgentKey+c.TeamKey)
			}
		default:
			got = scope.Key
		}
		if got != tc.want || !slices.Equal(keys, tc.cands) {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, keys, tc.want, tc.cands)
		}
	}
	r := outsideReach(ask.Reach{Teams: []string{"falcons"}, Own: true}, "who.team", "a009")
	if r.Code != ask.CodeForbidden || !slices.Equal(r.Choices, []string{"falcons", "a009"}) {
		t.Errorf("the refusal's choices: %v", r)
	}
}
