package ask

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file holds reach: whose figures a caller may ask for. Reach is data
// (plumbline.reach, kept with plumbline access or from the identity
// provider's groups); the engine answers within it.

// Reach is what a caller may see. The zero value sees nothing.
type Reach struct {
	// Floor sees every team and agent, and the floor's totals.
	Floor bool
	// Teams are the keys of the teams the caller may see, sorted, each
	// with the agents on it today; empty when Floor.
	Teams []string
	// Own sees the agent whose agent_key is the caller's person id.
	Own bool
	// Totals sees the floor's totals (sales, hours and quality about the
	// whole floor, over time but never by team or agent) beside what
	// else the reach covers; false when Floor, which sees them anyway.
	Totals bool
}

// What a reach row gives, as plumbline.reach's sees column names it.
const (
	SeesFloor = "floor"
	SeesTeam  = "team"
	SeesOwn   = "own"
	SeesNone  = "none"
	// SeesTotals gives the floor's totals, not a team's or an agent's
	// figures.
	SeesTotals = "totals"
)

// FloorReach sees everything: what a caller sees when nothing says
// otherwise.
var FloorReach = Reach{Floor: true}

// ParseReach reads a default reach as configuration gives it: floor or
// none.
func ParseReach(text string) (Reach, error) {
	switch text {
	case SeesFloor:
		return FloorReach, nil
	case SeesNone:
		return Reach{}, nil
	}
	return Reach{}, fmt.Errorf("a default reach is floor (every team) or none (nothing until plumbline access grants it)")
}

// Add widens the reach by what one row gives (SeesFloor, SeesTeam with a
// team key, SeesOwn, SeesTotals or SeesNone).
func (r *Reach) Add(sees, team string) {
	switch sees {
	case SeesFloor:
		r.Floor, r.Teams, r.Own, r.Totals = true, nil, false, false
	case SeesTeam:
		if !r.Floor && !slices.Contains(r.Teams, team) {
			r.Teams = append(r.Teams, team)
			slices.Sort(r.Teams)
		}
	case SeesOwn:
		r.Own = !r.Floor
	case SeesTotals:
		r.Totals = !r.Floor
	}
}

// None reports whether the reach sees nothing at all.
func (r Reach) None() bool { return !r.Floor && len(r.Teams) == 0 && !r.Own && !r.Totals }

// String names the reach in one word or list: floor, none, own, totals,
// team:KEY,…, or those joined by +. Equal reaches have equal strings; the cache
// of settled answers and the request log use it.
func (r Reach) String() string {
	var parts []string
	switch {
	case r.Floor:
		return SeesFloor
	case r.None():
		return SeesNone
	case r.Own:
		parts = append(parts, SeesOwn)
	}
	if r.Totals {
		parts = append(parts, SeesTotals)
	}
	if len(r.Teams) > 0 {
		parts = append(parts, SeesTeam+":"+strings.Join(r.Teams, ","))
	}
	return strings.Join(parts, "+")
}

// ReachSource resolves a person's reach on a day on the floor: the rows in
// force that day for them and their groups, or the configured default when
// none is.
type ReachSource interface {
	Reach(ctx context.Context, person string, day time.Time) (Reach, error)
}

// SeesTeam reports whether the reach covers a team.
func (r Reach) SeesTeam(key string) bool { return r.Floor || slices.Contains(r.Teams, key) }

// SeesAgent reports whether the reach covers an agent: on the floor, the
// caller's own agent, or an agent whose team today is one the reach covers.
func (r Reach) SeesAgent(a Agent, person string) bool {
	return r.Floor || r.Own && a.Key == person || a.Team != "" && slices.Contains(r.Teams, a.Team)
}
