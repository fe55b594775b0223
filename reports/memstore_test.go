package reports_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strconv"
	"time"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// This file holds memStore, a ask.Store over rows held in memory: the
// relations the catalogue names, each a list of rows. It evaluates every
// plan over those rows with the rules internal/query writes in SQL: each
// agent-day counts for the team the agent was on that day and, for the
// floor, only while that team counted as the floor; nightly sources are read
// up to their load watermark; events are summed to agent-days in the
// catalogue's time zone; a metric whose parts can be unknown leaves out the
// agent-days on which one is; a ratio over two sources joins them by
// agent-day, a missing side counting zero when its source was loaded that
// day and unknown when it was not; days, weeks, months and quarters are listed whole. Sums are
// exact (numeric, as in PostgreSQL) and turned to float64 at the end.

// tables are a store's rows, by relation: each row maps a column to its
// value as JSON gives it (text and dates as strings, numbers, booleans,
// null).
type tables map[string][]map[string]any

// readTables reads tables from a JSON file.
func readTables(path string) (tables, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t tables
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// memStore is a ask.Store over tables.
type memStore struct {
	cat  *catalog.Catalog
	rows tables
}

var _ ask.Store = (*memStore)(nil)

func (s *memStore) Ping(context.Context) error { return nil }

// Directory reads the roster relations.
func (s *memStore) Directory(context.Context, string) (*ask.Roster, error) {
	r := s.cat.Roster()
	dir := &ask.Roster{}
	for _, row := range s.rows[r.Teams.Relation] {
		dir.Teams = append(dir.Teams, ask.Team{Key: str(row[r.Teams.Key]), Name: str(row[r.Teams.Name])})
	}
	for _, row := range s.rows[r.Agents.Relation] {
		a := ask.Agent{Key: str(row[r.Agents.Key]), Name: str(row[r.Agents.Name]), Email: str(row[r.Agents.Email]),
			Hired: date(row[r.Agents.Hired])}
		if row[r.Agents.Left] != nil {
			left := date(row[r.Agents.Left])
			a.Left = &left
		}
		dir.Agents = append(dir.Agents, a)
	}
	h := r.TeamHistory
	for _, row := range s.rows[h.Relation] {
		dir.Memberships = append(dir.Memberships, ask.Membership{Agent: str(row[h.Agent]), Team: str(row[h.Team]), From: date(row[h.From])})
	}
	f := r.FloorHistory
	for _, row := range s.rows[f.Relation] {
		dir.Floor = append(dir.Floor, ask.FloorDecision{Team: str(row[f.Team]), From: date(row[f.From]),
			CountsAsSales: row[f.CountsAsSales] == true, DecidedBy: str(row[f.DecidedBy]), Reason: str(row[f.Reason])})
	}
	if tr := s.cat.Targets(); tr != nil {
		for _, row := range s.rows[tr.Relation] {
			at, err := time.Parse(time.RFC3339, str(row[tr.SetAt]))
			if err != nil {
				panic(err)
			}
			dir.Targets = append(dir.Targets, ask.TargetSet{Team: str(row[tr.Team]), Metric: str(row[tr.Metric]), Kind: str(row[tr.PeriodKind]),
				Start: date(row[tr.PeriodStart]), Value: row[tr.Value].(float64), SetBy: str(row[tr.SetBy]), SetAt: at, Reason: str(row[tr.Reason])})
		}
	}
	// The order the SQL reads them in: by key, histories by date.
	slices.SortFunc(dir.Teams, func(a, b ask.Team) int { return compareStrings(a.Key, b.Key) })
	slices.SortFunc(dir.Agents, func(a, b ask.Agent) int { return compareStrings(a.Key, b.Key) })
	slices.SortFunc(dir.Memberships, func(a, b ask.Membership) int {
		if c := compareStrings(a.Agent, b.Agent); c != 0 {
			return c
		}
		return a.From.Compare(b.From)
	})
	slices.SortFunc(dir.Floor, func(a, b ask.FloorDecision) int {
		if c := compareStrings(a.Team, b.Team); c != 0 {
			return c
		}
		return a.From.Compare(b.From)
	})
	slices.SortFunc(dir.Targets, func(a, b ask.TargetSet) int {
		return cmp.Or(compareStrings(a.Team, b.Team), compareStrings(a.Metric, b.Metric), compareStrings(a.Kind, b.Kind),
			a.Start.Compare(b.Start), a.SetAt.Compare(b.SetAt))
	})
	return dir, nil
}

// Coverage is, for a nightly source, the first and the newest day a
// finished load covered; for a live one, the day of its first row.
func (s *memStore) Coverage(_ context.Context, sources []*catalog.Source) (map[string]ask.Coverage, error) {
	out := map[string]ask.Coverage{}
	for _, src := range sources {
		var c ask.Coverage
		if src.Refresh == catalog.RefreshNightly && s.cat.Loads() != nil {
			c.First, c.Through = s.watermarks(src)
		} else {
			for _, row := range s.rows[src.Relation] {
				if d := s.dayOf(src, row); c.First.IsZero() || d.Before(c.First) {
					c.First = d
				}
			}
		}
		out[src.ID] = c
	}
	return out, nil
}

// watermarks are the first and the newest day a finished load of a nightly
// source covered; zero when none finished.
func (s *memStore) watermarks(src *catalog.Source) (first, last time.Time) {
	l := s.cat.Loads()
	for _, row := range s.rows[l.Relation] {
		if str(row[l.Source]) != src.Relation || row[l.Finished] == nil {
			continue
		}
		d := date(row[l.Day])
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	return first, last
}

// dayOf is the floor's day of a source row.
func (s *memStore) dayOf(src *catalog.Source, row map[string]any) time.Time {
	if src.Grain == catalog.GrainAgentEvent {
		at, err := time.Parse(time.RFC3339, str(row[src.TimeKey]))
		if err != nil {
			panic(err)
		}
		return date(at.In(s.cat.Zone()).Format(time.DateOnly))
	}
	return date(row[src.DayKey])
}

// Run evaluates each plan over the rows; coverage is read with them.
func (s *memStore) Run(ctx context.Context, plans ...*ask.Plan) ([]*ask.Result, error) {
	var sources []*catalog.Source
	for _, p := range plans {
		for _, src := range p.Sources() {
			if !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
	}
	cov, _ := s.Coverage(ctx, sources)
	out := make([]*ask.Result, len(plans))
	for i, p := range plans {
		out[i] = s.run(p)
		out[i].Coverage = cov
	}
	return out, nil
}

// agentDay keys a fact.
type agentDay struct {
	agent string
	day   time.Time
}

// fact is one agent-day's values: a value per part of the plan (nil for
// unknown, or for parts of another source), and per metric whether the
// agent-day was kept in its figures or left out of them.
type fact struct {
	agentDay
	parts         []constant.Value
	kept, leftOut []int64
}

func (s *memStore) run(p *ask.Plan) *ask.Result {
	nparts := len(p.Parts())
	var facts []fact
	newFact := func(ad agentDay) fact {
		return fact{agentDay: ad, parts: make([]constant.Value, nparts), kept: make([]int64, len(p.Metrics)), leftOut: make([]int64, len(p.Metrics))}
	}
	// One fact per agent-day of each source read by metrics of one source.
	var plain []*catalog.Source
	for _, m := range p.Metrics {
		if src := m.Sources()[0]; len(m.Sources()) == 1 && !slices.Contains(plain, src) {
			plain = append(plain, src)
		}
	}
	for _, src := range plain {
		for _, ad := range s.agentDays(p, src) {
			f := newFact(ad.agentDay)
			i := 0
			for j, m := range p.Metrics {
				n := len(m.Parts())
				if len(m.Sources()) == 1 && m.Sources()[0] == src {
					vals := make([]constant.Value, n)
					known := true
					for k, part := range m.Parts() {
						vals[k] = ad.sum(part.Expr)
						known = known && vals[k] != nil
					}
					switch {
					case !m.LeaveOut:
						copy(f.parts[i:], vals)
						f.kept[j] = 1
					case known:
						copy(f.parts[i:], vals)
						f.kept[j] = 1
					default:
						f.leftOut[j] = 1
					}
				}
				i += n
			}
			facts = append(facts, f)
		}
	}
	// One fact per agent-day of either side of each ratio over two sources.
	i := 0
	for j, m := range p.Metrics {
		if len(m.Sources()) > 1 {
			facts = append(facts, s.crossFacts(p, j, i, m, newFact)...)
		}
		i += len(m.Parts())
	}
	return s.group(p, facts)
}

// crossFacts joins the two sides of the ratio at index j of the plan's
// metrics (its parts from index i) by agent-day.
func (s *memStore) crossFacts(p *ask.Plan, j, i int, m *catalog.Metric, newFact func(agentDay) fact) []fact {
	sides := []catalog.Part{m.Ratio.Numerator, m.Ratio.Denominator}
	vals := make([]map[agentDay]constant.Value, 2)
	var keys []agentDay
	for k, part := range sides {
		vals[k] = map[agentDay]constant.Value{}
		for _, ad := range s.agentDays(p, part.Source) {
			vals[k][ad.agentDay] = ad.sum(part.Expr)
			if !slices.Contains(keys, ad.agentDay) {
				keys = append(keys, ad.agentDay)
			}
		}
	}
	var out []fact
	for _, key := range keys {
		f := newFact(key)
		known := true
		sums := make([]constant.Value, 2)
		for k, part := range sides {
			v, ok := vals[k][key]
			switch {
			case ok:
				known = known && v != nil
				sums[k] = v
			default:
				known = known && s.loadedOn(p, part.Source, key.day)
				sums[k] = constant.MakeInt64(0)
			}
		}
		if known {
			f.parts[i], f.parts[i+1] = sums[0], sums[1]
			f.kept[j] = 1
		} else {
			f.leftOut[j] = 1
		}
		out = append(out, f)
	}
	return out
}

// loadedOn says whether a source was loaded on a day: inside its finished
// loads for a nightly source, up to today for a live one.
func (s *memStore) loadedOn(p *ask.Plan, src *catalog.Source, day time.Time) bool {
	if src.Refresh == catalog.RefreshNightly {
		first, last := s.watermarks(src)
		return !first.IsZero() && !day.Before(first) && !day.After(last)
	}
	return !day.After(p.Today)
}

// sourceDay is one agent-day of a source: its rows (one for a daily source,
// every event of the day for an event source).
type sourceDay struct {
	agentDay
	rows []map[string]any
}

// sum is the total of an expression over the day's rows, or nil when it is
// unknown on any of them.
func (d sourceDay) sum(e *catalog.Expr) constant.Value {
	total := constant.MakeInt64(0)
	for _, row := range d.rows {
		v := eval(e, row)
		if v == nil {
			return nil
		}
		total = constant.BinaryOp(total, token.ADD, v)
	}
	return total
}

// agentDays are a source's agent-days in the plan's period, loaded and in
// scope (an agent scope reads only that agent's rows), in row order.
func (s *memStore) agentDays(p *ask.Plan, src *catalog.Source) []sourceDay {
	_, last := s.watermarks(src)
	var out []sourceDay
	at := map[agentDay]int{}
	for _, row := range s.rows[src.Relation] {
		ad := agentDay{agent: str(row[src.AgentKey]), day: s.dayOf(src, row)}
		switch {
		case ad.day.Before(p.Period.Start) || ad.day.After(p.Period.End):
			continue
		case src.Refresh == catalog.RefreshNightly && (last.IsZero() || ad.day.After(last)):
			continue
		case p.Scope.Kind == ask.ScopeAgent && ad.agent != p.Scope.Key:
			continue
		}
		if k, ok := at[ad]; ok {
			out[k].rows = append(out[k].rows, row)
			continue
		}
		at[ad] = len(out)
		out = append(out, sourceDay{agentDay: ad, rows: []map[string]any{row}})
	}
	return out
}

// eval is an expression's value on a row: nil when a column it reads is
// null. The catalogue's formulas are sums, differences, products and
// quotients of columns and numbers, so they are evaluated as exact
// constants from their parenthesised rendering.
func eval(e *catalog.Expr, row map[string]any) constant.Value {
	for _, c := range e.Columns() {
		if row[c] == nil {
			return nil
		}
	}
	text := e.SQL(func(name string) string { return "(" + strconv.FormatFloat(row[name].(float64), 'f', -1, 64) + ")" })
	tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, text)
	if err != nil {
		panic(fmt.Sprintf("evaluate %s: %v", text, err))
	}
	return tv.Value
}

// group sums the facts per group of the plan, keeping only agent-days that
// count for its scope: the team the agent was on that day and, for the
// floor, whether that team then counted as the floor.
func (s *memStore) group(p *ask.Plan, facts []fact) *ask.Result {
	needsTeams := p.Scope.Kind != ask.ScopeAgent || p.GroupBy == catalog.GroupTeam
	type sums struct {
		parts         []constant.Value
		kept, leftOut []int64
	}
	groups := map[string]*sums{}
	res := &ask.Result{LeftOut: make([]int64, len(p.Metrics))}
	for _, f := range facts {
		team, ok := s.teamOn(f.agent, f.day)
		if needsTeams && !ok {
			continue
		}
		switch p.Scope.Kind {
		case ask.ScopeFloor:
			if !s.countsOn(team, f.day) {
				continue
			}
		case ask.ScopeTeam:
			if team != p.Scope.Key {
				continue
			}
		}
		key := ""
		switch p.GroupBy {
		case catalog.GroupTeam:
			key = team
		case catalog.GroupAgent:
			key = f.agent
		case catalog.GroupDay:
			key = f.day.Format(time.DateOnly)
		case catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
			key = s.bucketOf(p.GroupBy, f.day).Format(time.DateOnly)
		}
		g := groups[key]
		if g == nil {
			g = &sums{parts: make([]constant.Value, len(f.parts)), kept: make([]int64, len(p.Metrics)), leftOut: make([]int64, len(p.Metrics))}
			groups[key] = g
		}
		for i, v := range f.parts {
			switch {
			case v == nil:
			case g.parts[i] == nil:
				g.parts[i] = v
			default:
				g.parts[i] = constant.BinaryOp(g.parts[i], token.ADD, v)
			}
		}
		for j := range p.Metrics {
			g.kept[j] += f.kept[j]
			g.leftOut[j] += f.leftOut[j]
			res.LeftOut[j] += f.leftOut[j]
		}
	}
	var keys []string
	switch p.GroupBy {
	case "":
		keys = []string{""}
	case catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		// From a first day, this many days on is inside the next one.
		step := map[string]int{catalog.GroupDay: 1, catalog.GroupWeek: 7, catalog.GroupMonth: 32, catalog.GroupQuarter: 93}[p.GroupBy]
		for d := s.bucketOf(p.GroupBy, p.Period.Start); !d.After(p.Period.End); d = s.bucketOf(p.GroupBy, d.AddDate(0, 0, step)) {
			keys = append(keys, d.Format(time.DateOnly))
		}
	default:
		for k := range groups {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareStrings)
	if p.GroupBy != "" && !p.Ranked && len(keys) > p.Limit { // a total is one row, uncut
		keys = keys[:p.Limit]
	}
	for _, k := range keys {
		row := ask.Row{Key: k, Sums: make([]*float64, len(p.Parts())), Kept: make([]int64, len(p.Metrics)), LeftOut: make([]int64, len(p.Metrics))}
		if g := groups[k]; g != nil {
			for i, v := range g.parts {
				if v != nil {
					f, _ := constant.Float64Val(constant.ToFloat(v))
					row.Sums[i] = &f
				}
			}
			copy(row.Kept, g.kept)
			copy(row.LeftOut, g.leftOut)
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// teamOn is the team an agent was on on a day: the latest move on or
// before it.
func (s *memStore) teamOn(agent string, day time.Time) (string, bool) {
	h := s.cat.Roster().TeamHistory
	var team string
	var from time.Time
	for _, row := range s.rows[h.Relation] {
		if d := date(row[h.From]); str(row[h.Agent]) == agent && !d.After(day) && (team == "" || d.After(from)) {
			team, from = str(row[h.Team]), d
		}
	}
	return team, team != ""
}

// countsOn says whether a team counted as the floor on a day: its latest
// decision on or before it.
func (s *memStore) countsOn(team string, day time.Time) bool {
	f := s.cat.Roster().FloorHistory
	var counts bool
	var from time.Time
	for _, row := range s.rows[f.Relation] {
		if d := date(row[f.From]); str(row[f.Team]) == team && !d.After(day) && (from.IsZero() || d.After(from)) {
			counts, from = row[f.CountsAsSales] == true, d
		}
	}
	return counts
}

// bucketOf is the first day of the week, month or quarter holding d, or d
// by day.
func (s *memStore) bucketOf(groupBy string, d time.Time) time.Time {
	switch groupBy {
	case catalog.GroupWeek:
		return d.AddDate(0, 0, -((int(d.Weekday())-int(s.cat.WeekStart()))+7)%7)
	case catalog.GroupMonth:
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
	case catalog.GroupQuarter:
		return time.Date(d.Year(), (d.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	}
	return d
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}

// date parses a date as the store returns it: midnight UTC.
func date(v any) time.Time {
	d, err := time.Parse(time.DateOnly, str(v))
	if err != nil {
		panic(err)
	}
	return d
}

// compareStrings orders by bytes, as COLLATE "C" does.
func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
