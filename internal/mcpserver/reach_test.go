package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/members"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/reports"
	"plumbline/reports/ask"
)

// reachFloor is the demo floor with reach read from plumbline.reach, as
// serve reads it: through plumbline's login and the auth role, with
// nothing kept between calls, and the whole floor for a person with no
// row. dir writes the rows, as plumbline access does.
type reachFloor struct {
	*floor
	dir *members.Store
}

func newReachFloor(t *testing.T) *reachFloor {
	t.Helper()
	db := pgtest.NewDB(t)
	pool, err := pgxpool.New(context.Background(), db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	dir := members.NewStore(pool, pgtest.Roles.Auth)
	f := newFloorOf(t, db, func(o *reports.Options) {
		o.Reach = &members.ReachSource{Store: pgstore.ReachReader{Store: db.Store(t), Role: pgtest.Roles.Auth}, Default: ask.FloorReach, TTL: -1}
	})
	return &reachFloor{floor: f, dir: dir}
}

// grant gives a person a reach from long ago.
func (f *reachFloor) grant(t *testing.T, person, sees, team string) {
	t.Helper()
	if _, err := f.dir.AddGrant(context.Background(), members.Grant{Person: person, Sees: sees, Team: team,
		From: f.db.Now.AddDate(-2, 0, 0), SetBy: "test", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
}

// ask calls a tool as a person, and returns the answer's JSON, decoded,
// and as text.
func (f *reachFloor) ask(t *testing.T, person, tool, args string) (answer, string) {
	t.Helper()
	a := f.engine.Call(context.Background(), ask.Caller{Person: person, Client: "test"}, tool, json.RawMessage(args))
	b, err := json.Marshal(a.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out answer
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, string(b)
}

// submitted returns an answer's one total of submitted_sales, or -1 when
// the call was not answered with one.
func submitted(a answer) any {
	rows, ok := a["rows"].([]any)
	if !ok || len(rows) != 1 {
		return -1
	}
	for i, c := range a["columns"].([]any) {
		if c == "submitted_sales" {
			return rows[0].([]any)[i]
		}
	}
	return -1
}

// people returns find_people's list, or nil when the call was refused.
func people(a answer) []any {
	p, _ := a["people"].([]any)
	return p
}

// refusal returns a refused answer's error, failing the test (and
// returning an empty error) if the call was answered.
func refusal(t *testing.T, a answer, what string) map[string]any {
	t.Helper()
	e, ok := a["error"].(map[string]any)
	if !ok {
		t.Errorf("%s was answered, want a refusal", what)
		return map[string]any{}
	}
	return e
}

// Each caller is answered within their reach, with the figures an
// unrestricted call gives (computed here with plain SQL over the raw
// tables); a who outside it is refused naming what they may ask for, and
// no answer, refusal or candidate list names a team or agent outside it.
func TestReachInTheEngine(t *testing.T) {
	f := newReachFloor(t)
	ctx := context.Background()
	// Two teams on the floor today, an agent on each, and a week long
	// settled.
	var t1, t1name, t2, t2name, a1, a1name, a2, a2name string
	err := f.sql.QueryRow(ctx, `WITH now_on AS (
			SELECT DISTINCT ON (h.agent_key) h.agent_key, h.team_key FROM analytics.agent_team_history h
			JOIN analytics.dim_agent a USING (agent_key) WHERE h.effective_from <= $1 AND a.left_on IS NULL
			ORDER BY h.agent_key, h.effective_from DESC),
		teams AS (SELECT t.team_key, t.team_name, min(n.agent_key) AS agent FROM analytics.dim_team t JOIN now_on n USING (team_key)
			WHERE (SELECT f.counts_as_sales FROM analytics.team_floor_history f WHERE f.team_key = t.team_key AND f.effective_from <= $1
				ORDER BY f.effective_from DESC LIMIT 1)
			GROUP BY t.team_key, t.team_name ORDER BY t.team_key LIMIT 2)
		SELECT x.team_key, x.team_name, y.team_key, y.team_name, x.agent, ax.full_name, y.agent, ay.full_name
		FROM teams x JOIN teams y ON x.team_key < y.team_key
		JOIN analytics.dim_agent ax ON ax.agent_key = x.agent JOIN analytics.dim_agent ay ON ay.agent_key = y.agent`, f.db.Now).
		Scan(&t1, &t1name, &t2, &t2name, &a1, &a1name, &a2, &a2name)
	if err != nil {
		t.Fatalf("the floor has no two teams with agents today: %v", err)
	}
	week := f.db.Now.AddDate(0, 0, -35)
	week = week.AddDate(0, 0, -int((week.Weekday()+6)%7))
	period := fmt.Sprintf(`"period":{"week":%q}`, dateOf(week))
	teamSum := func(team string) float64 {
		return f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily s
			WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.TeamOfDay+` = $2`, week, team)["total"]
	}
	agentSum := func(agent string) float64 {
		return f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily
			WHERE day BETWEEN $1 AND $1::date + 6 AND agent_key = $2`, week, agent)["total"]
	}
	sales := func(who string) string {
		return `{"who":` + who + `,` + period + `,"metrics":["submitted_sales"]}`
	}

	const lead, nobody, manager = "lead-1", "nobody-1", "manager-1"
	f.grant(t, lead, ask.SeesTeam, t1)
	f.grant(t, a1, ask.SeesOwn, "")
	f.grant(t, nobody, ask.SeesNone, "")

	// The whole floor (no row: the default) sees the other team; and its
	// settled answer is kept, which must not reach the lead below.
	if a, _ := f.ask(t, manager, "sales", sales(`{"team":"`+t2+`"}`)); submitted(a) != teamSum(t2) {
		t.Errorf("the floor's manager on %s: %v, want %v", t2, submitted(a), teamSum(t2))
	}

	// The lead sees their team, by key and as "mine", with its figures.
	for _, who := range []string{`{"team":"` + t1 + `"}`, `{"team":"mine"}`} {
		if a, _ := f.ask(t, lead, "sales", sales(who)); submitted(a) != teamSum(t1) {
			t.Errorf("the lead on %s: %v, want %v", who, submitted(a), teamSum(t1))
		}
	}
	// A call without who is about what the caller may see: the floor for
	// the manager (the same figure as asking for the floor), the lead's one
	// team, the agent's own figures; someone who sees two teams is asked
	// to name one.
	noWho := `{` + period + `,"metrics":["submitted_sales"]}`
	floorAsked, _ := f.ask(t, manager, "sales", sales(`{"floor":true}`))
	if a, _ := f.ask(t, manager, "sales", noWho); submitted(a) != submitted(floorAsked) || submitted(a) == -1 {
		t.Errorf("the manager without who: %v, want the floor's %v", submitted(a), submitted(floorAsked))
	}
	if a, _ := f.ask(t, lead, "sales", noWho); submitted(a) != teamSum(t1) {
		t.Errorf("the lead without who: %v, want their team's %v", submitted(a), teamSum(t1))
	}
	if a, _ := f.ask(t, a1, "sales", noWho); submitted(a) != agentSum(a1) {
		t.Errorf("%s without who: %v, want their own %v", a1, submitted(a), agentSum(a1))
	}
	const twoTeams = "lead-2"
	f.grant(t, twoTeams, ask.SeesTeam, t1)
	f.grant(t, twoTeams, ask.SeesTeam, t2)
	a, _ := f.ask(t, twoTeams, "sales", noWho)
	if e := refusal(t, a, "two teams without who"); e["code"] != ask.CodeInvalidArgument || e["argument"] != "who" ||
		!slices.Equal(e["choices"].([]any), []any{t1, t2}) {
		t.Errorf("two teams without who: %v, want who asked for, naming %s and %s", e, t1, t2)
	}

	// And nothing else: the other team (the manager's kept answer
	// included), the floor, an agent of the other team by key, name or
	// email.
	for _, who := range []string{`{"team":"` + t2 + `"}`, `{"team":"` + t2name + `"}`, `{"floor":true}`, `{"agent":"` + a2 + `"}`,
		`{"agent":"` + a2name + `"}`} {
		a, text := f.ask(t, lead, "sales", sales(who))
		e := refusal(t, a, "the lead's "+who)
		if choices, _ := e["choices"].([]any); e["code"] != ask.CodeForbidden || !slices.Equal(choices, []any{t1}) {
			t.Errorf("the lead's %s: %v, want forbidden naming %s", who, e, t1)
		}
		for _, secret := range []string{t2name, a2name, a2} {
			if strings.Contains(text, secret) {
				t.Errorf("the lead's %s: the refusal names %q: %s", who, secret, text)
			}
		}
	}
	if a, _ := f.ask(t, lead, "sales", sales(`{"agent":"`+a1+`"}`)); submitted(a) != agentSum(a1) {
		t.Errorf("the lead on their agent %s: %v, want %v", a1, submitted(a), agentSum(a1))
	}
	if a, _ := f.ask(t, lead, "league", `{"period":{"week":"`+dateOf(week)+`"}}`); refusal(t, a, "the lead's league")["code"] != ask.CodeForbidden {
		t.Errorf("the lead's league: %v, want forbidden", a)
	}

	// find_people and candidates never name anyone outside the reach.
	if a, _ := f.ask(t, lead, "find_people", `{"query":"`+a2name+`"}`); len(people(a)) != 0 {
		t.Errorf("the lead's find_people for an agent of another team: %v", a["people"])
	}
	if a, _ := f.ask(t, manager, "find_people", `{"query":"`+a2name+`"}`); len(people(a)) == 0 {
		t.Errorf("the manager's find_people for %s found no one", a2name)
	}
	var first string
	if err := f.sql.QueryRow(ctx, `SELECT split_part(full_name, ' ', 1) FROM analytics.dim_agent GROUP BY 1 HAVING count(*) > 2
		ORDER BY count(*) DESC, 1 LIMIT 1`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	_, text := f.ask(t, lead, "find_people", `{"query":"`+first+`"}`)
	var found struct{ People []struct{ Team string } }
	json.Unmarshal([]byte(text), &found)
	for _, p := range found.People {
		if p.Team != t1 {
			t.Errorf("the lead's find_people for %q lists someone on %s: %s", first, p.Team, text)
		}
	}
	_, text = f.ask(t, lead, "sales", sales(`{"agent":"`+first+`"}`))
	var cands struct{ Candidates []struct{ Team string } }
	json.Unmarshal([]byte(text), &cands)
	for _, c := range cands.Candidates {
		if c.Team != t1name {
			t.Errorf("the lead's candidates for %q list someone on %s: %s", first, c.Team, text)
		}
	}

	// Their own agent only: their own figures, nothing else.
	if a, _ := f.ask(t, a1, "sales", sales(`{"agent":"`+a1+`"}`)); submitted(a) != agentSum(a1) {
		t.Errorf("%s on themselves: %v, want %v", a1, submitted(a), agentSum(a1))
	}
	for _, who := range []string{`{"team":"` + t1 + `"}`, `{"team":"mine"}`, `{"agent":"` + a2 + `"}`} {
		a, _ := f.ask(t, a1, "sales", sales(who))
		if e := refusal(t, a, a1+"'s "+who); e["code"] == nil {
			t.Errorf("%s's %s: %v", a1, who, e)
		}
	}

	// Nothing at all.
	for _, c := range [][2]string{{"sales", sales(`{"floor":true}`)}, {"roster", `{"who":{"team":"` + t1 + `"}}`},
		{"league", `{"period":{"week":"` + dateOf(week) + `"}}`}, {"find_people", `{"query":"` + a1name + `"}`}} {
		a, text := f.ask(t, nobody, c[0], c[1])
		if c[0] == "find_people" {
			if len(people(a)) != 0 {
				t.Errorf("find_people for someone who sees nothing: %s", text)
			}
			continue
		}
		if e := refusal(t, a, "nothing's "+c[0]); e["code"] != ask.CodeForbidden {
			t.Errorf("%s for someone who sees nothing: %v", c[0], e)
		}
	}
}

// A team lead who may see the floor's totals gets them, the figure plain
// SQL sums over the raw tables for the teams on the floor each day, with a
// note that they are totals; never by team or agent, beside the floor's
// target (its teams'), ranked in a league, or in a tool that lists each
// team; and someone who sees only the totals gets them for a call that
// leaves who out.
func TestTheFloorsTotalsForATeamLead(t *testing.T) {
	f := newReachFloor(t)
	ctx := context.Background()
	var team string
	if err := f.sql.QueryRow(ctx, "SELECT min(team_key) FROM analytics.dim_team").Scan(&team); err != nil {
		t.Fatal(err)
	}
	f.grant(t, "lead-1", ask.SeesTeam, team)
	f.grant(t, "lead-1", ask.SeesTotals, "")
	f.grant(t, "director-1", ask.SeesTotals, "")
	week := f.db.Now.AddDate(0, 0, -35)
	week = week.AddDate(0, 0, -int((week.Weekday()+6)%7))
	period := fmt.Sprintf(`"period":{"week":%q}`, dateOf(week))
	want := f.sqlFloats(t, `SELECT 'total', sum(submitted) FROM metrics.agent_sales_daily s
		WHERE day BETWEEN $1 AND $1::date + 6 AND `+pgtest.OnFloor, week)["total"]
	for _, c := range []struct{ person, who string }{{"lead-1", `"who":{"floor":true},`}, {"director-1", ""}} {
		a, text := f.ask(t, c.person, "sales", `{`+c.who+period+`,"metrics":["submitted_sales"]}`)
		if submitted(a) != want {
			t.Errorf("%s asking for the floor: %v, want %v from the raw tables: %s", c.person, submitted(a), want, text)
		}
		if notes, _ := a["notes"].([]any); !slices.ContainsFunc(notes, func(n any) bool { return strings.HasPrefix(fmt.Sprint(n), "These are the floor's totals") }) {
			t.Errorf("%s: the answer does not say that these are the floor's totals: %v", c.person, a["notes"])
		}
	}
	for _, c := range []struct{ tool, args, argument string }{
		{"sales", `{"who":{"floor":true},` + period + `,"group_by":"team"}`, "group_by"},
		{"sales", `{"who":{"floor":true},` + period + `,"group_by":"agent"}`, "group_by"},
		{"sales", `{"who":{"floor":true},"period":{"named":"this_month"},"compare_to":"target"}`, "compare_to"},
		{"team_day", `{"who":{"floor":true}}`, "who.floor"},
		{"team_weeks", `{"who":{"floor":true}}`, "who.floor"},
		{"roster", `{"who":{"floor":true}}`, "who.floor"},
		{"league", `{` + period + `}`, "tool"},
	} {
		a, _ := f.ask(t, "lead-1", c.tool, c.args)
		if e := refusal(t, a, c.tool+" "+c.args); e["code"] != ask.CodeForbidden || e["argument"] != c.argument {
			t.Errorf("%s %s for a lead who sees the floor's totals: %v, want forbidden on %s", c.tool, c.args, e, c.argument)
		}
	}
}

// A grant takes effect on its day: the day's reach is resolved for each
// call, as of the call's day on the floor.
func TestReachFromItsDay(t *testing.T) {
	f := newReachFloor(t)
	if _, err := f.dir.AddGrant(context.Background(), members.Grant{Person: "later-1", Sees: ask.SeesNone,
		From: f.db.Now.AddDate(0, 0, 2), SetBy: "test", Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	if a, _ := f.ask(t, "later-1", "sales", `{"who":{"floor":true},"period":{"named":"last_week"}}`); a["error"] != nil {
		t.Errorf("before the grant's day: refused %v", a["error"])
	}
}

// The request log records the reach that applied to each call, with its
// outcome: the floor for a member with no row (the default), the team a
// lead was granted, none for a member whose row says none.
func TestTheLogRecordsEachCallsReach(t *testing.T) {
	f := newReachFloor(t)
	ctx := context.Background()
	var team string
	if err := f.sql.QueryRow(ctx, "SELECT min(team_key) FROM analytics.dim_team").Scan(&team); err != nil {
		t.Fatal(err)
	}
	const lead, nobody, manager = "lead-1", "nobody-1", "manager-1"
	f.grant(t, lead, ask.SeesTeam, team)
	f.grant(t, nobody, ask.SeesNone, "")
	want := map[string]string{manager: "floor", lead: "team:" + team, nobody: "none"}
	ids := map[string]string{}
	for person := range want {
		a, _ := f.ask(t, person, "sales", `{"who":{"team":"`+team+`"},"period":{"named":"last_week"},"metrics":["submitted_sales"]}`)
		ids[person], _ = a["request_id"].(string)
	}
	f.log.Flush(ctx)
	for person, reach := range want {
		var got *string
		if err := f.sql.QueryRow(ctx, "SELECT reach FROM plumbline.request_outcome WHERE request_id = $1", ids[person]).Scan(&got); err != nil {
			t.Fatalf("%s's call %s: %v", person, ids[person], err)
		}
		if got == nil || *got != reach {
			t.Errorf("%s's call was logged with reach %v, want %q", person, got, reach)
		}
	}
}
