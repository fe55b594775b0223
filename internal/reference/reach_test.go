package reference_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/contract"
	"plumbline/internal/members"
	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/internal/reference"
	"plumbline/reports"
	"plumbline/reports/ask"
)

var (
	reachRequests = flag.Int("reach.n", 500, "how many random requests the reach test draws")
	reachSeed     = flag.Uint64("reach.seed", 0, "the reach test's random seed; 0 draws one from the clock")
)

// unrestricted is the caller the reach test compares with: no row of
// reach, so the default, the whole floor.
var unrestricted = ask.Caller{Person: "reference", Client: "test"}

// reacher is one caller of the reach test: their id, what their rows give
// (in words, and as a reach), their reach as the reference reads it, the teams and agents it covers
// today (to draw requests within it), and the names and keys no answer to
// them may hold.
type reacher struct {
	id, about     string
	granted       reference.Reach // what the rows written give
	reach         reference.Reach
	teams         []reference.Team
	agents        []reference.Agent
	outside       []string
	outsideFinder *regexp.Regexp
}

// Each caller is answered within their reach, over randomly drawn requests
// to every tool plumbline offers (the report tools with every who form,
// period, grouping, comparison and mode the differential test draws,
// team_day, team_weeks, league, roster, find_people, freshness,
// metric_definitions and health), each who left out, {"team": "mine"},
// named within the reach, or named over the whole floor, exactly, loosely
// or typed wrong. The callers see the floor (through a group), one team,
// two teams (one through a group), their own agent's figures, a team and
// their own figures, a team and the floor's totals, the floor's totals
// alone, nothing, and a team no longer (so the default). For
// each request:
//
//   - no answer, refusal, candidate list or note, in JSON or as text,
//     names a team or an agent outside the caller's reach (the names,
//     emails and keys of the teams not in it and of the agents never on
//     one of its teams, found with plain SQL over the roster's tables);
//   - the reference evaluator, given the caller's reach (read from the
//     rows with plain SQL), says whom the call is about: then the answer
//     equals, but for its request_id, the unrestricted caller's answer to
//     the same request with that who written out (the same figure asked
//     two ways agrees; for a call without who, the default the rules
//     give), or else the call must be refused as it says (forbidden
//     outside the reach) or answered with its candidates, all within it;
//   - find_people lists exactly the people within the reach the name
//     matches.
//
// The unrestricted caller asks each request first, so that a settled
// answer kept for them is there to cross callers if the cache let it.
// -reach.seed=N repeats a run; -reach.n sets how many requests it draws.
func TestAnswersStayWithinReach(t *testing.T) {
	s := *reachSeed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-reach.seed=%d repeats this run)", s, s)
	rng := rand.New(rand.NewPCG(s, 2))
	ctx := context.Background()
	start := time.Now()

	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	raw, err := reference.Read(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	local := db.Now.In(reference.NY)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	callers := grantReach(t, rng, conn, raw, today)

	st := db.Store(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := reports.New(st.Catalog(), st, &reports.Options{Now: func() time.Time { return db.Now }, Logger: quiet,
		Reach: &members.ReachSource{Store: pgstore.ReachReader{Store: st, Role: pgtest.Roles.Auth}, Default: ask.FloorReach, TTL: -1}})
	f := &floorAt{name: "reach", now: db.Now, engine: engine, raw: raw}
	for _, c := range callers {
		if c.reach, err = reference.ReadReach(ctx, conn, c.id, today, reference.FloorReach); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.reach, c.granted) {
			t.Fatalf("%s (%s): the rows read back as %s, want %s", c.id, c.about, c.reach, c.granted)
		}
		seenBy(t, conn, c, today)
		t.Logf("%s (%s) sees %s: %d teams and %d agents today; %d names and keys outside", c.id, c.about, c.reach,
			len(c.teams), len(c.agents), len(c.outside))
	}

	counts := map[string]int{}
	failures := 0
	fail := func(format string, args ...any) {
		if failures++; failures <= 15 {
			t.Errorf(format, args...)
		}
	}
	for i := 0; i < *reachRequests; i++ {
		c := callers[i%len(callers)]
		tool, req, args := drawWithin(rng, f, c)
		who := ask.Caller{Person: c.id, Client: "test"}
		asked := engine.Call(ctx, unrestricted, tool, args)
		got := engine.Call(ctx, who, tool, args)
		where := fmt.Sprintf("seed %d, request %d: %s (%s) %s %s", s, i, c.id, c.reach, tool, args)
		if leaked := leaks(engine, got, c); leaked != "" {
			fail("%s: the answer names %s, outside the reach:\n  %s", where, leaked, bodyOf(got))
		}
		counts["tool "+tool]++
		switch tool {
		case "freshness", "metric_definitions", "health":
			if d := differs(decoded(got), decoded(asked)); d != "" {
				fail("%s: %s", where, d)
			}
			counts["answered as for the unrestricted caller"]++
			continue
		case "find_people":
			var in struct{ Query string }
			json.Unmarshal(args, &in)
			want := peopleWithin(raw, in.Query, c, db.Now)
			if d := peopleDiffer(got, want); d != "" {
				fail("%s: %s", where, d)
			}
			counts[fmt.Sprintf("find_people finding %s", many(len(want)))]++
			continue
		}
		req.Tool = tool
		whom, end := raw.Within(req, c.reach, c.id, db.Now)
		if end != nil {
			d := compare(got, end)
			if len(d) > 0 && sameEarlierRefusal(got, asked) {
				d = nil // refused for an argument read before who, as the unrestricted caller is
			}
			if len(d) > 0 {
				fail("%s: %s\n  engine: %s", where, d, bodyOf(got))
			}
			switch {
			case end.Refusal != nil:
				counts["refused "+end.Refusal.Code+" on "+end.Refusal.Argument]++
			default:
				counts["answered with candidates within the reach"]++
			}
			continue
		}
		explicit := req
		explicit.Who = whom
		want := engine.Call(ctx, unrestricted, tool, explicit.JSON())
		g := decoded(got)
		if _, refused := g["error"]; whom != nil && whom.Floor && !c.reach.Floor && !refused {
			notes, _ := g["notes"].([]any)
			if at := slices.Index(notes, any(totalsNote)); at < 0 {
				fail("%s: the answer does not say that these are the floor's totals: %v", where, notes)
			} else {
				g["notes"] = slices.Delete(notes, at, at+1)
			}
		}
		if d := differs(g, hidden(want, raw, c, whom)); d != "" {
			fail("%s: the answer differs from the unrestricted answer to %s: %s", where, explicit.JSON(), d)
		}
		switch {
		case got.Refusal != nil:
			counts["refused as the unrestricted caller is, "+got.Refusal.Code]++
		case req.Who == nil && tool != "league":
			counts["answered for the default, as for "+whoWord(whom)]++
		case req.Who != nil && req.Who.Team != "" && strings.EqualFold(req.Who.Team, "mine"):
			counts[`answered for {"team": "mine"}`]++
		default:
			counts["answered as the unrestricted caller is"]++
		}
	}
	if failures > 15 {
		t.Errorf("and %d more failures", failures-15)
	}
	t.Logf("%d requests by %d callers in %v with seed %d, %d failures:\n  %s", *reachRequests, len(callers),
		time.Since(start).Round(time.Millisecond), s, failures, counted(counts, "\n  "))
}

// grantReach writes the test's rows of reach, from long ago, as plumbline
// access and the directory keep them (people, groups, their members, a row
// per grant), over teams and agents drawn from rng, and returns the
// callers they make.
func grantReach(t *testing.T, rng *rand.Rand, conn *pgx.Conn, raw *reference.Floor, today time.Time) []*reacher {
	t.Helper()
	ctx := context.Background()
	teams := slices.Clone(raw.Teams)
	slices.SortFunc(teams, func(a, b reference.Team) int { return strings.Compare(a.Key, b.Key) })
	agents := slices.Clone(raw.Agents)
	slices.SortFunc(agents, func(a, b reference.Agent) int { return strings.Compare(a.Key, b.Key) })
	tp, ap := rng.Perm(len(teams)), rng.Perm(len(agents))
	t1, t2, t3 := teams[tp[0]].Key, teams[tp[1]].Key, teams[tp[2]].Key
	own, ownAndTeam := agents[ap[0]].Key, agents[ap[1]].Key
	if _, err := conn.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status) VALUES
			('manager-1', 'manager-1@floor.example', 'Floor Manager', 'active'), ('lead-2', 'lead-2@floor.example', 'Second Shift Lead', 'active');
		INSERT INTO plumbline.groups (display_name) VALUES ('Floor managers'), ('Second shift');
		INSERT INTO plumbline.group_members SELECT group_id, 'manager-1' FROM plumbline.groups WHERE display_name = 'Floor managers';
		INSERT INTO plumbline.group_members SELECT group_id, 'lead-2' FROM plumbline.groups WHERE display_name = 'Second shift'`); err != nil {
		t.Fatal(err)
	}
	yesterday := today.AddDate(0, 0, -1)
	for _, g := range []struct {
		person, group, sees, team string
		to                        *time.Time
	}{
		{"", "Floor managers", "floor", "", nil},
		{"lead-1", "", "team", t1, nil},
		{"lead-2", "", "team", t1, nil},
		{"", "Second shift", "team", t2, nil},
		{own, "", "own", "", nil},
		{ownAndTeam, "", "own", "", nil},
		{ownAndTeam, "", "team", t3, nil},
		{"lead-3", "", "team", t3, nil},
		{"lead-3", "", "totals", "", nil},
		{"totals-1", "", "totals", "", nil},
		{"nobody-1", "", "none", "", nil},
		{"former-1", "", "team", t2, &yesterday},
	} {
		if _, err := conn.Exec(ctx, `INSERT INTO plumbline.reach (person_id, group_id, sees, team_key, from_day, to_day, set_by, reason)
			VALUES (nullif($1, ''), (SELECT group_id FROM plumbline.groups WHERE display_name = $2), $3, nullif($4, ''), $5, $6,
				'Dana Okafor', 'reach test')`, g.person, g.group, g.sees, g.team, today.AddDate(-2, 0, 0), g.to); err != nil {
			t.Fatalf("grant %+v: %v", g, err)
		}
	}
	two := []string{t1, t2}
	slices.Sort(two)
	return []*reacher{
		{id: "manager-1", about: "the floor, through a group", granted: reference.FloorReach},
		{id: "lead-1", about: "one team", granted: reference.Reach{Teams: []string{t1}}},
		{id: "lead-2", about: "two teams, one through a group", granted: reference.Reach{Teams: two}},
		{id: own, about: "their own agent's figures", granted: reference.Reach{Own: true}},
		{id: ownAndTeam, about: "a team and their own figures", granted: reference.Reach{Teams: []string{t3}, Own: true}},
		{id: "lead-3", about: "a team and the floor's totals", granted: reference.Reach{Teams: []string{t3}, Totals: true}},
		{id: "totals-1", about: "the floor's totals only", granted: reference.Reach{Totals: true}},
		{id: "nobody-1", about: "nothing", granted: reference.Reach{}},
		{id: "former-1", about: "a team no longer, so the default", granted: reference.FloorReach},
	}
}

// seenBy finds, with plain SQL over the roster's tables, the teams and
// agents a caller's reach covers today (to draw requests within it), and
// the names, emails and keys no answer to them may hold: for a reach short
// of the floor, those of the teams not in it (but for the teams the
// caller's own agent was ever on, when it covers them), and of the agents
// never on one of its teams (but for their own).
func seenBy(t *testing.T, conn *pgx.Conn, c *reacher, today time.Time) {
	t.Helper()
	ctx := context.Background()
	own := ""
	if c.reach.Own {
		own = c.id
	}
	teams := orEmpty(c.reach.Teams)
	rows, err := conn.Query(ctx, `SELECT team_key, team_name FROM analytics.dim_team WHERE $1 OR team_key = ANY($2) ORDER BY team_key`,
		c.reach.Floor, teams)
	if err == nil {
		c.teams, err = pgx.CollectRows(rows, pgx.RowToStructByPos[reference.Team])
	}
	if err != nil {
		t.Fatal(err)
	}
	rows, err = conn.Query(ctx, `WITH now_on AS (
			SELECT DISTINCT ON (agent_key) agent_key, team_key FROM analytics.agent_team_history
			WHERE effective_from <= $1 ORDER BY agent_key, effective_from DESC)
		SELECT a.agent_key, a.full_name, a.email FROM analytics.dim_agent a LEFT JOIN now_on n USING (agent_key)
		WHERE $2 OR a.agent_key = $3 OR n.team_key = ANY($4) ORDER BY a.agent_key`, today, c.reach.Floor, own, teams)
	if err == nil {
		c.agents, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (reference.Agent, error) {
			var a reference.Agent
			return a, r.Scan(&a.Key, &a.Name, &a.Email)
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.reach.Floor {
		return
	}
	rows, err = conn.Query(ctx, `SELECT team_key FROM analytics.dim_team t WHERE NOT team_key = ANY($1)
			AND NOT EXISTS (SELECT FROM analytics.agent_team_history h WHERE h.agent_key = $2 AND h.team_key = t.team_key)
		UNION ALL SELECT team_name FROM analytics.dim_team t WHERE NOT team_key = ANY($1)
			AND NOT EXISTS (SELECT FROM analytics.agent_team_history h WHERE h.agent_key = $2 AND h.team_key = t.team_key)
		UNION ALL SELECT unnest(ARRAY[agent_key, full_name, email]) FROM analytics.dim_agent a WHERE agent_key <> $2
			AND NOT EXISTS (SELECT FROM analytics.agent_team_history h WHERE h.agent_key = a.agent_key AND h.team_key = ANY($1))`,
		teams, own)
	if err == nil {
		c.outside, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(c.outside) == 0 {
		return
	}
	quoted := make([]string, len(c.outside))
	for i, o := range c.outside {
		quoted[i] = regexp.QuoteMeta(o)
	}
	c.outsideFinder = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_])(` + strings.Join(quoted, "|") + `)(?:$|[^\p{L}\p{N}_])`)
}

// within is a floor of the teams and agents the caller's reach covers
// today (the whole floor's teams for a reach of no team), to draw whos
// from.
func (c *reacher) within(f *floorAt) *floorAt {
	in := &reference.Floor{Teams: c.teams, Agents: c.agents}
	if len(in.Teams) == 0 {
		in.Teams = f.raw.Teams
	}
	if len(in.Agents) == 0 {
		in.Agents = f.raw.Agents
	}
	return &floorAt{name: f.name, now: f.now, engine: f.engine, raw: in}
}

// drawWithin draws a request for a caller: find_people, metric_definitions
// or health now and then, else a request as the differential test draws
// them whose who is left out, {"team": "mine"}, drawn within the caller's
// reach, or left as drawn over the whole floor.
func drawWithin(rng *rand.Rand, f *floorAt, c *reacher) (string, reference.Request, json.RawMessage) {
	var req reference.Request
	switch x := rng.Float64(); {
	case x < 0.1:
		from := f
		if rng.Float64() < 0.6 {
			from = c.within(f)
		}
		var q string
		switch w := drawWho(rng, from); {
		case w.Agent != "":
			q = w.Agent
		case w.Team != "":
			q = w.Team
		default:
			a := from.raw.Agents[rng.IntN(len(from.raw.Agents))]
			q, _, _ = strings.Cut(a.Name, " ")
		}
		b, _ := json.Marshal(map[string]string{"query": q})
		return "find_people", req, b
	case x < 0.13:
		tool := []string{"metric_definitions", "health"}[rng.IntN(2)]
		return tool, req, json.RawMessage(`{}`)
	}
	req = draw(rng, f)
	if req.Tool == "league" || req.Tool == "freshness" {
		return req.Tool, req, req.JSON()
	}
	switch y := rng.Float64(); {
	case y < 0.25:
	case y < 0.45:
		req.Who = nil
	case y < 0.55:
		req.Who = &reference.Who{Team: []string{"mine", "Mine", "MINE"}[rng.IntN(3)]}
	default:
		req.Who = drawWho(rng, c.within(f))
	}
	if req.Tool == "team_day" && req.Who != nil && req.Who.Agent != "" && rng.Float64() < 0.8 {
		req.Who = nil
	}
	return req.Tool, req, req.JSON()
}

// leaks names what in an answer, in its JSON (but its request_id) or its
// text, lies outside the caller's reach; "" when nothing does.
func leaks(e *reports.Engine, a *reports.Answer, c *reacher) string {
	if c.outsideFinder == nil {
		return ""
	}
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				if k != "request_id" {
					texts = append(texts, k)
					walk(x)
				}
			}
		}
	}
	walk(decoded(a))
	if text, ok := contract.Text(e, a, func(s string) string { return s }); ok {
		texts = append(texts, strings.ReplaceAll(text, a.RequestID, ""))
	}
	for _, text := range texts {
		if m := c.outsideFinder.FindStringSubmatch(text); m != nil {
			return fmt.Sprintf("%q (in %q)", m[1], text)
		}
	}
	return ""
}

// decoded is an answer's JSON, decoded.
func decoded(a *reports.Answer) map[string]any {
	b, _ := json.Marshal(a.Body)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// bodyOf is an answer's JSON, cut short for a failure's message.
func bodyOf(a *reports.Answer) string {
	b, _ := json.Marshal(a.Body)
	if len(b) > 1500 {
		return string(b[:1500]) + "…"
	}
	return string(b)
}

// differs says how an answer differs from another, but for request_id;
// "" when it does not.
func differs(g, want map[string]any) string {
	delete(g, "request_id")
	delete(want, "request_id")
	if reflect.DeepEqual(g, want) {
		return ""
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(want)
	at := 0 // where the two first differ, shown with what comes before it
	for at < len(gb) && at < len(wb) && gb[at] == wb[at] {
		at++
	}
	from := max(0, at-700)
	cut := func(b []byte) string {
		out := string(b[from:min(len(b), from+1500)])
		if from > 0 {
			out = "…" + out
		}
		if from+1500 < len(b) {
			out += "…"
		}
		return out
	}
	return fmt.Sprintf("\n  got:  %s\n  want: %s", cut(gb), cut(wb))
}

// hidden is the unrestricted answer as the caller must get it: unless the
// caller sees the floor or the answer is about their own agent, a team
// outside the reach is named by neither key nor name in an agent's teams
// over time or a row of an agent's figures by team, reads as "another
// team" in a note of an agent's moves, and
// its joining or leaving the floor goes unsaid.
func hidden(a *reports.Answer, raw *reference.Floor, c *reacher, whom *reference.Who) map[string]any {
	body := decoded(a)
	if c.reach.Floor || whom != nil && whom.Agent == c.id {
		return body
	}
	if columns := toStrings(body["columns"]); slices.Contains(columns, "current_on_day") || len(columns) > 1 && columns[0] == "team" && columns[1] == "team_name" {
		rows, _ := body["rows"].([]any)
		for _, r := range rows {
			row := r.([]any)
			if team, _ := row[0].(string); !slices.Contains(c.reach.Teams, team) {
				row[0], row[1] = nil, nil
			}
		}
	}
	notes, _ := body["notes"].([]any)
	for i, n := range notes {
		note, _ := n.(string)
		for _, t := range raw.Teams {
			if slices.Contains(c.reach.Teams, t.Key) {
				continue
			}
			name := regexp.QuoteMeta(t.Name)
			note = regexp.MustCompile(`(; )?`+name+` (joined|left) the floor on \d{4}-\d{2}-\d{2}`).ReplaceAllString(note, "")
			note = strings.ReplaceAll(note, "moved from "+t.Name+" to ", "moved from another team to ")
			note = regexp.MustCompile(`( to )`+name+`( on \d{4}-\d{2}-\d{2})`).ReplaceAllString(note, "${1}another team$2")
			note = strings.ReplaceAll(note, t.Name+" ("+t.Key+"): on the floor", "another team: on the floor")
		}
		notes[i] = note
	}
	return body
}

// totalsNote is the note an answer about the floor says to a caller who
// sees only its totals, which the test finds and sets aside before it
// compares the answer with the unrestricted one.
const totalsNote = "These are the floor's totals: your reach shows them, and not each team's or agent's figures on the floor beyond your own."

// sameEarlierRefusal says a call was refused as the unrestricted caller's
// same call was, for an argument other than who: one read before who is.
func sameEarlierRefusal(got, asked *reports.Answer) bool {
	g, a := got.Refusal, asked.Refusal
	return g != nil && a != nil && g.Code == a.Code && g.Argument == a.Argument && g.Code != ask.CodeForbidden &&
		!strings.HasPrefix(g.Argument, "who")
}

// peopleWithin are the agent keys find_people must list for a caller: the
// reference's resolution of the query as an agent within their reach (the
// one agent, or the candidates), or no one when it is refused.
func peopleWithin(raw *reference.Floor, query string, c *reacher, now time.Time) []string {
	whom, end := raw.Within(reference.Request{Tool: "find_people", Who: &reference.Who{Agent: query}}, c.reach, c.id, now)
	switch {
	case whom != nil:
		return []string{whom.Agent}
	case end.Candidates != nil:
		return end.Candidates
	}
	return []string{}
}

// peopleDiffer says how find_people's list differs from the keys wanted
// (the first of them, when the list is cut short); "" when it does not.
func peopleDiffer(got *reports.Answer, want []string) string {
	body := decoded(got)
	people, ok := body["people"].([]any)
	if !ok {
		return "no people in " + bodyOf(got)
	}
	keys := []string{}
	for _, p := range people {
		keys = append(keys, fmt.Sprint(p.(map[string]any)["agent_key"]))
	}
	if body["truncated"] == true && len(want) > len(keys) {
		want = want[:len(keys)]
	}
	if !slices.Equal(keys, want) {
		return fmt.Sprintf("people %v, want %v", keys, want)
	}
	return ""
}

// whoWord names a resolved who's kind.
func whoWord(w *reference.Who) string {
	switch {
	case w == nil:
		return "none"
	case w.Floor:
		return "the floor"
	case w.Team != "":
		return "a team"
	}
	return "an agent"
}

// many says how many people a list holds.
func many(n int) string {
	switch n {
	case 0:
		return "no one"
	case 1:
		return "one person"
	}
	return "several people"
}
