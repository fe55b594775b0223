package ask_test

import (
	"testing"

	"plumbline/reports/ask"
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
