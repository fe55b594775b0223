package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/grammar"
)

// This file holds the stores that let a call be explained (plumbline
// explain) without running it: one that records plans instead of running
// them, and one that stands in for the database's directory.

// DryRun is a store that records the plans the engine asks it to run
// instead of running them, so an explained call follows the engine's own
// path; the directory and coverage come from the store it wraps.
type DryRun struct {
	ask.Store
	// Plans are the plans the engine asked to run, in order.
	Plans []*ask.Plan
}

// Run records plans and returns an empty result for each.
func (d *DryRun) Run(_ context.Context, plans ...*ask.Plan) ([]*ask.Result, error) {
	d.Plans = append(d.Plans, plans...)
	results := make([]*ask.Result, len(plans))
	for i := range results {
		results[i] = &ask.Result{Coverage: map[string]ask.Coverage{}}
	}
	return results, nil
}

// keyShape is what a key looks like: no spaces, no @.
var keyShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

// KeysOnly returns the store that explains a call to the catalogue report
// tool without a database, as of now: its directory holds the one team or
// agent key the call's who names, taken as given, and every source is
// loaded from long ago through now's day on the floor. Only its Directory
// and Coverage answer; wrap it in a [DryRun]. A call to another tool, or
// one naming someone by other than a key, needs the database: the error
// says so, to the caller of explain.
func KeysOnly(cat *catalog.Catalog, tool string, raw json.RawMessage, now time.Time) (ask.Store, error) {
	if _, ok := cat.Report(tool); !ok {
		var ids []string
		for _, r := range cat.Reports() {
			ids = append(ids, r.ID)
		}
		return nil, fmt.Errorf("without a database, explain takes the catalogue's report tools (%s); add --db DSN for the others",
			strings.Join(ids, ", "))
	}
	dir := &ask.Roster{}
	a, r := grammar.Parse(raw)
	if r == nil {
		var who grammar.WhoArg
		if who, r = a.Who(); r != nil {
			// A malformed call is the engine's to refuse.
			who = grammar.WhoArg{}
		}
		for _, w := range []struct {
			arg, key string
			add      func()
		}{
			{"who.team", who.Team, func() { dir.Teams = append(dir.Teams, ask.Team{Key: who.Team}) }},
			{"who.agent", who.Agent, func() { dir.Agents = append(dir.Agents, ask.Agent{Key: who.Agent}) }},
		} {
			switch {
			case w.key == "":
			case !keyShape.MatchString(w.key):
				return nil, fmt.Errorf("%s: without a database explain takes only a key (no spaces, no @); "+
					"names and emails are matched against the directory, so add --db DSN", w.arg)
			default:
				w.add()
			}
		}
	}
	return keyDirectory{dir: dir, today: calendar.Today(now, cat.Zone())}, nil
}

// keyDirectory answers the directory without a database. The nil store it
// embeds is never reached: without a database only catalogue reports are
// explained, and their plans are recorded rather than run.
type keyDirectory struct {
	ask.Store
	dir   *ask.Roster
	today time.Time
}

func (k keyDirectory) Directory(context.Context, string) (*ask.Roster, error) { return k.dir, nil }

// Coverage says every source is loaded from long ago through today: without
// a database nothing is known to be missing, so the plan is the one a fresh
// floor gets.
func (k keyDirectory) Coverage(_ context.Context, sources []*catalog.Source) (map[string]ask.Coverage, error) {
	out := map[string]ask.Coverage{}
	for _, s := range sources {
		out[s.ID] = ask.Coverage{First: k.today.AddDate(-100, 0, 0), Through: k.today}
	}
	return out, nil
}
