package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
)

// This file says, from the directory's stints of a scope, whether a group
// without rows had no activity or has no data, and what differs underneath
// a comparison.

// covered reports whether some stint of the group has a day from first to
// last, both inclusive: a group with no rows on such a day had no activity.
// The group is a team or agent key, a day or the first day of a week, month
// or quarter, or empty for the whole scope.
func covered(dir *directory.Directory, stints []directory.Stint, groupBy, key string, first, last time.Time) bool {
	switch groupBy {
	case catalog.GroupDay:
		d, _ := calendar.ParseDate(key)
		first, last = calendar.Later(first, d), calendar.Earlier(last, d)
	case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		b, _ := calendar.ParseDate(key)
		first, last = calendar.Later(first, b), calendar.Earlier(last, calendar.BucketEnd(groupBy, b))
	}
	return dir.Covers(stints, groupBy, key, first, last)
}

// changes says what differs underneath a comparison of scope s over p with
// before: for a team, each agent counted for it on some day of either
// period but not on every day of both; for the floor, each team on the
// floor likewise; each with the days counted in each period and what
// changed, with its dates, naming only the teams named allows. An agent's
// own figures have none.
func changes(dir *directory.Directory, s ask.Scope, p, before ask.Period, stints, stintsBefore []directory.Stint, named func(team string) bool) []string {
	span := ask.Period{Start: calendar.Earlier(before.Start, p.Start), End: calendar.Later(before.End, p.End)}
	var out []string
	both := func(name, verb string, now, then int, events []string) {
		if now == p.Days() && then == before.Days() || now == 0 && then == 0 {
			return
		}
		s := fmt.Sprintf("%s: %s %s of this period and %s of the one before", name, verb, calendar.Share(now, p.Days()), calendar.Share(then, before.Days()))
		if len(events) > 0 {
			s += " (" + strings.Join(events, "; ") + ")"
		}
		out = append(out, s)
	}
	switch s.Kind {
	case ask.ScopeTeam:
		days := map[string][2]int{}
		for i, sts := range [][]directory.Stint{stints, stintsBefore} {
			for _, st := range sts {
				n := days[dir.AgentOf(st)]
				n[i] += st.Days()
				days[dir.AgentOf(st)] = n
			}
		}
		keys := slices.Sorted(maps.Keys(days))
		for _, key := range keys {
			a, _ := dir.Agent(key)
			both(a.Name+" ("+key+")", "counted", days[key][0], days[key][1], dir.AgentEvents(a, span, named))
		}
	case ask.ScopeFloor:
		for _, t := range dir.Teams {
			name := t.Name + " (" + t.Key + ")"
			if !named(t.Key) {
				name = "another team"
			}
			both(name, "on the floor", dir.FloorDays(t.Key, p), dir.FloorDays(t.Key, before), dir.FloorMoves(t.Key, span))
		}
	}
	return out
}
