package reports

import (
	"context"
	"slices"

	"plumbline/catalog"
	"plumbline/reports/ask"
	"plumbline/reports/directory"
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

// resolveWithin resolves a who within a reach, for person calling: the
// scope it names, or candidates when a name matches several or matches
// none but is close to some, or a refusal (directory.Directory.Resolve). A
// who left out is whom the reach decides.
func resolveWithin(dir *directory.Directory, w grammar.WhoArg, r ask.Reach, person string) (ask.Scope, []directory.Candidate, *ask.Refusal) {
	switch {
	case w.Default:
		return dir.DefaultScope(r, person)
	case w.Floor:
		s, refusal := directory.FloorScope(r, person)
		return s, nil, refusal
	}
	return dir.Resolve(w.Team, w.Agent, r, person)
}

// whoArgument names the argument a who was given in: who.floor, or who
// when it was left out.
func whoArgument(w grammar.WhoArg) string {
	if w.Floor {
		return "who.floor"
	}
	return grammar.ArgWho
}
