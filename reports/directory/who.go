package directory

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"plumbline/reports/ask"
	"plumbline/reports/grammar"
)

// This file resolves who a call is about. Names, emails and keys are matched
// here, in Go, against a directory read with no caller input: typed text
// never reaches SQL.

// Resolve turns the text of a call's who into a scope within reach r, for
// person calling: the team team names when it is given, else the agent
// agent names. A name matching several is answered with candidates, as is
// one matching none but close to some (close.go); one matching none and
// close to none is refused. Names are matched only against the teams and
// agents the reach covers, so candidates and refusals never name anyone
// outside it, and a who outside it is refused naming what the caller may
// ask for. The team [MineTeam] is the caller's own team.
func (d *Directory) Resolve(team, agent string, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	switch {
	case r.None():
		return ask.Scope{}, nil, outsideReach(r, grammar.ArgWho, person)
	case team != "" && strings.EqualFold(team, MineTeam):
		t, ok := d.mine(r, person)
		if !ok {
			return ask.Scope{}, nil, &ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "who.team", Choices: ReachChoices(r, person),
				Rule: `must name one team when it is "mine", your own team (the one team your reach covers, or the team you are on), and you have none or several; name one (choices).`}
		}
		return ask.Scope{Kind: ask.ScopeTeam, Key: t.Key, Name: t.Name}, nil, nil
	case team != "":
		return d.resolveTeam(team, r, person)
	default:
		return d.resolveAgent(agent, r, person)
	}
}

// FloorScope is the floor as a scope within reach r, for person calling:
// its totals alone for a caller who sees only those, and refused for one
// who sees neither.
func FloorScope(r ask.Reach, person string) (ask.Scope, *ask.Refusal) {
	switch {
	case r.None():
		return ask.Scope{}, outsideReach(r, grammar.ArgWho, person)
	case !r.Floor && !r.Totals:
		return ask.Scope{}, outsideReach(r, "who.floor", person)
	}
	return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor", Totals: !r.Floor}, nil
}

func (d *Directory) resolveTeam(text string, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	typed := tokens(text)
	whole := strings.Join(typed, " ")
	var exact, loose []ask.Team
	outside := false // the text names a team outside the reach
	for i, t := range d.Teams {
		var in *[]ask.Team
		switch {
		case strings.EqualFold(t.Key, text) || d.teamNames[i] == whole:
			in = &exact
		case matchesTokens(typed, d.teamNames[i]):
			in = &loose
		default:
			continue
		}
		if r.SeesTeam(t.Key) {
			*in = append(*in, t)
		} else {
			outside = true
		}
	}
	found := exact
	if len(found) == 0 {
		found = loose
	}
	if len(found) == 0 && outside {
		// A team named outside the reach is refused as such, not answered
		// with teams within it whose names are close.
		return ask.Scope{}, nil, outsideReach(r, "who.team", person)
	}
	if len(found) == 0 {
		if near := d.closeTeams(text, r.SeesTeam); len(near) > 0 {
			cands := make([]Candidate, len(near))
			for i, t := range near {
				cands[i] = Candidate{TeamKey: t.Key, Name: t.Name, close: true}
			}
			return ask.Scope{}, cands, nil
		}
	}
	switch len(found) {
	case 0:
		if !r.Floor {
			return ask.Scope{}, nil, outsideReach(r, "who.team", person)
		}
		keys := make([]string, len(d.Teams))
		for i, t := range d.Teams {
			keys[i] = t.Key
		}
		return ask.Scope{}, nil, ask.Invalid("who.team", "matches no team; give a team key or name.", keys...)
	case 1:
		return ask.Scope{Kind: ask.ScopeTeam, Key: found[0].Key, Name: found[0].Name}, nil, nil
	}
	cands := make([]Candidate, len(found))
	for i, t := range found {
		cands[i] = Candidate{TeamKey: t.Key, Name: t.Name}
	}
	return ask.Scope{}, cands, nil
}

func (d *Directory) resolveAgent(text string, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	sees := func(a ask.Agent) bool { return r.SeesAgent(a, person) }
	found := d.matchAgents(text, sees)
	if len(found) == 0 && !r.Floor && len(d.matchAgents(text, nil)) > 0 {
		// Someone named exactly, outside the reach, is refused as such,
		// not answered with people within it whose names are close.
		return ask.Scope{}, nil, outsideReach(r, "who.agent", person)
	}
	if len(found) == 0 {
		if near := d.closeAgents(text, sees); len(near) > 0 {
			cands := d.candidates(near)
			for i := range cands {
				cands[i].close = true
			}
			return ask.Scope{}, cands, nil
		}
	}
	switch {
	case len(found) == 0 && !r.Floor:
		return ask.Scope{}, nil, outsideReach(r, "who.agent", person)
	case len(found) == 0:
		return ask.Scope{}, nil, ask.Invalid("who.agent", "matches no agent; give an agent_key, a name or an email (find_people lists matches).")
	case len(found) == 1:
		a := found[0]
		return ask.Scope{Kind: ask.ScopeAgent, Key: a.Key, Name: a.Name, Team: a.Team}, nil, nil
	}
	return ask.Scope{}, d.candidates(found), nil
}

// FindAgents returns the agents text names within reach r, for person
// calling, matched as a who's agent is (Resolve); or, when it names no
// one, not even outside the reach, those whose names (or, for an email,
// whose emails) are close to it, closest first, with near set.
func (d *Directory) FindAgents(text string, r ask.Reach, person string) (found []ask.Agent, near bool) {
	sees := func(a ask.Agent) bool { return r.SeesAgent(a, person) }
	found = d.matchAgents(text, sees)
	// Close names are offered only for a text that names no one: one that
	// names someone outside the reach finds no one, as a who does.
	if len(found) == 0 && (r.Floor || len(d.matchAgents(text, nil)) == 0) {
		found = d.closeAgents(text, sees)
		near = len(found) > 0
	}
	return found, near
}

// matchAgents finds the agents a key, an email or a name means, among
// those keep keeps (every agent when keep is nil). A key or an email
// matches exactly (ignoring case); a name matches when every word typed
// starts a different word of the agent's name, ignoring case and accents.
// An agent whose whole name is exactly what was typed wins over looser
// matches.
func (d *Directory) matchAgents(text string, keep func(ask.Agent) bool) []ask.Agent {
	if keep == nil {
		keep = func(ask.Agent) bool { return true }
	}
	if a, ok := d.Agent(text); ok {
		if keep(a) {
			return []ask.Agent{a}
		}
		return nil
	}
	for _, a := range d.Agents {
		if strings.EqualFold(a.Key, text) {
			if keep(a) {
				return []ask.Agent{a}
			}
			return nil
		}
	}
	if strings.Contains(text, "@") {
		var out []ask.Agent
		for _, a := range d.Agents {
			if strings.EqualFold(a.Email, text) && keep(a) {
				out = append(out, a)
			}
		}
		return out
	}
	typed := tokens(text)
	if len(typed) == 0 {
		return nil
	}
	whole := strings.Join(typed, " ")
	var exact, loose []ask.Agent
	for i, a := range d.Agents {
		if !keep(a) {
			continue
		}
		name := d.names[i]
		switch {
		case name == whole:
			exact = append(exact, a)
		case matchesTokens(typed, name):
			loose = append(loose, a)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return loose
}

func (d *Directory) candidates(agents []ask.Agent) []Candidate {
	out := make([]Candidate, len(agents))
	for i, a := range agents {
		c := Candidate{AgentKey: a.Key, Name: a.Name}
		if t, ok := d.Team(a.Team); ok {
			c.Team = t.Name
		}
		if a.Left != nil {
			c.Left = a.Left.Format(time.DateOnly)
		}
		out[i] = c
	}
	return out
}

// NameMatches reports whether every word typed starts a different word of
// name, ignoring case and accents, as a who's name matches loosely.
func NameMatches(typed, name string) bool {
	return matchesTokens(tokens(typed), folded(name))
}

// matchesTokens reports whether every typed word starts a distinct word of
// the name.
func matchesTokens(typed []string, name string) bool {
	words := 0
	if name != "" {
		words = strings.Count(name, " ") + 1
	}
	if len(typed) == 0 || len(typed) > words {
		return false
	}
	used := make([]bool, words)
	for _, t := range typed {
		hit := false
		i := 0
		for n := range strings.SplitSeq(name, " ") {
			if !used[i] && strings.HasPrefix(n, t) {
				used[i], hit = true, true
				break
			}
			i++
		}
		if !hit {
			return false
		}
	}
	return true
}

// unaccented is text without its accents: "José Peña" → "Jose Pena".
// ASCII text has none, and is returned as it is without the transformers,
// which allocate several kilobytes a call.
func unaccented(text string) string {
	ascii := true
	for i := 0; i < len(text) && ascii; i++ {
		ascii = text[i] < utf8.RuneSelf
	}
	if ascii {
		return text
	}
	// A chain of transformers holds state, so each call builds its own.
	fold := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	plain, _, err := transform.String(fold, text)
	if err != nil {
		return text
	}
	return plain
}

// tokens splits text into lower-case words without accents: "José Peña" →
// [jose pena].
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(unaccented(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
