package reports

import (
	"context"
	"fmt"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
)

// rosterStore is a store holding a roster alone, read afresh each time.
type rosterStore struct{ teams int }

func (s *rosterStore) Directory(context.Context, string) (*ask.Roster, error) {
	r := &ask.Roster{}
	for i := range s.teams {
		r.Teams = append(r.Teams, ask.Team{Key: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("Team %d", i)})
	}
	return r, nil
}

func (s *rosterStore) Run(context.Context, ...*ask.Plan) ([]*ask.Result, error) { return nil, nil }

func (s *rosterStore) Coverage(context.Context, []*catalog.Source) (map[string]ask.Coverage, error) {
	return nil, nil
}

func (s *rosterStore) Ping(context.Context) error { return nil }

// A directory read again and found equal, on the same day, is the one
// already settled, with what it worked out since; a changed one is new.
func TestAnUnchangedRosterKeepsItsDirectory(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)
	st := &rosterStore{teams: 2}
	e := New(cat, st, &Options{DirectoryTTL: time.Nanosecond, Now: func() time.Time { return now }})
	// read asks for the directory, which reads it again in the background
	// once it is older than the TTL, waits for that read to end, and
	// returns what it left.
	read := func() *directory.Directory {
		t.Helper()
		if _, err := e.directory(context.Background(), now); err != nil {
			t.Fatal(err)
		}
		e.dir.mu.Lock()
		reading := e.dir.loading
		e.dir.mu.Unlock()
		if reading != nil {
			<-reading
		}
		d, _ := e.dir.last()
		return d
	}
	// The directory kept is the one settled, and so keeps what it worked
	// out since (the directory's own test sees that it does).
	first := read()
	if again := read(); again != first {
		t.Errorf("an equal roster read again gave a new directory")
	}
	st.teams = 3
	if changed := read(); changed == first || len(changed.Teams) != 3 {
		t.Errorf("a changed roster kept the directory read before it")
	}
}
