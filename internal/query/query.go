package query

import (
	"fmt"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// Build compiles a plan. Its rows are the group key (unless the plan is a
// total), then every part's sum, then for every metric the agent-days kept
// and left out, then for every metric the agent-days left out over all
// groups.
func Build(p *ask.Plan) (string, []any, error) {
	b := &builder{plan: p, cat: p.Catalog}
	b.numeric = len(b.plainSources())+len(crossMetrics(p)) > 2
	var ctes []string
	if b.needsTeams() {
		ctes = append(ctes, b.add("spans", b.spans()))
	}
	switch p.GroupBy {
	case catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		ctes = append(ctes, b.add("keys", b.calendar()))
	}
	var branches []string
	for _, src := range b.plainSources() {
		branches = append(branches, b.add("", b.branch(src)))
	}
	for _, j := range crossMetrics(p) {
		branches = append(branches, b.add("", b.crossBranch(j, p.Metrics[j])))
	}
	ctes = append(ctes, "facts AS ("+strings.Join(branches, " UNION ALL ")+")")
	if srcs := b.rolled(); srcs != nil {
		ctes = append(ctes, b.teamed(srcs)...)
		b.fromTeamed = true
	}
	outer := b.add("", b.outer())
	if b.err != nil {
		return "", nil, b.err
	}
	stmt := "WITH " + strings.Join(ctes, ", ") + " " + outer
	stmt, err := sq.Dollar.ReplacePlaceholders(stmt)
	return stmt, b.args, err
}

type builder struct {
	plan *ask.Plan
	cat  *catalog.Catalog
	args []any
	err  error
	// numeric sums every part as numeric. A part is otherwise summed in
	// its own type: PostgreSQL sums integers exactly in bigint (numeric
	// only past it), where a cast of every row to numeric cost a tenth of
	// the statement. But a branch of the facts leaves another branch's
	// parts null, and PostgreSQL types a column of the union from its
	// first two branches: two nulls would make it text. So past two
	// branches, every part and every null is numeric.
	numeric bool
	// fromTeamed sums the rows of teamed (a rollup's, or the agent-days
	// with their teams) instead of the facts joined to their spans.
	fromTeamed bool
}

// part is a part's expression as the facts carry it, and null the value
// a branch gives another branch's part.
func (b *builder) part(expr string) string {
	if b.numeric {
		return "(" + expr + ")::numeric"
	}
	return "(" + expr + ")"
}

func (b *builder) null() string {
	if b.numeric {
		return "NULL::numeric"
	}
	return "NULL"
}

// crossMetrics are the indexes of the plan's metrics whose parts come from
// two sources.
func crossMetrics(p *ask.Plan) []int {
	var out []int
	for j, m := range p.Metrics {
		if cross(m) {
			out = append(out, j)
		}
	}
	return out
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

// needsTeams reports whether the facts are joined to their agents' teams.
// The floor's totals need not: a caller who sees only those reads rows of
// the floor's teams only, which say no agent's team (Totals).
func (b *builder) needsTeams() bool {
	return !b.plan.Scope.Totals && (b.plan.Scope.Kind != ask.ScopeAgent || b.plan.GroupBy == catalog.GroupTeam)
}

// onFloor reports whether the facts count only days on the floor, by their
// team's place on it.
func (b *builder) onFloor() bool {
	return !b.plan.Scope.Totals && (b.plan.Scope.Kind == ask.ScopeFloor || b.plan.Scope.OnFloor)
}

// cross reports whether a metric's parts come from two sources.
func cross(m *catalog.Metric) bool { return len(m.Sources()) > 1 }

// plainSources are the sources of the metrics that read one source each.
func (b *builder) plainSources() []*catalog.Source {
	var out []*catalog.Source
	for _, m := range b.plan.Metrics {
		if src := m.Sources()[0]; !cross(m) && !contains(out, src) {
			out = append(out, src)
		}
	}
	return out
}

func contains(srcs []*catalog.Source, s *catalog.Source) bool {
	for _, x := range srcs {
		if x == s {
			return true
		}
	}
	return false
}

func ident(parts ...string) string { return pgx.Identifier(parts).Sanitize() }

func relation(name string) string {
	schema, rel, _ := strings.Cut(name, ".")
	return ident(schema, rel)
}

// spans gives each agent the runs of days whose rows count, and for which
// team: the agent's team spans, cut to the days that team was on the floor
// when the plan counts only those, as (agent, team, since, until) with
// until null while the span holds; for one team or agent, only theirs.
func (b *builder) spans() sq.Sqlizer {
	p, h := b.plan, b.cat.Roster().TeamHistory
	teams := teamSpans(b.cat)
	if p.Scope.Kind == ask.ScopeTeam {
		// An agent's spans end where their next one begins, so every span
		// of an agent ever on the team is read, and then the team's kept.
		teams = teams.Where(sq.Expr(fmt.Sprintf("h.%s IN (SELECT e.%s FROM %s e WHERE e.%s = ?)",
			ident(h.Agent), ident(h.Agent), relation(h.Relation), ident(h.Team)), p.Scope.Key))
	}
	if p.Scope.Kind == ask.ScopeAgent {
		teams = teams.Where(sq.Eq{"h." + ident(h.Agent): p.Scope.Key})
	}
	q := sq.Select("t.agent", "t.team").FromSelect(teams, "t")
	if b.onFloor() {
		q = q.Columns("greatest(t.since, f.since) AS since", "least(t.until, f.until) AS until").
			JoinClause(floorSpans(b.cat).Prefix("JOIN (").
				Suffix(") f ON f.team = t.team AND (f.until IS NULL OR t.since < f.until) AND (t.until IS NULL OR f.since < t.until)")).
			Where("f.counts")
	} else {
		q = q.Columns("t.since", "t.until")
	}
	if p.Scope.Kind == ask.ScopeTeam {
		q = q.Where(sq.Eq{"t.team": p.Scope.Key})
	}
	return q
}

// teamSpans gives each agent's team a [since, until) span of days, as
// (agent, team, since, until); until is null while the span holds.
func teamSpans(cat *catalog.Catalog) sq.SelectBuilder {
	h := cat.Roster().TeamHistory
	return spans("h", h.Relation, h.From, h.Agent, "agent", h.Team, "team")
}

// floorSpans gives each team's place on the floor a [since, until) span,
// as (team, counts, since, until); until is null while the span holds.
func floorSpans(cat *catalog.Catalog) sq.SelectBuilder {
	f := cat.Roster().FloorHistory
	return spans("f", f.Relation, f.From, f.Team, "team", f.CountsAsSales, "counts")
}

// spans reads a history relation, aliased alias, as [since, until) spans
// of days: its key column and one other, each as the name given, then
// since, the row's from, and until, the next from of the same key (null
// while the span holds).
func spans(alias, rel, from, key, keyAs, other, otherAs string) sq.SelectBuilder {
	a := alias + "."
	return sq.Select(
		a+ident(key)+" AS "+keyAs,
		a+ident(other)+" AS "+otherAs,
		a+ident(from)+" AS since",
		fmt.Sprintf("lead(%[1]s%[2]s) OVER (PARTITION BY %[1]s%[3]s ORDER BY %[1]s%[2]s) AS until", a, ident(from), ident(key)),
	).From(relation(rel) + " " + alias)
}

// watermark is the newest day a finished load of a nightly source covered,
// as a scalar subquery.
func (b *builder) watermark(src *catalog.Source, agg string) sq.Sqlizer {
	return sq.Expr(watermark(b.cat, agg, "?"), src.Load)
}

// watermark is agg (min or max) of the days a source's finished loads
// covered, as a scalar subquery; source is the SQL for the source's name in
// the loads relation.
func watermark(cat *catalog.Catalog, agg, source string) string {
	return finishedLoads(cat, agg+"(l."+ident(cat.Loads().Day)+")", source)
}

// finishedLoads is a scalar subquery of expr over the finished runs of a
// source's loads, as l; source is the SQL for the source's name.
func finishedLoads(cat *catalog.Catalog, expr, source string) string {
	l := cat.Loads()
	return fmt.Sprintf("(SELECT %s FROM %s l WHERE l.%s = %s AND l.%s IS NOT NULL)", expr, relation(l.Relation), ident(l.Source), source, ident(l.Finished))
}

// dayOf is the floor's day of a source row aliased s.
func (b *builder) dayOf(src *catalog.Source) sq.Sqlizer { return dayOf(b.cat, src) }

func dayOf(cat *catalog.Catalog, src *catalog.Source) sq.Sqlizer {
	if src.Grain == catalog.GrainAgentEvent {
		return sq.Expr("(s."+ident(src.TimeKey)+" AT TIME ZONE ?)::date", cat.Zone().String())
	}
	return sq.Expr("s." + ident(src.DayKey))
}

// rows selects a source's rows in the period, loaded and in scope, as
// FROM … WHERE … of a query over the source aliased s.
func (b *builder) rows(q sq.SelectBuilder, src *catalog.Source) sq.SelectBuilder {
	p := b.plan
	if p.Scope.Totals {
		q = q.From(Totals(src) + " s")
	} else {
		q = q.From(Seen(src) + " s")
	}
	if src.Grain == catalog.GrainAgentEvent {
		zone := b.cat.Zone()
		col := "s." + ident(src.TimeKey)
		q = q.Where(sq.Expr(col+" >= ? AND "+col+" < ?", midnight(p.Period.Start, zone), midnight(p.Period.End.AddDate(0, 0, 1), zone)))
	} else {
		q = q.Where(sq.Expr("s."+ident(src.DayKey)+" BETWEEN ? AND ?", p.Period.Start, p.Period.End))
	}
	if src.Refresh == catalog.RefreshNightly {
		day, args, _ := b.dayOf(src).ToSql()
		mark, margs, _ := b.watermark(src, "max").ToSql()
		q = q.Where(sq.Expr(day+" <= "+mark, append(args, margs...)...))
	}
	if p.Scope.Kind == ask.ScopeAgent {
		q = q.Where(sq.Eq{"s." + ident(src.AgentKey): p.Scope.Key})
	}
	return q
}

// known is the condition that every part of a metric has a value on the row.
func known(m *catalog.Metric, col func(string) string) string {
	if !m.LeaveOut {
		return "true"
	}
	var conds []string
	for _, part := range m.Parts() {
		conds = append(conds, "("+part.Expr.SQL(col)+") IS NOT NULL")
	}
	return strings.Join(conds, " AND ")
}

// branch selects one source's agent-days in the period as (agent, day, p…,
// k…, l…).
func (b *builder) branch(src *catalog.Source) sq.Sqlizer {
	col := func(name string) string { return "s." + ident(name) }
	event := src.Grain == catalog.GrainAgentEvent
	q := sq.Select("s." + ident(src.AgentKey) + " AS agent").Column(sq.Alias(b.dayOf(src), "day"))
	i := 0
	for _, m := range b.plan.Metrics {
		mine := !cross(m) && m.Sources()[0] == src
		cond := known(m, col)
		if event {
			cond = "bool_and(" + cond + ")"
		}
		for _, part := range m.Parts() {
			expr := b.part(part.Expr.SQL(col))
			if event {
				expr = "sum" + expr
			}
			switch {
			case !mine:
				q = q.Column(fmt.Sprintf("%s AS p%d", b.null(), i))
			case m.LeaveOut:
				q = q.Column(fmt.Sprintf("CASE WHEN %s THEN %s END AS p%d", cond, expr, i))
			default:
				q = q.Column(fmt.Sprintf("%s AS p%d", expr, i))
			}
			i++
		}
	}
	for j, m := range b.plan.Metrics {
		switch {
		case cross(m) || m.Sources()[0] != src:
			q = q.Column(fmt.Sprintf("0 AS k%d", j)).Column(fmt.Sprintf("0 AS l%d", j))
		case !m.LeaveOut:
			q = q.Column(fmt.Sprintf("1 AS k%d", j)).Column(fmt.Sprintf("0 AS l%d", j))
		default:
			cond := known(m, col)
			if event {
				cond = "bool_and(" + cond + ")"
			}
			q = q.Column(fmt.Sprintf("CASE WHEN %s THEN 1 ELSE 0 END AS k%d", cond, j)).
				Column(fmt.Sprintf("CASE WHEN %s THEN 0 ELSE 1 END AS l%d", cond, j))
		}
	}
	q = b.rows(q, src)
	if event {
		q = q.GroupBy("1", "2")
	}
	return q
}

// crossBranch joins, by agent-day, the two sources of the ratio at index j
// of the plan's metrics. A side with no row counts zero when its source was
// loaded that day, and makes the agent-day unknown when it was not; an
// unknown side leaves the agent-day out of both parts.
func (b *builder) crossBranch(j int, m *catalog.Metric) sq.Sqlizer {
	num, den := m.Ratio.Numerator, m.Ratio.Denominator
	side := func(part catalog.Part) sq.SelectBuilder {
		src := part.Source
		expr := b.part(part.Expr.SQL(func(name string) string { return "s." + ident(name) }))
		q := sq.Select("s." + ident(src.AgentKey) + " AS agent").Column(sq.Alias(b.dayOf(src), "day"))
		if src.Grain == catalog.GrainAgentEvent {
			q = q.Column("CASE WHEN bool_and("+expr+" IS NOT NULL) THEN sum"+expr+" END AS v").GroupBy("1", "2")
		} else {
			q = q.Column(expr + " AS v")
		}
		return b.rows(q, src)
	}
	day := "coalesce(a.day, b.day)"
	loaded := func(alias string, src *catalog.Source) sq.Sqlizer {
		if src.Refresh == catalog.RefreshNightly {
			first, fargs, _ := b.watermark(src, "min").ToSql()
			last, largs, _ := b.watermark(src, "max").ToSql()
			return sq.Expr(fmt.Sprintf("CASE WHEN %s.agent IS NULL THEN %s BETWEEN %s AND %s ELSE %s.v IS NOT NULL END",
				alias, day, first, last, alias), append(fargs, largs...)...)
		}
		return sq.Expr(fmt.Sprintf("CASE WHEN %s.agent IS NULL THEN %s <= ? ELSE %s.v IS NOT NULL END", alias, day, alias), b.plan.Today)
	}
	aKnown, aArgs, _ := loaded("a", num.Source).ToSql()
	bKnown, bArgs, _ := loaded("b", den.Source).ToSql()
	joined := sq.Select("coalesce(a.agent, b.agent) AS agent", day+" AS day", "coalesce(a.v, 0) AS a", "coalesce(b.v, 0) AS b").
		Column(sq.Expr("("+aKnown+") AND ("+bKnown+") AS known", append(aArgs, bArgs...)...)).
		FromSelect(side(num), "a").JoinClause(side(den).Prefix("FULL JOIN (").Suffix(") b ON b.agent = a.agent AND b.day = a.day"))

	q := sq.Select("j.agent", "j.day")
	i := 0
	for k, other := range b.plan.Metrics {
		for n := range other.Parts() {
			switch {
			case k != j:
				q = q.Column(fmt.Sprintf("%s AS p%d", b.null(), i))
			case n == 0:
				q = q.Column(fmt.Sprintf("CASE WHEN j.known THEN j.a END AS p%d", i))
			default:
				q = q.Column(fmt.Sprintf("CASE WHEN j.known THEN j.b END AS p%d", i))
			}
			i++
		}
	}
	for k := range b.plan.Metrics {
		if k != j {
			q = q.Column(fmt.Sprintf("0 AS k%d", k)).Column(fmt.Sprintf("0 AS l%d", k))
			continue
		}
		q = q.Column(fmt.Sprintf("CASE WHEN j.known THEN 1 ELSE 0 END AS k%d", k)).Column(fmt.Sprintf("CASE WHEN j.known THEN 0 ELSE 1 END AS l%d", k))
	}
	return q.FromSelect(joined, "j")
}

// outer sums the facts per group. Days, weeks, months and quarters are
// listed whole: one with no rows is a row of nulls the engine fills in,
// never a gap a reader could take for zero.
func (b *builder) outer() sq.Sqlizer {
	p := b.plan
	grouped := sq.Select().From("facts x")
	switch {
	case b.fromTeamed:
		grouped = sq.Select().From("teamed x")
	case b.needsTeams():
		grouped = grouped.Join("spans t ON t.agent = x.agent AND x.day >= t.since AND (t.until IS NULL OR x.day < t.until)")
	}
	var cols []string
	for i := range p.Parts() {
		cols = append(cols, fmt.Sprintf("p%d", i))
		grouped = grouped.Column(fmt.Sprintf("sum(x.p%d)::float8 AS p%d", i, i))
	}
	for j := range p.Metrics {
		cols = append(cols, fmt.Sprintf("k%d", j), fmt.Sprintf("l%d", j))
		grouped = grouped.Column(fmt.Sprintf("sum(x.k%d)::int8 AS k%d", j, j)).Column(fmt.Sprintf("sum(x.l%d)::int8 AS l%d", j, j))
	}
	for j := range p.Metrics {
		cols = append(cols, fmt.Sprintf("lt%d", j))
		total := fmt.Sprintf("sum(x.l%d)", j)
		if p.GroupBy != "" {
			total = "(sum(" + total + ") OVER ())"
		}
		grouped = grouped.Column(fmt.Sprintf("%s::int8 AS lt%d", total, j))
	}
	if p.GroupBy == "" {
		return grouped
	}
	grouped = grouped.Column(sq.Alias(b.groupKey(), "k")).GroupBy("k")
	var q sq.SelectBuilder
	key := "g.k"
	switch p.GroupBy {
	case catalog.GroupDay, catalog.GroupWeek, catalog.GroupMonth, catalog.GroupQuarter:
		key = "keys.k"
		q = sq.Select(key).Columns(prefixed("g.", cols)...).From("keys").
			JoinClause(grouped.Prefix("LEFT JOIN (").Suffix(") g ON g.k = keys.k"))
	default:
		q = sq.Select(key).Columns(prefixed("g.", cols)...).FromSelect(grouped, "g")
	}
	q = q.OrderBy(key + ` COLLATE "C"`)
	if !p.Ranked {
		q = q.Limit(uint64(p.Limit))
	}
	return q
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// calendar lists every day, or the first day of every week, month or
// quarter, of the period.
func (b *builder) calendar() sq.Sqlizer {
	start, step := b.plan.Period.Start, "1 day"
	switch b.plan.GroupBy {
	case catalog.GroupWeek:
		start = start.AddDate(0, 0, -((int(start.Weekday())-int(b.cat.WeekStart()))+7)%7)
		step = "7 days"
	case catalog.GroupMonth:
		start = time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
		step = "1 month"
	case catalog.GroupQuarter:
		start = time.Date(start.Year(), (start.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
		step = "3 months"
	}
	return sq.Expr("SELECT to_char(d, 'YYYY-MM-DD') AS k FROM generate_series(?::date, ?::date, '"+step+"'::interval) d",
		start, b.plan.Period.End)
}

// groupKey is the expression rows are grouped by, as text.
func (b *builder) groupKey() sq.Sqlizer {
	switch b.plan.GroupBy {
	case catalog.GroupTeam:
		if b.fromTeamed {
			return sq.Expr("x.team")
		}
		return sq.Expr("t.team")
	case catalog.GroupAgent:
		return sq.Expr("x.agent")
	case catalog.GroupDay:
		return sq.Expr("to_char(x.day, 'YYYY-MM-DD')")
	case catalog.GroupMonth, catalog.GroupQuarter:
		return sq.Expr("to_char(date_trunc('" + b.plan.GroupBy + "', x.day::timestamp), 'YYYY-MM-DD')")
	default:
		// Back up to the first day of the week: isodow is 1 (Monday) to 7 (Sunday).
		first := int(b.cat.WeekStart())
		if first == 0 {
			first = 7
		}
		return sq.Expr("to_char(x.day - ((extract(isodow FROM x.day)::int + 7 - ?) % 7), 'YYYY-MM-DD')", first)
	}
}

// Coverage compiles the statement that reads, for each source, the first
// and the last day of its data: for a nightly source, the first and the
// newest day a finished load covered; for a live one, the day of its first
// event and no last day (it runs up to now).
func Coverage(cat *catalog.Catalog, sources []*catalog.Source) (string, []any) {
	b := &builder{cat: cat}
	var cols []string
	for _, s := range sources {
		if s.Refresh == catalog.RefreshNightly && cat.Loads() != nil {
			cols = append(cols, b.add("", b.watermark(s, "min")), b.add("", b.watermark(s, "max")))
			continue
		}
		first := "first"
		if s.Grain == catalog.GrainAgentEvent {
			b.args = append(b.args, cat.Zone().String())
			first = "(first AT TIME ZONE ?)::date"
		}
		cols = append(cols, "(SELECT "+first+" FROM "+Begins(s)+")", "NULL::date")
	}
	stmt, _ := sq.Dollar.ReplacePlaceholders("SELECT " + strings.Join(cols, ", "))
	return stmt, b.args
}

// DirectoryStatements read the roster: teams, agents, every agent's dated
// team history and every team's dated place on the floor; and, when the
// catalogue has them, every version of every team's targets.
type DirectoryStatements struct {
	Teams, Agents, TeamHistory, FloorHistory string
	Targets                                  string // empty without a targets relation
	// Stamp reads, as one text, each of those reads' row count and the sum
	// of its rows' 64-bit hashes: it changes when any row read changes, and
	// costs the database a scan but sends one row. It needs PostgreSQL's
	// hash_record_extended (version 14) and a hash for every column's type.
	Stamp string
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
	// Each read's select list and relation, then its order.
	reads := [][2]string{
		{fmt.Sprintf("SELECT %s FROM %s", cols(t.Key, t.Name), relation(t.Relation)), "1"},
		{fmt.Sprintf("SELECT %s FROM %s", cols(a.Key, a.Name, a.Email, a.Hired, a.Left), relation(a.Relation)), "1"},
		{fmt.Sprintf("SELECT %s FROM %s", cols(h.Agent, h.Team, h.From), relation(h.Relation)), "1, 3"},
		{fmt.Sprintf("SELECT %s FROM %s", cols(f.Team, f.From, f.CountsAsSales, f.DecidedBy, f.Reason), relation(f.Relation)), "1, 2"},
	}
	if tr := cat.Targets(); tr != nil {
		reads = append(reads, [2]string{fmt.Sprintf("SELECT %s, %s::float8, %s FROM %s", cols(tr.Team, tr.Metric, tr.PeriodKind, tr.PeriodStart),
			ident(tr.Value), cols(tr.SetBy, tr.SetAt, tr.Reason), relation(tr.Relation)), "1, 2, 3, 4, 7"})
	}
	ordered, stamps := make([]string, len(reads)), make([]string, len(reads))
	for i, rd := range reads {
		ordered[i] = rd[0] + " ORDER BY " + rd[1]
		stamps[i] = "(SELECT count(*) || ':' || coalesce(sum(hash_record_extended(r, 0)), 0) FROM (" + rd[0] + ") r)"
	}
	out := DirectoryStatements{Teams: ordered[0], Agents: ordered[1], TeamHistory: ordered[2], FloorHistory: ordered[3],
		Stamp: "SELECT concat_ws(' ', " + strings.Join(stamps, ", ") + ")"}
	if len(ordered) > 4 {
		out.Targets = ordered[4]
	}
	return out
}

func midnight(day time.Time, zone *time.Location) time.Time {
	return time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, zone)
}
