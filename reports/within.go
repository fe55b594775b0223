package reports

import (
	"context"
	"slices"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// This file answers within reach: the engine resolves a caller's reach once
// per call, as of the call's day on the floor, and every tool answers within
// it: a who outside it is refused naming what the caller may ask for, and
// names of people and teams outside it never appear in candidates or
// find_people.

// reachOf resolves the call's reach once: the whole floor when the engine
// has no source of reach.
func (e *Engine) reachOf(ctx context.Context, c *call) error {
	if e.opts.Reach == nil {
		c.reach, c.reached = ask.FloorReach, true
		return nil
	}
	r, err := e.opts.Reach.Reach(ctx, c.caller.Person, c.caller.Day)
	if err != nil {
		return err
	}
	c.reach, c.reached = r, true
	return nil
}

// namer says which teams an answer about scope may name in its notes: those
// the reach covers, or every team when the scope is the caller's own agent
// (as their own roster names every team they were on). Any other team
// reads as "another team".
func (c *call) namer(s ask.Scope) func(team string) bool {
	return func(team string) bool {
		return c.reach.SeesTeam(team) || s.Kind == ask.ScopeAgent && s.Key == c.caller.Person
	}
}

// mine is the team {"team": "mine"} names: the one team the reach covers,
// else the team the caller's own agent is on today when the reach covers it.
func (d *Directory) mine(r ask.Reach, person string) (ask.Team, bool) {
	if !r.Floor && len(r.Teams) == 1 {
		return d.team(r.Teams[0])
	}
	if a, ok := d.agent(person); ok && a.Team != "" && r.SeesTeam(a.Team) {
		return d.team(a.Team)
	}
	return ask.Team{}, false
}

// totalsWords says how to ask for the floor's totals.
const totalsWords = `{"floor": true} in hours, sales or quality, not grouped by team or agent`

// totalsOnly is the refusal of the floor's totals where a tool would show
// each team or agent on it: league, team_day, team_weeks and the roster
// of the floor, or a report grouped by team or agent.
func totalsOnly(r ask.Reach, argument, person string) *ask.Refusal {
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Choices: reachChoices(r, person),
		Rule: "is outside what you may see: of the floor you may see its totals and not each team's or agent's figures; ask for the totals (" + totalsWords + "), or about one of your own (choices)."}
}

// totalsGrouped refuses the floor's totals grouped by team or agent, which
// a caller who sees only the totals may not see; offered are the report's
// groupings, of which the others are the choices.
func totalsGrouped(s ask.Scope, groupBy string, offered []string) *ask.Refusal {
	byWhom := func(g string) bool { return g == catalog.GroupTeam || g == catalog.GroupAgent }
	if !s.Totals || !byWhom(groupBy) {
		return nil
	}
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: grammar.ArgGroupBy, Choices: slices.DeleteFunc(slices.Clone(offered), byWhom),
		Rule: "is outside what you may see: of the floor you may see its totals, not each team's or agent's figures; group them by one of the choices, or leave group_by out."}
}

// totalsTargeted refuses the floor's totals beside its target: the floor's
// target is its teams', and its notes name each team.
func totalsTargeted(s ask.Scope) *ask.Refusal {
	if !s.Totals {
		return nil
	}
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: grammar.ArgCompareTo, Choices: []string{grammar.ComparePreviousPeriod, grammar.ComparePreviousYear},
		Rule: "is outside what you may see with target: the floor's target is set team by team, and you may see the floor's totals, not each team's; compare with one of the choices, or ask about one of your teams beside its target."}
}

// whoArgument names the argument a who was given in: who.floor, or who
// when it was left out.
func whoArgument(w grammar.WhoArg) string {
	if w.Floor {
		return "who.floor"
	}
	return grammar.ArgWho
}

// MineTeam is the who.team value that names the caller's own team.
const MineTeam = "mine"

// reachChoices names what a caller may ask for, for a refusal: "floor"
// when the whole floor or its totals, the team keys, and the caller's own
// agent key.
func reachChoices(r ask.Reach, person string) []string {
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
		return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Choices: reachChoices(r, person),
			Rule: "is outside what you may see; ask about the floor's totals only: " + totalsWords + "."}
	}
	if r.Totals {
		rule += ", or the floor's totals: " + totalsWords
	}
	rule += "."
	return &ask.Refusal{Code: ask.CodeForbidden, Argument: argument, Rule: rule, Choices: reachChoices(r, person)}
}

// defaultScope is whom a call that leaves who out is about: the floor for
// a caller who sees it, else their one team, their own agent, or the
// floor's totals for a caller who sees only those; a caller who sees
// several of these is asked to name one.
func (d *Directory) defaultScope(r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	switch {
	case r.Floor:
		return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor"}, nil, nil
	case r.None():
		return ask.Scope{}, nil, outsideReach(r, grammar.ArgWho, person)
	case len(r.Teams) == 1 && !r.Own:
		if t, ok := d.team(r.Teams[0]); ok {
			return ask.Scope{Kind: ask.ScopeTeam, Key: t.Key, Name: t.Name}, nil, nil
		}
	case len(r.Teams) == 0 && r.Own:
		if a, ok := d.agent(person); ok && !r.Totals {
			return ask.Scope{Kind: ask.ScopeAgent, Key: a.Key, Name: a.Name, Team: a.Team}, nil, nil
		}
	case len(r.Teams) == 0:
		return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor", Totals: true}, nil, nil
	}
	return ask.Scope{}, nil, &ask.Refusal{Code: ask.CodeInvalidArgument, Argument: grammar.ArgWho, Choices: reachChoices(r, person),
		Rule: "must be given when you may see more than one team or agent; name one of yours (choices)."}
}
