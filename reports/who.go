package reports

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
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

// Directory is the roster, indexed: every team and every agent, including
// those who left, with the dated history of who was on which team and
// which teams counted as the floor.
type Directory struct {
	ask.Roster

	day         time.Time // the day settle set each agent's team as of
	fingerprint string    // a hash of every row: equal for equal directories

	// Indexes, built once by settle: the directory is read for every call
	// and must stay cheap on a floor of thousands.
	teamAt, agentAt map[string]int
	moveRuns        []run                          // by agent index: where the agent's moves are in Memberships
	everOn          map[string][]int               // by team: its agents ever, by index, in directory order
	decisions       map[string][]ask.FloorDecision // by team, in date order
	names           [][]string                     // each agent's name as tokens
	teamNames       [][]string                     // each team's name as tokens

	// Who counts on which days, by scope and period, as worked out for
	// earlier calls: the directory never changes once settled, and calls
	// ask the same few periods again and again.
	stintsMu   sync.Mutex
	stintsMemo map[stintsKey]*scoped
	memoStints int // the stints stintsMemo holds, in all
}

// Candidate is one of several people or teams a name matched.
type Candidate struct {
	AgentKey string `json:"agent_key,omitempty"`
	TeamKey  string `json:"team_key,omitempty"`
	Name     string `json:"name"`
	Team     string `json:"team,omitempty"` // the agent's latest team
	Left     string `json:"left_on,omitempty"`

	// close marks a name that matched nothing but is close to this one
	// (close.go): a suggestion, not a match.
	close bool
}

// Suggestion says the candidate is a name close to one that matched
// nothing (close.go): a suggestion, not a match.
func (c Candidate) Suggestion() bool { return c.close }

// fingerprintOf hashes every row of a roster, in the order read: equal for
// equal rosters.
func fingerprintOf(r *ask.Roster) string {
	h := sha256.New()
	fmt.Fprintf(h, "%v\x00%v\x00%v\x00%v\x00", r.Teams, r.Memberships, r.Floor, r.Targets)
	for _, a := range r.Agents {
		left := ""
		if a.Left != nil {
			left = a.Left.Format(time.DateOnly)
		}
		fmt.Fprintf(h, "%s|%s|%s|%s|%s\x00", a.Key, a.Name, a.Email, a.Hired.Format(time.DateOnly), left)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// settle indexes the directory and sets each agent's team as of day. It
// sorts the roster's memberships and floor decisions by agent or team and
// date, and its targets by team, metric, target period and when set.
func (d *Directory) settle(day time.Time, fingerprint string) {
	d.day, d.fingerprint = day, fingerprint
	d.teamAt, d.agentAt = map[string]int{}, map[string]int{}
	d.teamNames = make([][]string, len(d.Teams))
	for i, t := range d.Teams {
		d.teamAt[t.Key] = i
		d.teamNames[i] = tokens(t.Name)
	}
	d.share()
	slices.SortStableFunc(d.Memberships, func(a, b ask.Membership) int {
		return cmp.Or(strings.Compare(a.Agent, b.Agent), a.From.Compare(b.From))
	})
	slices.SortStableFunc(d.Floor, func(a, b ask.FloorDecision) int {
		return cmp.Or(strings.Compare(a.Team, b.Team), a.From.Compare(b.From))
	})
	slices.SortStableFunc(d.Targets, compareTargets)
	d.decisions = map[string][]ask.FloorDecision{}
	for r := range runs(d.Floor, func(f ask.FloorDecision) string { return f.Team }) {
		d.decisions[d.Floor[r.lo].Team] = d.Floor[r.lo:r.hi:r.hi]
	}
	for i, a := range d.Agents {
		d.agentAt[a.Key] = i
	}
	d.moveRuns = make([]run, len(d.Agents))
	for r := range runs(d.Memberships, func(m ask.Membership) string { return m.Agent }) {
		if i, ok := d.agentAt[d.Memberships[r.lo].Agent]; ok {
			d.moveRuns[i] = r
		}
	}
	d.names = make([][]string, len(d.Agents))
	d.everOn = map[string][]int{}
	for i := range d.Agents {
		a := &d.Agents[i]
		d.names[i] = tokens(a.Name)
		if m, ok := d.membership(a.Key, day); ok {
			a.Team = m.Team
		}
		moves := d.movesOf(a.Key)
		for j, m := range moves {
			if !slices.ContainsFunc(moves[:j], func(o ask.Membership) bool { return o.Team == m.Team }) {
				d.everOn[m.Team] = append(d.everOn[m.Team], i)
			}
		}
	}
}

// share makes the rows' repeated texts (team keys, metric ids, who decided
// and why) one string each: read row by row, each row holds a copy of its
// own, and on a floor of thousands the targets alone repeat them by the
// tens of thousands.
func (d *Directory) share() {
	texts := map[string]string{}
	one := func(s *string) {
		if t, ok := texts[*s]; ok {
			*s = t
		} else {
			texts[*s] = *s
		}
	}
	for i := range d.Teams {
		one(&d.Teams[i].Key)
	}
	for i := range d.Agents {
		one(&d.Agents[i].Key)
	}
	for i := range d.Memberships {
		m := &d.Memberships[i]
		one(&m.Agent)
		one(&m.Team)
	}
	for i := range d.Floor {
		f := &d.Floor[i]
		one(&f.Team)
		one(&f.DecidedBy)
		one(&f.Reason)
	}
	for i := range d.Targets {
		t := &d.Targets[i]
		one(&t.Team)
		one(&t.Metric)
		one(&t.Kind)
		one(&t.SetBy)
		one(&t.Reason)
	}
}

// run is where a key's rows are among rows sorted by key: from lo to hi,
// exclusive.
type run struct{ lo, hi int32 }

// runs yields the runs of rows sorted by key, one a key.
func runs[T any](rows []T, key func(T) string) iter.Seq[run] {
	return func(yield func(run) bool) {
		for lo := 0; lo < len(rows); {
			k, hi := key(rows[lo]), lo+1
			for hi < len(rows) && key(rows[hi]) == k {
				hi++
			}
			if !yield(run{int32(lo), int32(hi)}) {
				return
			}
			lo = hi
		}
	}
}

// movesOf returns an agent's moves to a team, in date order.
func (d *Directory) movesOf(agent string) []ask.Membership {
	i, ok := d.agentAt[agent]
	if !ok {
		return nil
	}
	r := d.moveRuns[i]
	return d.Memberships[r.lo:r.hi:r.hi]
}

// inScope returns, in directory order, the agents who may count for a
// scope: every agent for the floor, those ever on the team, or the agent.
// A team's roster and figures thus cost what its own agents do, however
// large the floor.
func (d *Directory) inScope(s ask.Scope) iter.Seq[ask.Agent] {
	return func(yield func(ask.Agent) bool) {
		switch s.Kind {
		case ask.ScopeTeam:
			for _, i := range d.everOn[s.Key] {
				if !yield(d.Agents[i]) {
					return
				}
			}
		case ask.ScopeAgent:
			if a, ok := d.agent(s.Key); ok {
				yield(a)
			}
		default:
			for _, a := range d.Agents {
				if !yield(a) {
					return
				}
			}
		}
	}
}

// membership returns the agent's team on day: the latest move on or before it.
func (d *Directory) membership(agent string, day time.Time) (ask.Membership, bool) {
	moves := d.movesOf(agent)
	for i := len(moves) - 1; i >= 0; i-- {
		if !moves[i].From.After(day) {
			return moves[i], true
		}
	}
	return ask.Membership{}, false
}

// floorDecision returns the decision in force for a team on day.
func (d *Directory) floorDecision(team string, day time.Time) (ask.FloorDecision, bool) {
	fs := d.decisions[team]
	for i := len(fs) - 1; i >= 0; i-- {
		if !fs[i].From.After(day) {
			return fs[i], true
		}
	}
	return ask.FloorDecision{}, false
}

// team returns the team with a key.
func (d *Directory) team(key string) (ask.Team, bool) {
	i, ok := d.teamAt[key]
	if !ok {
		return ask.Team{}, false
	}
	return d.Teams[i], true
}

// agent returns the agent with a key.
func (d *Directory) agent(key string) (ask.Agent, bool) {
	i, ok := d.agentAt[key]
	if !ok {
		return ask.Agent{}, false
	}
	return d.Agents[i], true
}

// resolveWho turns a who argument into a scope, or candidates when a name
// matches several or matches none but is close to some (close.go), or a
// refusal when it matches none and is close to none, over the whole floor.
func (d *Directory) resolveWho(w grammar.WhoArg) (ask.Scope, []Candidate, *ask.Refusal) {
	return d.resolveWithin(w, ask.FloorReach, "")
}

// resolveWithin resolves a who within a reach, for the person calling:
// names are matched only against the teams and agents the reach covers, so
// candidates and refusals never name anyone outside it, and a who outside
// it is refused naming what the caller may ask for. {"team": "mine"} is the
// caller's own team (Directory.mine).
func (d *Directory) resolveWithin(w grammar.WhoArg, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	switch {
	case w.Default:
		return d.defaultScope(r, person)
	case r.None():
		return ask.Scope{}, nil, outsideReach(r, grammar.ArgWho, person)
	case w.Floor:
		if !r.Floor && !r.Totals {
			return ask.Scope{}, nil, outsideReach(r, "who.floor", person)
		}
		return ask.Scope{Kind: ask.ScopeFloor, Name: "the floor", Totals: !r.Floor}, nil, nil
	case w.Team != "" && strings.EqualFold(w.Team, MineTeam):
		t, ok := d.mine(r, person)
		if !ok {
			return ask.Scope{}, nil, &ask.Refusal{Code: ask.CodeInvalidArgument, Argument: "who.team", Choices: reachChoices(r, person),
				Rule: `must name one team when it is "mine", your own team (the one team your reach covers, or the team you are on), and you have none or several; name one (choices).`}
		}
		return ask.Scope{Kind: ask.ScopeTeam, Key: t.Key, Name: t.Name}, nil, nil
	case w.Team != "":
		return d.resolveTeam(w.Team, r, person)
	default:
		return d.resolveAgent(w.Agent, r, person)
	}
}

func (d *Directory) resolveTeam(text string, r ask.Reach, person string) (ask.Scope, []Candidate, *ask.Refusal) {
	typed := tokens(text)
	var exact, loose []ask.Team
	outside := false // the text names a team outside the reach
	for i, t := range d.Teams {
		var in *[]ask.Team
		switch {
		case strings.EqualFold(t.Key, text) || slices.Equal(d.teamNames[i], typed):
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
	if a, ok := d.agent(text); ok {
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
	var exact, loose []ask.Agent
	for i, a := range d.Agents {
		if !keep(a) {
			continue
		}
		name := d.names[i]
		switch {
		case slices.Equal(name, typed):
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
		if t, ok := d.team(a.Team); ok {
			c.Team = t.Name
		}
		if a.Left != nil {
			c.Left = a.Left.Format(time.DateOnly)
		}
		out[i] = c
	}
	return out
}

// matchesTokens reports whether every typed word starts a distinct word of
// the name.
func matchesTokens(typed, name []string) bool {
	if len(typed) == 0 || len(typed) > len(name) {
		return false
	}
	used := make([]bool, len(name))
	for _, t := range typed {
		hit := false
		for i, n := range name {
			if !used[i] && strings.HasPrefix(n, t) {
				used[i], hit = true, true
				break
			}
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
