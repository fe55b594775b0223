package directory

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

	"plumbline/reports/ask"
)

// Directory is the roster, indexed: every team and every agent, including
// those who left, with the dated history of who was on which team and
// which teams counted as the floor. Its Roster is the roster it was built
// from, sorted, but for the targets, which it keeps in a compact form of
// its own ([Directory.Target]); callers must not change it.
type Directory struct {
	ask.Roster

	day         time.Time // the day settle set each agent's team as of
	fingerprint string    // a hash of every row: equal for equal directories

	// Indexes, built once by settle: the directory is read for every call
	// and must stay cheap on a floor of thousands.
	teamAt    map[string]int32               // by key: its index in teamKeys
	teamKeys  []string                       // the teams' keys, then those only memberships name
	moves     []move                         // the memberships, by agent and date; the rows as read are let go
	byKey     []int32                        // the agents' indexes, by key: smaller than a map on a floor of thousands
	moveRuns  []run                          // by agent index: where the agent's moves are in moves
	everOn    map[string][]int               // by team: its agents ever, by index, in directory order
	decisions map[string][]ask.FloorDecision // by team, in date order
	names     []string                       // each agent's name as folded writes it: one string, not a slice of words
	teamNames []string                       // each team's name folded
	targets   []target                       // every target version, by team, metric, period and when set
	texts     []string                       // the targets' texts, by index

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

// New indexes roster as of day, setting each agent's team as of that day.
// When last, which may be nil, was indexed on the same day from a roster
// with the same rows, New returns last instead, with what it has worked
// out for calls since. It sorts the roster's memberships and floor
// decisions by agent or team and date, and its targets by team, metric,
// target period and when set; the directory owns the roster after.
func New(roster *ask.Roster, day time.Time, last *Directory) *Directory {
	fingerprint := roster.Stamp
	if fingerprint == "" {
		fingerprint = fingerprintOf(roster)
	}
	if last != nil && last.day.Equal(day) && last.fingerprint == fingerprint {
		return last
	}
	d := &Directory{Roster: *roster}
	d.settle(day, fingerprint)
	return d
}

// Day is the day the directory was indexed as of.
func (d *Directory) Day() time.Time { return d.day }

// Fingerprint is the roster's stamp, or when the store keeps none a hash
// of every row: equal for directories read from equal rosters.
func (d *Directory) Fingerprint() string { return d.fingerprint }

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
	d.teamAt = make(map[string]int32, len(d.Teams))
	d.teamKeys = make([]string, len(d.Teams))
	d.teamNames = make([]string, len(d.Teams))
	for i, t := range d.Teams {
		d.teamAt[t.Key] = int32(i)
		d.teamKeys[i] = t.Key
		d.teamNames[i] = folded(t.Name)
	}
	d.share()
	slices.SortStableFunc(d.Memberships, func(a, b ask.Membership) int {
		return cmp.Or(strings.Compare(a.Agent, b.Agent), a.From.Compare(b.From))
	})
	d.moves = make([]move, len(d.Memberships))
	for i, m := range d.Memberships {
		// An empty team key is no team, as before an agent's first.
		d.moves[i] = move{from: m.From, team: noTeam}
		if m.Team != "" {
			d.moves[i].team = d.teamIndex(m.Team)
		}
	}
	slices.SortStableFunc(d.Floor, func(a, b ask.FloorDecision) int {
		return cmp.Or(strings.Compare(a.Team, b.Team), a.From.Compare(b.From))
	})
	d.keepTargets()
	d.decisions = map[string][]ask.FloorDecision{}
	for r := range runs(d.Floor, func(f ask.FloorDecision) string { return f.Team }) {
		d.decisions[d.Floor[r.lo].Team] = d.Floor[r.lo:r.hi:r.hi]
	}
	d.byKey = make([]int32, len(d.Agents))
	for i := range d.byKey {
		d.byKey[i] = int32(i)
	}
	slices.SortStableFunc(d.byKey, func(a, b int32) int { return strings.Compare(d.Agents[a].Key, d.Agents[b].Key) })
	d.moveRuns = make([]run, len(d.Agents))
	for r := range runs(d.Memberships, func(m ask.Membership) string { return m.Agent }) {
		if i, ok := d.agentIndex(d.Memberships[r.lo].Agent); ok {
			d.moveRuns[i] = r
		}
	}
	d.Memberships = nil
	d.names = make([]string, len(d.Agents))
	d.everOn = map[string][]int{}
	for i := range d.Agents {
		a := &d.Agents[i]
		// An agent the roster lists twice has the moves of its key.
		if j, _ := d.agentIndex(a.Key); j != i {
			d.moveRuns[i] = d.moveRuns[j]
		}
		d.names[i] = folded(a.Name)
		if m, ok := d.Membership(a.Key, day); ok {
			a.Team = m.Team
		}
		moves := d.movesOf(i)
		for j, m := range moves {
			if !slices.ContainsFunc(moves[:j], func(o move) bool { return o.team == m.team }) {
				team := d.teamKey(m.team)
				d.everOn[team] = append(d.everOn[team], i)
			}
		}
	}
}

// share makes the rows' repeated texts (keys, who decided and why) one
// string each: read row by row, each row holds a copy of its own.
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
	for i := range d.Floor {
		f := &d.Floor[i]
		one(&f.Team)
		one(&f.DecidedBy)
		one(&f.Reason)
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

// move is a membership as the directory keeps it: from a day, on the team
// with an index in teamKeys (noTeam for none). Its agent is where it is
// kept (moveRuns).
type move struct {
	from time.Time
	team int32
}

// movesOf returns the moves of the agent with index i, in date order.
func (d *Directory) movesOf(i int) []move {
	r := d.moveRuns[i]
	return d.moves[r.lo:r.hi:r.hi]
}

// teamKey is the key of the team with index i in teamKeys, empty for none.
func (d *Directory) teamKey(i int32) string {
	if i == noTeam {
		return ""
	}
	return d.teamKeys[i]
}

// Moves returns an agent's moves to a team, in date order.
func (d *Directory) Moves(agent string) []ask.Membership {
	i, ok := d.agentIndex(agent)
	if !ok {
		return nil
	}
	moves := d.movesOf(i)
	out := make([]ask.Membership, len(moves))
	for j, m := range moves {
		out[j] = ask.Membership{Agent: agent, Team: d.teamKey(m.team), From: m.from}
	}
	return out
}

// InScope returns, in directory order, the agents who may count for a
// scope: every agent for the floor, those ever on the team, or the agent.
// A team's roster and figures thus cost what its own agents do, however
// large the floor.
func (d *Directory) InScope(s ask.Scope) iter.Seq[ask.Agent] {
	return func(yield func(ask.Agent) bool) {
		for i := range d.inScope(s) {
			if !yield(d.Agents[i]) {
				return
			}
		}
	}
}

// inScope is InScope by the agents' indexes.
func (d *Directory) inScope(s ask.Scope) iter.Seq[int] {
	return func(yield func(int) bool) {
		switch s.Kind {
		case ask.ScopeTeam:
			for _, i := range d.everOn[s.Key] {
				if !yield(i) {
					return
				}
			}
		case ask.ScopeAgent:
			if i, ok := d.agentIndex(s.Key); ok {
				yield(i)
			}
		default:
			for i := range d.Agents {
				if !yield(i) {
					return
				}
			}
		}
	}
}

// Membership returns the agent's team on day: the latest move on or before it.
func (d *Directory) Membership(agent string, day time.Time) (ask.Membership, bool) {
	i, ok := d.agentIndex(agent)
	if !ok {
		return ask.Membership{}, false
	}
	moves := d.movesOf(i)
	for j := len(moves) - 1; j >= 0; j-- {
		if m := moves[j]; !m.from.After(day) {
			return ask.Membership{Agent: agent, Team: d.teamKey(m.team), From: m.from}, true
		}
	}
	return ask.Membership{}, false
}

// FloorDecision returns the decision in force for a team on day.
func (d *Directory) FloorDecision(team string, day time.Time) (ask.FloorDecision, bool) {
	fs := d.decisions[team]
	for i := len(fs) - 1; i >= 0; i-- {
		if !fs[i].From.After(day) {
			return fs[i], true
		}
	}
	return ask.FloorDecision{}, false
}

// Team returns the team with a key.
func (d *Directory) Team(key string) (ask.Team, bool) {
	i, ok := d.teamAt[key]
	if !ok || int(i) >= len(d.Teams) {
		return ask.Team{}, false
	}
	return d.Teams[i], true
}

// teamIndex is a team key's index in teamKeys, which it joins when only a
// membership names it (the roster does not require a membership's team to
// be listed).
func (d *Directory) teamIndex(key string) int32 {
	i, ok := d.teamAt[key]
	if !ok {
		i = int32(len(d.teamKeys))
		d.teamAt[key] = i
		d.teamKeys = append(d.teamKeys, key)
	}
	return i
}

// Agent returns the agent with a key.
func (d *Directory) Agent(key string) (ask.Agent, bool) {
	i, ok := d.agentIndex(key)
	if !ok {
		return ask.Agent{}, false
	}
	return d.Agents[i], true
}

// agentIndex is the index of the agent with a key: of the last one, should
// the roster hold the key twice.
func (d *Directory) agentIndex(key string) (int, bool) {
	of := func(i int32, key string) int { return strings.Compare(d.Agents[i].Key, key) }
	lo, ok := slices.BinarySearchFunc(d.byKey, key, of)
	if !ok {
		return 0, false
	}
	for lo+1 < len(d.byKey) && of(d.byKey[lo+1], key) == 0 {
		lo++
	}
	return int(d.byKey[lo]), true
}
