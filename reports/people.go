package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"plumbline/reports/answer"
	"plumbline/reports/ask"
	"plumbline/reports/calendar"
	"plumbline/reports/directory"
	"plumbline/reports/grammar"
)

// This file answers the roster questions: who is on which team on a day,
// which teams count as the floor, and who a name might mean.

// maxPeople caps find_people's list.
const maxPeople = 20

func (e *Engine) roster(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only(grammar.ArgWho, "day")
	}
	var who grammar.WhoArg
	if r == nil {
		who, r = a.Who()
	}
	var dayText string
	if r == nil {
		dayText, r = a.Date("day")
	}
	if r != nil {
		return c.refuse(r)
	}
	t := calendar.Today(c.now, e.cat.Zone())
	day := t
	if dayText != "" {
		d, ok := calendar.ParseDate(dayText)
		switch {
		case !ok:
			return c.refuse(ask.Invalid("day", "is not a calendar date; write a date that exists, as YYYY-MM-DD."))
		case d.After(t):
			return c.refuse(ask.Invalid("day", "is after today ("+t.Format(time.DateOnly)+"); the roster is known only up to today."))
		}
		day = d
	}
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return e.fault(c, err)
	}
	scope, cands, r := resolveWithin(dir, who, c.reach, c.caller.Person)
	switch {
	case r != nil:
		return c.refuse(r)
	case cands != nil:
		return e.candidates(c, who, cands)
	case scope.Totals:
		return c.refuse(directory.TotalsOnly(c.reach, whoArgument(who), c.caller.Person))
	}
	ans := &answer.Roster{RequestID: c.id, Day: day.Format(time.DateOnly), TimeZone: e.cat.Zone().String(),
		Teams: []answer.RosterTeam{}, Rows: [][]any{}, CatalogVersion: e.cat.Version()}
	ans.Request = answer.Echo{Tool: c.tool, Who: whoEcho(scope, dir), Day: ans.Day}
	if scope.Kind == ask.ScopeAgent {
		e.agentHistory(ans, dir, scope.Key, day, c.reach.Floor || scope.Key == c.caller.Person, c.reach)
	} else {
		e.teamsOn(ans, dir, scope, day)
	}
	return &Answer{Body: ans, Rows: len(ans.Rows)}
}

// teamsOn lists the floor's teams (or one team) on a day, and their agents.
func (e *Engine) teamsOn(ans *answer.Roster, dir *directory.Directory, scope ask.Scope, day time.Time) {
	ans.Columns = []string{"agent", "agent_name", "team", "team_name", "on_team_since", "hired_on"}
	for _, t := range dir.Teams {
		if scope.Kind == ask.ScopeTeam && t.Key != scope.Key {
			continue
		}
		rt := answer.RosterTeam{Team: t.Key, Name: t.Name}
		if f, ok := dir.FloorDecision(t.Key, day); ok {
			on := f.CountsAsSales
			rt.OnFloor, rt.Since, rt.DecidedBy, rt.Reason = &on, f.From.Format(time.DateOnly), f.DecidedBy, f.Reason
		}
		if scope.Kind == ask.ScopeFloor && (rt.OnFloor == nil || !*rt.OnFloor) {
			continue
		}
		// The team's agents that day, in directory order, from those ever
		// on it: a floor of thousands is never copied to list them.
		for a := range dir.InScope(ask.Scope{Kind: ask.ScopeTeam, Key: t.Key}) {
			m, ok := dir.Membership(a.Key, day)
			if !ok || m.Team != t.Key || a.Hired.After(day) || a.Left != nil && a.Left.Before(day) {
				continue
			}
			rt.Agents++
			if len(ans.Rows) == e.cat.Limits().MaxRows {
				ans.Truncated = true
				continue
			}
			ans.Rows = append(ans.Rows, []any{a.Key, a.Name, t.Key, t.Name, m.From.Format(time.DateOnly), a.Hired.Format(time.DateOnly)})
		}
		ans.Teams = append(ans.Teams, rt)
	}
	ans.Notes = []string{"The floor on a day is the teams whose latest decision on or before that day counts them as sales teams; each team shows that decision, who made it and why."}
	if scope.Kind == ask.ScopeTeam {
		ans.Notes = []string{"on_floor says whether the team counted as a sales team on this day, by the decision shown."}
	}
	if ans.Truncated {
		ans.Notes = append(ans.Notes, fmt.Sprintf("Only the first %d agents are listed; ask about one team to see all of its agents. Each team's agents count is complete.", e.cat.Limits().MaxRows))
	}
}

// agentHistory lists an agent's teams over time, marking the one on day.
// Unless every team may be named (the caller sees the floor, or the agent
// is the caller), a team outside the reach is shown without its key or
// name.
func (e *Engine) agentHistory(ans *answer.Roster, dir *directory.Directory, agent string, day time.Time, every bool, r ask.Reach) {
	ans.Columns = []string{"team", "team_name", "from", "until", "current_on_day"}
	moves := dir.Moves(agent)
	on, _ := dir.Membership(agent, day)
	for i, m := range moves {
		t, _ := dir.Team(m.Team)
		var until any
		if i+1 < len(moves) {
			until = moves[i+1].From.AddDate(0, 0, -1).Format(time.DateOnly)
		}
		if !every && !r.SeesTeam(m.Team) {
			ans.Rows = append(ans.Rows, []any{nil, nil, m.From.Format(time.DateOnly), until, m == on})
			continue
		}
		ans.Rows = append(ans.Rows, []any{m.Team, answer.Nullable(t.Name), m.From.Format(time.DateOnly), until, m == on})
	}
	a, _ := dir.Agent(agent)
	ans.Notes = []string{"An agent's figures count for the team they were on each day."}
	if a.Left != nil {
		ans.Notes = append(ans.Notes, "This agent left on "+a.Left.Format(time.DateOnly)+".")
	}
}

func (e *Engine) findPeople(ctx context.Context, c *call, raw json.RawMessage) *Answer {
	a, r := c.arguments(raw)
	if r == nil {
		r = a.Only("query")
	}
	var q string
	var present bool
	if r == nil {
		q, present, r = a.Text("query", grammar.MaxNameLength)
	}
	if r == nil && !present {
		r = ask.Invalid("query", "is required: a name or part of one, an email or an agent_key.")
	}
	if r != nil {
		return c.refuse(r)
	}
	dir, err := e.directory(ctx, c.now)
	if err != nil {
		return e.fault(c, err)
	}
	ans := &answer.People{RequestID: c.id, People: []answer.Person{}, CatalogVersion: e.cat.Version()}
	found, near := dir.FindAgents(q, c.reach, c.caller.Person)
	for _, m := range found {
		if len(ans.People) == maxPeople {
			ans.Truncated = true
			break
		}
		p := answer.Person{AgentKey: m.Key, Name: m.Name, Email: m.Email, Team: m.Team, Hired: m.Hired.Format(time.DateOnly)}
		if t, ok := dir.Team(m.Team); ok {
			p.TeamName = t.Name
		}
		if m.Left != nil {
			p.Left = m.Left.Format(time.DateOnly)
		}
		ans.People = append(ans.People, p)
	}
	switch {
	case near:
		ans.Notes = []string{"No one has that name or email, but these people have names close to it, the closest first; ask whether one of them is meant, then use their agent_key in who.agent."}
	case len(ans.People) == 0:
		ans.Notes = []string{"No one matches. Try part of the name, a different spelling, or an email."}
	case len(ans.People) > 1:
		ans.Notes = []string{"Several people match; ask which one is meant, then use their agent_key in who.agent."}
	default:
		ans.Notes = []string{"Use this agent_key in who.agent to ask about this person."}
	}
	if ans.Truncated {
		ans.Notes = append(ans.Notes, fmt.Sprintf("Only the first %d matches are listed; give more of the name.", maxPeople))
	}
	return &Answer{Body: ans, Rows: len(ans.People)}
}
