package ask

import "time"

// Roster is every team and every agent, including those who left, with the
// dated history of who was on which team, which teams counted as the
// floor, and the teams' targets: the rows the engine's directory is built
// from.
type Roster struct {
	Teams       []Team
	Agents      []Agent
	Memberships []Membership    // by agent, then date
	Floor       []FloorDecision // by team, then date
	Targets     []TargetSet     // every version of every team's targets
	// Stamp changes whenever a row of the roster changes: equal stamps,
	// equal rosters. Empty if the store keeps none; such a roster is read
	// whole every time.
	Stamp string
}

// Membership dates an agent's move to a team.
type Membership struct {
	Agent, Team string
	From        time.Time
}

// FloorDecision dates a team's place on the floor, and who decided it.
type FloorDecision struct {
	Team          string
	From          time.Time
	CountsAsSales bool
	DecidedBy     string
	Reason        string
}

// Team is a team in the directory.
type Team struct {
	Key, Name string
}

// Agent is an agent in the directory.
type Agent struct {
	Key, Name, Email string
	Team             string // key of the agent's team today; empty if none
	Hired            time.Time
	Left             *time.Time
}

// TargetSet is one version of a team's target for a metric over a week or
// a month (Kind), from Start.
type TargetSet struct {
	Team, Metric, Kind string
	Start              time.Time
	Value              float64
	SetBy              string
	SetAt              time.Time
	Reason             string
}
