package directory

import (
	"slices"
	"strings"
	"sync"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
)

// This file works out, from the directory alone, who counts for a scope on
// which days of a period: the groups an answer must list, whether a group
// without rows had no activity or has no data, and whose days in the period
// are cut short by a hire, a departure, a move or a team's place on the floor.

// Stint is a run of days on which an agent counts for a scope: on the staff,
// on one team (none, before the agent's first) and, for the floor, with that
// team on the floor. Both ends are inclusive. Directories keep stints for
// later calls, a floor's thousands of them a period, so they are small.
type Stint struct {
	agent    int32 // the agent's index in Agents
	team     int32 // the team's index in teamKeys, or noTeam
	from, to epochDay
}

// noTeam is a stint's team before the agent's first, or on a membership
// that names none.
const noTeam = -1

// teamOf is the key of a stint's team, empty for none.
func (d *Directory) teamOf(st Stint) string { return d.teamKey(st.team) }

// epochDay is a date as days since 1 January 1970. Every date here is a
// midnight in UTC.
type epochDay int32

// epochDayOf is the day of date t.
func epochDayOf(t time.Time) epochDay { return epochDay(t.Unix() / (24 * 60 * 60)) }

// date is the day as a date.
func (d epochDay) date() time.Time { return time.Unix(int64(d)*24*60*60, 0).UTC() }

// stintsKey is what stints depend on.
type stintsKey struct {
	kind, key  string
	onFloor    bool
	start, end int64 // Unix seconds
}

// maxStintsMemo bounds how many scopes and periods a directory keeps the
// stints of, and maxMemoStints how many stints they hold in all (16 bytes
// each): past either, it starts afresh, so that on a floor of thousands
// the memo holds a megabyte or so (a few of the floor's periods), not a
// copy of the floor per period.
const (
	maxStintsMemo = 64
	maxMemoStints = 1 << 15
)

// scoped is what a directory works out once for a scope and period and
// keeps: the stints, and the groups an answer by team or by agent must show
// (GroupsInScope), each worked out when an answer first asks for it.
type scoped struct {
	stints                []Stint
	teams, agents         []string
	teamsOnce, agentsOnce sync.Once
}

// Stints lists every run of days in the period on which an agent counts for
// the scope, by agent and date. Callers must not change the list: it is
// kept for the calls after them.
func (d *Directory) Stints(s ask.Scope, p ask.Period) []Stint { return d.scoped(s, p).stints }

// scoped returns what the directory has worked out for a scope and period,
// working it out on the first call that asks.
func (d *Directory) scoped(s ask.Scope, p ask.Period) *scoped {
	k := stintsKey{s.Kind, s.Key, s.OnFloor, p.Start.Unix(), p.End.Unix()}
	d.stintsMu.Lock()
	out, ok := d.stintsMemo[k]
	d.stintsMu.Unlock()
	if ok {
		return out
	}
	out = &scoped{stints: d.workOutStints(s, p)}
	n := len(out.stints)
	if n > maxMemoStints {
		return out
	}
	d.stintsMu.Lock()
	defer d.stintsMu.Unlock()
	if d.stintsMemo == nil || len(d.stintsMemo) >= maxStintsMemo || d.memoStints+n > maxMemoStints {
		d.stintsMemo, d.memoStints = map[stintsKey]*scoped{}, 0
	}
	d.stintsMemo[k] = out
	d.memoStints += n
	return out
}

// workOutStints lists the stints of a scope in a period.
func (d *Directory) workOutStints(s ask.Scope, p ask.Period) []Stint {
	var out []Stint
	if s.Kind == ask.ScopeFloor {
		// About a stint an agent; kept, so sized for the floor alone.
		out = make([]Stint, 0, len(d.Agents))
	}
	var teams []Stint // one agent's, reused
	for i := range d.inScope(s) {
		a := &d.Agents[i]
		lo, hi := calendar.Later(a.Hired, p.Start), p.End
		if a.Left != nil && a.Left.Before(hi) {
			hi = *a.Left
		}
		if hi.Before(lo) {
			continue
		}
		teams = d.teamStints(teams[:0], i, lo, hi)
		for _, st := range teams {
			switch {
			case s.Kind == ask.ScopeAgent:
				out = append(out, st)
			case st.team == noTeam || s.Kind == ask.ScopeTeam && d.teamOf(st) != s.Key:
			case s.OnFloorOnly():
				out = d.floorStints(out, st)
			default:
				out = append(out, st)
			}
		}
	}
	return out
}

// teamStints appends to out the days from lo to hi of the agent with
// index agent, split by the team they were on.
func (d *Directory) teamStints(out []Stint, agent int, lo, hi time.Time) []Stint {
	moves := d.movesOf(agent)
	from := lo
	for i := 0; i <= len(moves) && !from.After(hi); i++ {
		team, until := int32(noTeam), hi
		if i > 0 {
			team = moves[i-1].team
		}
		if i < len(moves) {
			until = calendar.Earlier(hi, moves[i].from.AddDate(0, 0, -1))
		}
		if !until.Before(from) {
			out = append(out, Stint{agent: int32(agent), team: team, from: epochDayOf(from), to: epochDayOf(until)})
			from = until.AddDate(0, 0, 1)
		}
	}
	return out
}

// floorStints appends to out the days of a stint on which its team was on
// the floor.
func (d *Directory) floorStints(out []Stint, st Stint) []Stint {
	for _, p := range d.FloorSpans(d.teamOf(st), ask.Period{Start: st.from.date(), End: st.to.date()}) {
		out = append(out, Stint{agent: st.agent, team: st.team, from: epochDayOf(p.Start), to: epochDayOf(p.End)})
	}
	return out
}

// FloorTeams lists the teams that were on the floor on some day of the
// period, by key.
func (d *Directory) FloorTeams(p ask.Period) []string {
	var out []string
	for _, t := range d.Teams {
		if len(d.FloorSpans(t.Key, p)) > 0 {
			out = append(out, t.Key)
		}
	}
	return out
}

// FloorSpans lists the runs of days of span on which a team was on the
// floor, in order.
func (d *Directory) FloorSpans(team string, span ask.Period) []ask.Period {
	var out []ask.Period
	fs := d.decisions[team]
	for i, f := range fs {
		if !f.CountsAsSales {
			continue
		}
		from, to := calendar.Later(f.From, span.Start), span.End
		if i+1 < len(fs) {
			to = calendar.Earlier(to, fs[i+1].From.AddDate(0, 0, -1))
		}
		if !to.Before(from) {
			out = append(out, ask.Period{Start: from, End: to})
		}
	}
	return out
}

// FloorDays counts the days of span on which a team was on the floor.
func (d *Directory) FloorDays(team string, span ask.Period) int {
	n := 0
	for _, p := range d.FloorSpans(team, span) {
		n += p.Days()
	}
	return n
}

// FloorMoves names the days of span on which a team joined or left the
// floor, as "joined the floor on …" and "left the floor on …".
func (d *Directory) FloorMoves(team string, span ask.Period) []string {
	var out []string
	fs := d.decisions[team]
	for i, f := range fs {
		if i == 0 || f.From.Before(span.Start) || f.From.After(span.End) || f.CountsAsSales == fs[i-1].CountsAsSales {
			continue
		}
		verb := "left"
		if f.CountsAsSales {
			verb = "joined"
		}
		out = append(out, verb+" the floor on "+f.From.Format(time.DateOnly))
	}
	return out
}

// GroupsInScope lists, by key and in order, the groups an answer grouped by
// team or agent must show whether or not they have rows: the teams on the
// floor in the period (or the scope's team, or the agent's teams), the
// agents who counted for the scope on some day of it (or the scope's agent).
// Callers must not change the list: it is kept for the calls after them.
func (d *Directory) GroupsInScope(s ask.Scope, groupBy string, p ask.Period) []string {
	sc := d.scoped(s, p)
	switch groupBy {
	case catalog.GroupTeam:
		sc.teamsOnce.Do(func() { sc.teams = d.workOutGroups(s, groupBy, p, sc.stints) })
		return sc.teams
	case catalog.GroupAgent:
		sc.agentsOnce.Do(func() { sc.agents = d.workOutGroups(s, groupBy, p, sc.stints) })
		return sc.agents
	}
	return nil
}

// workOutGroups lists the groups in scope by team or agent from the scope's
// stints in the period.
func (d *Directory) workOutGroups(s ask.Scope, groupBy string, p ask.Period, stints []Stint) []string {
	var keys []string
	switch {
	case groupBy == catalog.GroupTeam && s.Kind == ask.ScopeFloor:
		keys = d.FloorTeams(p)
	case groupBy == catalog.GroupTeam && s.Kind == ask.ScopeTeam:
		keys = []string{s.Key}
	case groupBy == catalog.GroupAgent && s.Kind == ask.ScopeAgent:
		keys = []string{s.Key}
	}
	// A floor's thousands of stints name each group many times: each is
	// listed once as it comes, so the list kept is no longer than its groups.
	switch groupBy {
	case catalog.GroupTeam:
		seen := make([]bool, len(d.teamKeys))
		for _, st := range stints {
			if st.team != noTeam && !seen[st.team] {
				seen[st.team] = true
				keys = append(keys, d.teamKeys[st.team])
			}
		}
	case catalog.GroupAgent:
		for _, st := range stints { // by agent
			if k := d.AgentOf(st); len(keys) == 0 || keys[len(keys)-1] != k {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return slices.Clip(slices.Compact(keys))
}

// Presence says, for each agent whose days in the period are cut short for
// the scope, what cut them: joined, left, moved, or their team joining or
// leaving the floor; for an agent's own figures, also the moves that did
// not cut them. Agents are listed in the order given. named says whether
// the answer may name a team (the engine's namer): a team it may not reads
// as "another team", and its joining or leaving the floor is left out.
func (d *Directory) Presence(s ask.Scope, p ask.Period, agents []string, stints []Stint, named func(team string) bool) []string {
	var out []string
	for _, key := range agents {
		a, ok := d.Agent(key)
		if !ok {
			continue
		}
		days := 0
		for _, st := range stints {
			if d.AgentOf(st) == key {
				days += st.Days()
			}
		}
		what := d.AgentEvents(a, p, named)
		if s.OnFloorOnly() {
			what = append(what, d.floorChanges(key, p, named)...)
		}
		if days == p.Days() && (s.Kind != ask.ScopeAgent || len(what) == 0) {
			continue
		}
		if days == 0 {
			what = append(what, "not counted here on any day of the period")
		}
		out = append(out, a.Name+" ("+a.Key+": "+strings.Join(what, "; ")+")")
	}
	return out
}

// AgentEvents names what changed an agent's place in the period: joined,
// left, or moved from one team to another, with the dates; a team the
// answer may not name (named) is "another team".
func (d *Directory) AgentEvents(a ask.Agent, p ask.Period, named func(team string) bool) []string {
	var what []string
	if a.Hired.After(p.Start) {
		what = append(what, "joined "+a.Hired.Format(time.DateOnly))
	}
	if a.Left != nil && a.Left.Before(p.End) {
		what = append(what, "left "+a.Left.Format(time.DateOnly))
	}
	i, ok := d.agentIndex(a.Key)
	if !ok {
		return what
	}
	moves := d.movesOf(i)
	for j, m := range moves {
		if j > 0 && m.from.After(p.Start) && !m.from.After(p.End) {
			what = append(what, "moved from "+d.teamName(d.teamKey(moves[j-1].team), named)+" to "+d.teamName(d.teamKey(m.team), named)+" on "+m.from.Format(time.DateOnly))
		}
	}
	return what
}

// AgentOf is the key of a stint's agent.
func (d *Directory) AgentOf(st Stint) string { return d.Agents[st.agent].Key }

// Days counts the days of the stint.
func (st Stint) Days() int { return int(st.to-st.from) + 1 }

// Covers reports whether some of stints has a day from first to last, both
// inclusive, of the team or agent key when grouped by team or agent: a
// group with no rows on such a day had no activity.
func (d *Directory) Covers(stints []Stint, groupBy, key string, first, last time.Time) bool {
	if last.Before(first) {
		return false
	}
	lo, hi := epochDayOf(first), epochDayOf(last)
	for _, st := range stints {
		switch {
		case groupBy == catalog.GroupTeam && d.teamOf(st) != key, groupBy == catalog.GroupAgent && d.AgentOf(st) != key:
		case st.to >= lo && st.from <= hi:
			return true
		}
	}
	return false
}

// floorChanges names the days in the period on which the team an agent was
// on joined or left the floor, of the teams named allows.
func (d *Directory) floorChanges(agent string, p ask.Period, named func(team string) bool) []string {
	i, ok := d.agentIndex(agent)
	if !ok {
		return nil
	}
	var out []string
	for _, st := range d.teamStints(nil, i, p.Start, p.End) {
		team := d.teamOf(st)
		if !named(team) {
			continue
		}
		t, _ := d.Team(team)
		for _, move := range d.FloorMoves(team, ask.Period{Start: calendar.Later(st.from.date(), p.Start.AddDate(0, 0, 1)), End: st.to.date()}) {
			out = append(out, t.Name+" "+move)
		}
	}
	return out
}

// teamName is a team's name, or "another team" when named does not allow
// naming it.
func (d *Directory) teamName(key string, named func(team string) bool) string {
	if !named(key) {
		return "another team"
	}
	t, _ := d.Team(key)
	return t.Name
}
