package reports

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
)

// rosterStore is a store holding a roster alone. A stamped one stamps it
// with its count of teams, and reads it only when asked with another
// stamp; an unstamped one reads it afresh each time. It counts its reads.
type rosterStore struct {
	teams   int
	stamped bool
	reads   int
	asked   []string // the stamps it was asked with
}

func (s *rosterStore) Directory(_ context.Context, unless string) (*ask.Roster, error) {
	s.asked = append(s.asked, unless)
	r := &ask.Roster{}
	if s.stamped {
		if r.Stamp = fmt.Sprint(s.teams); r.Stamp == unless {
			return nil, nil
		}
	}
	s.reads++
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
// A store that stamps its roster is asked with the last stamp, and so
// does not read an unchanged roster again; on a new day it reads it whole.
func TestAnUnchangedRosterKeepsItsDirectory(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	for _, stamped := range []bool{false, true} {
		now := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)
		st := &rosterStore{teams: 2, stamped: stamped}
		e := New(cat, st, &Options{DirectoryTTL: time.Nanosecond, Now: func() time.Time { return now }})
		// read asks for the directory, which reads it again in the
		// background once it is older than the TTL, waits for that read to
		// end, and returns what it left.
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
		// The directory kept is the one settled, and so keeps what it
		// worked out since (the directory's own test sees that it does).
		first := read()
		if again := read(); again != first {
			t.Errorf("stamped %v: an equal roster read again gave a new directory", stamped)
		}
		if stamped && (st.reads != 1 || !slices.Equal(st.asked, []string{"", "2"})) {
			t.Errorf("an unchanged stamped roster: read %d times, asked with %q", st.reads, st.asked)
		}
		st.teams = 3
		if changed := read(); changed == first || len(changed.Teams) != 3 {
			t.Errorf("stamped %v: a changed roster kept the directory read before it", stamped)
		}
		if !stamped {
			continue
		}
		now = now.AddDate(0, 0, 1)
		reads := st.reads
		if next := read(); next.Day().Equal(first.Day()) || st.reads != reads+1 || st.asked[len(st.asked)-1] != "" {
			t.Errorf("a new day: the roster was not read whole as of it (asked with %q)", st.asked)
		}
	}
}
