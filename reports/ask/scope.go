package ask

import "time"

// Scope kinds.
const (
	ScopeFloor = "floor"
	ScopeTeam  = "team"
	ScopeAgent = "agent"
)

// Scope is a resolved who: the floor, one team or one agent.
type Scope struct {
	Kind string
	Key  string // team or agent key; empty for the floor
	Name string // team or agent name, from the directory
	Team string // for an agent: the key of their latest team
	// OnFloor, for a team, counts only its days on the floor: the days its
	// targets hold on (the floor's own days are always those).
	OnFloor bool
	// Totals, for the floor, is asked by a caller who may see its totals
	// and not each team's or agent's figures (Reach.Totals): the report is
	// read from the rows the database gives such a caller, which say no
	// agent's or team's, and is never grouped by team or agent.
	Totals bool
}

// OnFloorOnly reports whether the scope counts only days on the floor.
func (s Scope) OnFloorOnly() bool { return s.Kind == ScopeFloor || s.OnFloor }

// Period is a resolved, inclusive range of days. Dates are civil dates,
// held as midnight UTC.
type Period struct {
	Start, End time.Time
	Named      string // the named period asked for, if any
	Clipped    bool   // the period asked for ran past today and was cut at today
	Ongoing    bool   // a period the catalogue names, cut at today as it has not ended
	// AskedEnd, when set, is the end asked for: a period so far compared
	// with the previous one ends on its last final day instead.
	AskedEnd time.Time
}

// Days is the number of days in the period.
func (p Period) Days() int { return int(p.End.Sub(p.Start).Hours()/24) + 1 }

// Contains reports whether day falls inside the period.
func (p Period) Contains(day time.Time) bool { return !day.Before(p.Start) && !day.After(p.End) }

// Later is the later of two days.
func Later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Earlier is the earlier of two days.
func Earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
