package directory

import (
	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// This file resolves whom a call is about within the caller's reach, as of
// the directory's day: a who outside it is refused naming what the caller
// may ask for, never what they sent.

// MineTeam is the who.team value that names the caller's own team.
const MineTeam = "mine"

// mine is the team {"team": "mine"} names: the one team the reach covers,
// else the team the caller's own agent is on today when the reach covers it.
func (d *Directory) mine(r ask.Reach, person string) (ask.Team, bool) {
	if !r.Floor && len(r.Teams) == 1 {
		return d.Team(r.Teams[0])
	}
	if a, ok := d.Agent(person); ok && a.Team != "" && r.SeesTeam(a.Team) {
		return d.Team(a.Team)
	}
	return ask.Team{}, false
}

// totalsWords says how to ask for the floor's totals.
const totalsWords = `{"floor": true} in hours, sales or quality, not grouped by team or agent`

// TotalsOnly is the refusal, given in argument to person calling within
// reach r, of the floor's totals where a tool would show each team or agent
// on it: league, team_day, team_weeks and the roster of the floor, or a
// report grouped by team or agent.
func TotalsOnly(r ask.Reach, argument, person string) *ask.Refusal {
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Choices: ReachChoices(r, person),
		Rule: "is outside what you may see: of the floor you may see its totals and not each team's or agent's figures; ask for the totals (" + totalsWords + "), or about one of your own (choices)."}
}

// ReachChoices names what person, calling within reach r, may ask for, for
// a refusal: "floor" when the whole floor or its totals, the team keys, and
// the caller's own agent key.
func ReachChoices(r ask.Reach, person string) []string {
	if r.Floor {
		return []string{"floor", "team", "agent"}
	}
	var out []string
	if r.Totals {
		out = append(out, "floor")
	}
	out = append(out, r.Teams...)
	if r.Own {
		out = append(out, person)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// outsideReach is the refusal of a who the caller's reach does not cover. It
// names what the caller may ask for, never what they sent.
func outsideReach(r ask.Reach, argument, person string) *ask.Refusal {
	rule := "is outside what you may see; ask about "
	switch {
	case r.None():
		return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Choices: []string{},
			Rule: "is outside what you may see: your reach covers no team or agent; ask whoever runs plumbline to grant you one (plumbline access grant)."}
	case len(r.Teams) > 0 && r.Own:
		rule += `one of your teams (choices, in who.team, or {"team": "mine"} when you have one) or your own figures (your agent_key, in who.agent)`
	case len(r.Teams) > 0:
		rule += `one of your teams (choices, in who.team; {"team": "mine"} when you have one) or an agent on one of them`
	case r.Own && r.Totals:
		rule += "your own figures (your agent_key, in choices, in who.agent)"
	case r.Own:
		rule += "your own figures only (your agent_key, in choices, in who.agent)"
	default:
		return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Choices: ReachChoices(r, person),
			Rule: "is outside what you may see; ask about the floor's totals only: " + totalsWords + "."}
	}
	if r.Totals {
		rule += ", or the floor's totals: " + totalsWords
	}
	rule += "."
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Rule: rule, Choices: ReachChoices(r, person)}
}

// DefaultScope is whom a call that leaves who out is about: the floor for
// a caller who sees it, else their one team, their own agent, or the
// floor's totals for a caller who sees only those; a caller who sees
// several of these is asked to name one.
func (d *Directory) DefaultScope(r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	switch {
	case r.Floor:
		return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor"}, nil, nil
	case r.None():
		return ask.Scope{}, nil, outsideReach(r, grammar.ArgWho, person)
	case len(r.Teams) == 1 && !r.Own:
		if t, ok := d.Team(r.Teams[0]); ok {
			return ask.Scope{Kind: ask.ScopeTeam, Key: t.Key, Name: t.Name}, nil, nil
		}
	case len(r.Teams) == 0 && r.Own:
		if a, ok := d.Agent(person); ok && !r.Totals {
			return ask.Scope{Kind: ask.ScopeAgent, Key: a.Key, Name: a.Name, Team: a.Team}, nil, nil
		}
	case len(r.Teams) == 0:
		return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor", Totals: true}, nil, nil
	}
	return ask.Scope{}, nil, &ask.Refusal{Code: ask.CodeInvalidArgument, Argument: grammar.ArgWho, Choices: ReachChoices(r, person),
		Rule: "must be given when you may see more than one team or agent; name one of yours (choices)."}
}
