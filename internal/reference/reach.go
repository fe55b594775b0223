package reference

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Reach, as the product states it: each person may see what the rows of
// plumbline.reach in force on the day give them and the groups they are
// in, all of them together (the floor, some teams, their own agent's
// figures, the floor's totals, or nothing); a person with no row in force
// sees the configured default. The floor covers every team and agent. A
// team covers itself and the agents on it today; "own" covers the agent
// whose agent_key is the person's id; "totals" covers the floor in hours,
// sales and quality not grouped by team or agent (group_by team or agent
// is forbidden, and so are compare_to target, whose notes name each team,
// and the floor in team_day, team_weeks and roster).
//
// A who is resolved within the reach: names are matched only against the
// teams and agents it covers. A who that names only what lies outside it,
// or the floor for someone who does not see it, is refused as forbidden,
// and so is any who for someone who sees nothing; a name that matches no
// one anywhere gets the close names within the reach, or, for someone who
// does not see the floor, the forbidden refusal. {"team": "mine"} is the
// one team the reach covers, else the team the caller's own agent is on
// today when the reach covers it. A call without who is about the floor
// for someone who sees it, else their one team, else their own agent (for
// one who does not see the totals too), else the floor's totals for one
// who sees only those; one who sees several is asked to name one
// (invalid_argument on who). league
// ranks the whole floor, and is forbidden to anyone who does not see it;
// team_day is about a team or the floor, and refuses an agent.

// Reach is what a caller may see.
type Reach struct {
	Floor  bool
	Teams  []string // keys, sorted; none when Floor
	Own    bool
	Totals bool // the floor's totals; false when Floor
}

// FloorReach sees everything.
var FloorReach = Reach{Floor: true}

// None says the reach covers nothing.
func (r Reach) None() bool { return !r.Floor && len(r.Teams) == 0 && !r.Own && !r.Totals }

// String writes the reach for a test's log.
func (r Reach) String() string {
	switch {
	case r.Floor:
		return "floor"
	case r.None():
		return "none"
	}
	parts := slices.Clone(r.Teams)
	if r.Own {
		parts = append(parts, "own")
	}
	if r.Totals {
		parts = append(parts, "totals")
	}
	return strings.Join(parts, "+")
}

// ReadReach reads what person may see on day, from plain SELECT * of
// plumbline.reach and plumbline.group_members: the rows in force that day
// for the person or a group they are in, or def when none is.
func ReadReach(ctx context.Context, conn *pgx.Conn, person string, day time.Time, def Reach) (Reach, error) {
	groups := map[string]bool{}
	err := readMaps(ctx, conn, "plumbline.group_members", func(row map[string]any) {
		if row["person_id"] == person {
			groups[fmt.Sprint(row["group_id"])] = true
		}
	})
	if err != nil {
		return Reach{}, err
	}
	var r Reach
	inForce := false
	teams := map[string]bool{}
	err = readMaps(ctx, conn, "plumbline.reach", func(row map[string]any) {
		mine := row["person_id"] == person || row["group_id"] != nil && groups[fmt.Sprint(row["group_id"])]
		from, _ := row["from_day"].(time.Time)
		to, ended := row["to_day"].(time.Time)
		if !mine || from.After(day) || ended && to.Before(day) {
			return
		}
		inForce = true
		switch row["sees"] {
		case "floor":
			r.Floor = true
		case "team":
			teams[fmt.Sprint(row["team_key"])] = true
		case "own":
			r.Own = true
		case "totals":
			r.Totals = true
		}
	})
	switch {
	case err != nil:
		return Reach{}, err
	case !inForce:
		return def, nil
	case r.Floor:
		return FloorReach, nil
	}
	for t := range teams {
		r.Teams = append(r.Teams, t)
	}
	slices.Sort(r.Teams)
	return r, nil
}

// readMaps reads every row of a table as a map by column name.
func readMaps(ctx context.Context, conn *pgx.Conn, table string, row func(map[string]any)) error {
	rows, err := conn.Query(ctx, "SELECT * FROM "+table)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	maps, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	for _, m := range maps {
		if id, ok := m["group_id"].([16]byte); ok {
			m["group_id"] = fmt.Sprintf("%x", id)
		}
		row(m)
	}
	return nil
}

// Within says what a call with who (nil when left out) to tool is about
// for person, whose reach is r, as of now: a who an unrestricted caller may
// ask the same figures by (the floor, a team key or an agent key, or nil
// for league, which takes none), or else how the call must end: a refusal
// (its code and argument) or the candidates within the reach.
func (f *Floor) Within(req Request, r Reach, person string, now time.Time) (*Who, *Expected) {
	tool, q := req.Tool, req.Who
	if tool != "team_day" {
		return f.within(req, r, person, now)
	}
	// team_day is about a team or the floor: an agent named, or the agent
	// a call without who is about, is refused.
	if q != nil && q.Agent != "" {
		return nil, refuse("invalid_argument", "who")
	}
	whom, end := f.within(req, r, person, now)
	if whom != nil && whom.Agent != "" {
		return nil, refuse("invalid_argument", "who")
	}
	return whom, end
}

func (f *Floor) within(req Request, r Reach, person string, now time.Time) (*Who, *Expected) {
	tool, q := req.Tool, req.Who
	w := f.world(now)
	teamSeen := func(i int) bool { return r.Floor || slices.Contains(r.Teams, w.teams[i].key) }
	agentSeen := func(i int) bool {
		a := w.agents[i]
		t := a.team[w.today]
		return r.Floor || r.Own && a.Key == person || t >= 0 && slices.Contains(r.Teams, w.teams[t].key)
	}
	forbidden := func(argument string) (*Who, *Expected) { return nil, refuse("forbidden", argument) }
	totals := func(argument string) (*Who, *Expected) {
		switch {
		case slices.Contains([]string{"team_day", "team_weeks", "roster"}, tool):
			return forbidden(argument)
		case req.GroupBy == "team" || req.GroupBy == "agent":
			return forbidden("group_by")
		case req.CompareTo == "target":
			return forbidden("compare_to")
		}
		return &Who{Floor: true}, nil
	}
	if tool == "league" {
		if !r.Floor {
			return forbidden("tool")
		}
		return nil, nil
	}
	own, isAgent := w.agentNo[person]
	switch {
	case q == nil:
		switch {
		case r.Floor:
			return &Who{Floor: true}, nil
		case r.None():
			return forbidden("who")
		case len(r.Teams) == 1 && !r.Own:
			return &Who{Team: r.Teams[0]}, nil
		case len(r.Teams) == 0 && !r.Own:
			return totals("who")
		case len(r.Teams) == 0 && !r.Totals && isAgent:
			return &Who{Agent: person}, nil
		}
		return nil, refuse("invalid_argument", "who")
	case r.None():
		return forbidden("who")
	case q.Floor:
		switch {
		case r.Floor:
			return &Who{Floor: true}, nil
		case r.Totals:
			return totals("who.floor")
		}
		return forbidden("who.floor")
	case q.Team != "" && strings.EqualFold(q.Team, "mine"):
		if !r.Floor && len(r.Teams) == 1 {
			return &Who{Team: r.Teams[0]}, nil
		}
		if isAgent {
			if t := w.agents[own].team[w.today]; t >= 0 && teamSeen(t) {
				return &Who{Team: w.teams[t].key}, nil
			}
		}
		return nil, refuse("invalid_argument", "who.team")
	case q.Team != "":
		found := w.teamMatches(q.Team, teamSeen)
		if len(found) == 0 && len(w.teamMatches(q.Team, everyone)) > 0 {
			return forbidden("who.team")
		}
		if len(found) == 0 {
			if near := keep(w.closeOnes("team", q.Team), teamSeen); len(near) > 0 {
				return nil, suggest(near, func(i int) string { return w.teams[i].key })
			}
			if !r.Floor {
				return forbidden("who.team")
			}
		}
		wh, end := pickOne(found, "team", func(i int) (string, string) { return w.teams[i].key, w.teams[i].name })
		if end != nil {
			return nil, end
		}
		return &Who{Team: wh.key}, nil
	}
	found := w.agentMatches(q.Agent, agentSeen)
	if len(found) == 0 && !r.Floor && len(w.agentMatches(q.Agent, everyone)) > 0 {
		return forbidden("who.agent")
	}
	if len(found) == 0 {
		if near := keep(w.closeOnes("agent", q.Agent), agentSeen); len(near) > 0 {
			return nil, suggest(near, func(i int) string { return w.agents[i].Key })
		}
		if !r.Floor {
			return forbidden("who.agent")
		}
	}
	wh, end := pickOne(found, "agent", func(i int) (string, string) { return w.agents[i].Key, w.agents[i].Name })
	if end != nil {
		return nil, end
	}
	return &Who{Agent: wh.key}, nil
}

// keep is the numbers seen keeps, in their order.
func keep(nums []int, seen func(int) bool) []int {
	var out []int
	for _, n := range nums {
		if seen(n) {
			out = append(out, n)
		}
	}
	return out
}
