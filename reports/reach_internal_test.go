package reports

import (
	"slices"
	"testing"

	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// Rows fold into one reach: the floor covers everything, teams gather
// sorted and once, and the reach names itself the same way for the same
// rows in any order.
func TestReachFolds(t *testing.T) {
	for _, tc := range []struct {
		rows [][2]string
		want string
	}{
		{nil, "none"},
		{[][2]string{{ask.SeesNone, ""}}, "none"},
		{[][2]string{{ask.SeesTeam, "hawks"}, {ask.SeesTeam, "falcons"}, {ask.SeesTeam, "hawks"}}, "team:falcons,hawks"},
		{[][2]string{{ask.SeesTeam, "hawks"}, {ask.SeesOwn, ""}}, "own+team:hawks"},
		{[][2]string{{ask.SeesOwn, ""}, {ask.SeesFloor, ""}, {ask.SeesTeam, "hawks"}}, "floor"},
		{[][2]string{{ask.SeesNone, ""}, {ask.SeesOwn, ""}}, "own"},
	} {
		var r ask.Reach
		for _, row := range tc.rows {
			r.Add(row[0], row[1])
		}
		if r.String() != tc.want {
			t.Errorf("%v: %s, want %s", tc.rows, r, tc.want)
		}
	}
	for text, want := range map[string]string{"floor": "floor", "none": "none"} {
		if r, err := ask.ParseReach(text); err != nil || r.String() != want {
			t.Errorf("ParseReach(%s) = %s, %v", text, r, err)
		}
	}
	if _, err := ask.ParseReach("team"); err == nil {
		t.Error("ParseReach took team as a default")
	}
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
		who    grammar.WhoArg
		want   string   // the scope's key, or the refusal's code
		cands  []string // candidates' keys, when several match
	}{
		{"a team lead's team", falcons, "p1", grammar.WhoArg{Team: "Falcons"}, "falcons", nil},
		{"a team lead's mine", falcons, "p1", grammar.WhoArg{Team: "MINE"}, "falcons", nil},
		{"another team", falcons, "p1", grammar.WhoArg{Team: "hawks"}, ask.CodeForbidden, nil},
		{"the floor", falcons, "p1", grammar.WhoArg{Floor: true}, ask.CodeForbidden, nil},
		{"a name matching on both teams", falcons, "p1", grammar.WhoArg{Agent: "Maria"}, "a001", nil},
		{"the same name over two teams", two, "p1", grammar.WhoArg{Agent: "Maria"}, "", []string{"a001", "a002"}},
		{"an agent of another team by email", falcons, "p1", grammar.WhoArg{Agent: "maria.lopes@floor.example"}, ask.CodeForbidden, nil},
		{"mine over two teams", two, "p1", grammar.WhoArg{Team: "mine"}, ask.CodeInvalidArgument, nil},
		{"mine on the floor: the caller's own team", ask.FloorReach, "a002", grammar.WhoArg{Team: "mine"}, "hawks", nil},
		{"mine on the floor for someone on no team", ask.FloorReach, "p1", grammar.WhoArg{Team: "mine"}, ask.CodeInvalidArgument, nil},
		{"own: themselves", own, "a003", grammar.WhoArg{Agent: "a003"}, "a003", nil},
		{"own: their team", own, "a003", grammar.WhoArg{Team: "falcons"}, ask.CodeForbidden, nil},
		{"own: another agent", own, "a003", grammar.WhoArg{Agent: "Jamal"}, "a003", nil},
		{"none", ask.Reach{}, "p1", grammar.WhoArg{Floor: true}, ask.CodeForbidden, nil},
	} {
		scope, cands, r := testDir.resolveWithin(tc.who, tc.reach, tc.person)
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
