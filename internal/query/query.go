// Package query turns a resolved report plan into one SQL statement with
// bound parameters.
//
// Every figure is a sum over fact rows, so a plan compiles to one shape:
//
//	WITH team_spans AS (…), floor_spans AS (…),
//	     facts AS (<one branch per source> UNION ALL …)
//	SELECT <group key>, sum(p0), sum(p1), … FROM facts
//	  JOIN team_spans  -- the team the agent was on that day
//	  JOIN floor_spans -- whether that team counted as sales that day
//	GROUP BY … ORDER BY … LIMIT …
//
// Each source contributes a branch that yields (agent, day, p0, p1, …): its
// own parts as column arithmetic and NULL for every other source's parts, so
// a ratio across two sources sums each side over its own rows. Events (the
// live board) are first summed to agent-days in the floor's time zone.
// Ratios are divided by the caller from the summed parts; the statement only
// divides to order rows. Identifiers come from the validated catalogue and
// are quoted; every value is a bound parameter.
package query

import (
	"fmt"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/reports"
)

// Build compiles a plan.
func Build(p *reports.Plan) (string, []any, error) {
	b := &builder{plan: p, cat: p.Catalog}
	var ctes []string
	if b.needsTeams() {
		ctes = append(ctes, b.add("team_spans", b.teamSpans()))
	}
	if p.Scope.Kind == reports.ScopeFloor {
		ctes = append(ctes, b.add("floor_spans", b.floorSpans()))
	}
	if p.GroupBy == catalog.GroupDay || p.GroupBy == catalog.GroupWeek {
		ctes = append(ctes, b.add("keys", b.calendar()))
	}
	var branches []string
	for _, src := range p.Sources() {
		branches = append(branches, b.add("", b.branch(src)))
	}
	ctes = append(ctes, "facts AS ("+strings.Join(branches, " UNION ALL ")+")")
	outer := b.add("", b.outer())
	if b.err != nil {
		return "", nil, b.err
	}
	stmt := "WITH " + strings.Join(ctes, ", ") + " " + outer
	stmt, err := sq.Dollar.ReplacePlaceholders(stmt)
	return stmt, b.args, err
}

type builder struct {
	plan *reports.Plan
	cat  *catalog.Catalog
	args []any
	err  error
}

// add renders a squirrel statement, collecting its arguments in order. With
// a name it renders a CTE.
func (b *builder) add(name string, s sq.Sqlizer) string {
	sql, args, err := s.ToSql()
	if err != nil && b.err == nil {
		b.err = err
	}
	b.args = append(b.args, args...)
	if name == "" {
		return sql
	}
	return name + " AS (" + sql + ")"
}

func (b *builder) needsTeams() bool {
	return b.plan.Scope.Kind != reports.ScopeAgent || b.plan.GroupBy == catalog.GroupTeam
}

func ident(parts ...string) string { return pgx.Identifier(parts).Sanitize() }

func relation(name string) string {
	schema, rel, _ := strings.Cut(name, ".")
	return ident(schema, rel)
}

// teamSpans gives each agent's team a [since, until) span of days.
func (b *builder) teamSpans() sq.Sqlizer {
	h := b.cat.Roster().TeamHistory
	return sq.Select(
		"h."+ident(h.Agent)+" AS agent",
		"h."+ident(h.Team)+" AS team",
		"h."+ident(h.From)+" AS since",
		fmt.Sprintf("lead(h.%s) OVER (PARTITION BY h.%s ORDER BY h.%s) AS until", ident(h.From), ident(h.Agent), ident(h.From)),
	).From(relation(h.Relation) + " h")
}

// floorSpans gives each team's place on the floor a [since, until) span.
func (b *builder) floorSpans() sq.Sqlizer {
	f := b.cat.Roster().FloorHistory
	return sq.Select(
		"f."+ident(f.Team)+" AS team",
		"f."+ident(f.CountsAsSales)+" AS counts",
		"f."+ident(f.From)+" AS since",
		fmt.Sprintf("lead(f.%s) OVER (PARTITION BY f.%s ORDER BY f.%s) AS until", ident(f.From), ident(f.Team), ident(f.From)),
	).From(relation(f.Relation) + " f")
}

// branch selects one source's fact rows in the period as (agent, day, p…).
func (b *builder) branch(src *catalog.Source) sq.Sqlizer {
	col := func(name string) string { return "s." + ident(name) }
	p := b.plan
	q := sq.Select(col(src.AgentKey) + " AS agent").From(relation(src.Relation) + " s")
	event := src.Grain == catalog.GrainAgentEvent
	if event {
		zone := b.cat.Zone()
		q = q.Column(sq.Expr("("+col(src.TimeKey)+" AT TIME ZONE ?)::date AS day", zone.String())).
			Where(sq.Expr(col(src.TimeKey)+" >= ? AND "+col(src.TimeKey)+" < ?",
				midnight(p.Period.Start, zone), midnight(p.Period.End.AddDate(0, 0, 1), zone)))
	} else {
		q = q.Column(col(src.DayKey) + " AS day").
			Where(sq.Expr(col(src.DayKey)+" BETWEEN ? AND ?", p.Period.Start, p.Period.End))
	}
	for i, part := range p.Parts() {
		switch {
		case part.Source != src:
			q = q.Column(fmt.Sprintf("NULL::numeric AS p%d", i))
		case event:
			q = q.Column(fmt.Sprintf("sum(%s)::numeric AS p%d", part.Expr.SQL(col), i))
		default:
			q = q.Column(fmt.Sprintf("(%s)::numeric AS p%d", part.Expr.SQL(col), i))
		}
	}
	if p.Scope.Kind == reports.ScopeAgent {
		q = q.Where(sq.Eq{col(src.AgentKey): p.Scope.Key})
	}
	if event {
		q = q.GroupBy("1", "2")
	}
	return q
}

// outer sums the facts per group. Days and weeks are listed whole: a day
// with no rows is a row of nulls (no data), never a gap a reader could take
// for zero.
func (b *builder) outer() sq.Sqlizer {
	p := b.plan
	grouped := sq.Select().From("facts x")
	if b.needsTeams() {
		grouped = grouped.Join("team_spans t ON t.agent = x.agent AND x.day >= t.since AND (t.until IS NULL OR x.day < t.until)")
	}
	switch p.Scope.Kind {
	case reports.ScopeFloor:
		grouped = grouped.Join("floor_spans f ON f.team = t.team AND x.day >= f.since AND (f.until IS NULL OR x.day < f.until)").
			Where("f.counts")
	case reports.ScopeTeam:
		grouped = grouped.Where(sq.Eq{"t.team": p.Scope.Key})
	}
	var sums []string
	for i := range p.Parts() {
		sums = append(sums, fmt.Sprintf("p%d", i))
		grouped = grouped.Column(fmt.Sprintf("sum(x.p%d)::float8 AS p%d", i, i))
	}
	if p.GroupBy == "" {
		return grouped
	}
	grouped = grouped.Column(sq.Alias(b.groupKey(), "k")).GroupBy("k")
	var q sq.SelectBuilder
	switch p.GroupBy {
	case catalog.GroupDay, catalog.GroupWeek:
		q = sq.Select("keys.k").Columns(prefixed("g.", sums)...).From("keys").
			JoinClause(grouped.Prefix("LEFT JOIN (").Suffix(") g ON g.k = keys.k"))
	default:
		q = sq.Select("g.k").Columns(prefixed("g.", sums)...).FromSelect(grouped, "g")
	}
	if order := b.order(); order != "" {
		q = q.OrderBy(order)
	}
	return q.OrderBy("1").Limit(uint64(p.Limit))
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// calendar lists every day, or the first day of every week, of the period.
func (b *builder) calendar() sq.Sqlizer {
	start, step := b.plan.Period.Start, "1 day"
	if b.plan.GroupBy == catalog.GroupWeek {
		start = start.AddDate(0, 0, -((int(start.Weekday())-int(b.cat.WeekStart()))+7)%7)
		step = "7 days"
	}
	return sq.Expr("SELECT to_char(d, 'YYYY-MM-DD') AS k FROM generate_series(?::date, ?::date, '"+step+"'::interval) d",
		start, b.plan.Period.End)
}

// groupKey is the expression rows are grouped by, as text.
func (b *builder) groupKey() sq.Sqlizer {
	switch b.plan.GroupBy {
	case catalog.GroupTeam:
		return sq.Expr("t.team")
	case catalog.GroupAgent:
		return sq.Expr("x.agent")
	case catalog.GroupDay:
		return sq.Expr("to_char(x.day, 'YYYY-MM-DD')")
	default:
		// Back up to the first day of the week: isodow is 1 (Monday) to 7 (Sunday).
		first := int(b.cat.WeekStart())
		if first == 0 {
			first = 7
		}
		return sq.Expr("to_char(x.day - ((extract(isodow FROM x.day)::int + 7 - ?) % 7), 'YYYY-MM-DD')", first)
	}
}

// order is the ORDER BY term for a sort by metric, nulls last, over the
// grouped sums.
func (b *builder) order() string {
	s := b.plan.Sort
	if s == nil {
		return ""
	}
	i := 0
	for _, m := range b.plan.Metrics {
		if m.ID != s.Metric {
			i += len(m.Parts())
			continue
		}
		expr := fmt.Sprintf("g.p%d", i)
		if m.IsRatio() {
			expr = fmt.Sprintf("g.p%d / NULLIF(g.p%d, 0)", i, i+1)
		}
		return expr + " " + strings.ToUpper(s.Direction) + " NULLS LAST"
	}
	return ""
}

// Newest compiles the statement that reads, for each source, the newest day
// it holds rows for, in the floor's time zone for events.
func Newest(cat *catalog.Catalog, sources []*catalog.Source) (string, []any) {
	var cols []string
	var args []any
	for _, s := range sources {
		if s.Grain == catalog.GrainAgentEvent {
			args = append(args, cat.Zone().String())
			cols = append(cols, fmt.Sprintf("(SELECT (max(%s) AT TIME ZONE $%d)::date FROM %s)", ident(s.TimeKey), len(args), relation(s.Relation)))
		} else {
			cols = append(cols, fmt.Sprintf("(SELECT max(%s) FROM %s)", ident(s.DayKey), relation(s.Relation)))
		}
	}
	return "SELECT " + strings.Join(cols, ", "), args
}

// DirectoryStatements read the roster: teams, agents, every agent's dated
// team history and every team's dated place on the floor.
type DirectoryStatements struct {
	Teams, Agents, TeamHistory, FloorHistory string
}

// Directory compiles the statements that read the roster. They take no
// parameters: the directory is read with no caller input.
func Directory(cat *catalog.Catalog) DirectoryStatements {
	r := cat.Roster()
	t, a, h, f := r.Teams, r.Agents, r.TeamHistory, r.FloorHistory
	cols := func(names ...string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = ident(n)
		}
		return strings.Join(out, ", ")
	}
	return DirectoryStatements{
		Teams:        fmt.Sprintf("SELECT %s FROM %s ORDER BY 1", cols(t.Key, t.Name), relation(t.Relation)),
		Agents:       fmt.Sprintf("SELECT %s FROM %s ORDER BY 1", cols(a.Key, a.Name, a.Email, a.Hired, a.Left), relation(a.Relation)),
		TeamHistory:  fmt.Sprintf("SELECT %s FROM %s ORDER BY 1, 3", cols(h.Agent, h.Team, h.From), relation(h.Relation)),
		FloorHistory: fmt.Sprintf("SELECT %s FROM %s ORDER BY 1, 2", cols(f.Team, f.From, f.CountsAsSales, f.DecidedBy, f.Reason), relation(f.Relation)),
	}
}

func midnight(day time.Time, zone *time.Location) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, zone)
}
