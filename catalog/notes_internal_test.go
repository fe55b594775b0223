package catalog

import (
	"os"
	"testing"
)

// A catalogue's standing notes are plumbline's own, the activity metric's
// and each source's, named so that no two share an ID; and the version
// changes with any note's text, so a caller holding the old version gets
// every text again.
func TestStandingNotes(t *testing.T) {
	cat, err := Load(os.DirFS("demo"), "demo")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, n := range cat.Notes() {
		if ids[n.ID] || n.Text == "" {
			t.Errorf("note %q: a second note with this ID, or no text", n.ID)
		}
		ids[n.ID] = true
	}
	time, _ := cat.Source("agent_time_daily")
	want := []string{NoteNull, NoteRatios, NoteLeague, NoteNoActivity, "metrics.agent_time_daily"}
	for _, id := range want {
		if !ids[id] {
			t.Errorf("no standing note %q among %v", id, ids)
		}
	}
	if got := cat.SourceNotes(time); len(got) != 1 || got[0] != "metrics.agent_time_daily" {
		t.Errorf("the hours source's notes: %v", got)
	}
	if n, _ := cat.Note("metrics.agent_time_daily"); n.Text != time.Notes[0] {
		t.Errorf("the hours source's note reads %q, want %q", n.Text, time.Notes[0])
	}

	saved := standingNotes[0].Text
	t.Cleanup(func() { standingNotes[0].Text = saved })
	standingNotes[0].Text += " Reworded."
	again, err := Load(os.DirFS("demo"), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if again.Version() == cat.Version() {
		t.Error("rewording a standing note left the catalogue's version as it was")
	}
}
