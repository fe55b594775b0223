package dbcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/scrub"
)

// This file checks the rows behind a catalogue against the rules the
// engine reads them by: `plumbline check --db` catching a mapping mistake
// (a company's view that yields two rows for one agent-day, team ranges
// that overlap, a watermark that goes backwards, a key of the wrong type)
// at the place in the catalogue that names the relation. Problems are
// counted and dated, never shown as rows: a row may name a person. Each
// says how to list the rows.

// kind is what a column the catalogue reads must hold.
type kind int

const (
	kindKey  kind = iota // text: keys are matched and shown as text
	kindDay              // date: a day of the floor
	kindTime             // timestamptz: an instant, made a day in the floor's zone
	kindWhen             // a timestamp, with or without a zone
	kindBool             // boolean
)

func (k kind) ok(typ, category string) bool {
	switch k {
	case kindKey:
		return category == "S"
	case kindDay:
		return typ == "date"
	case kindTime:
		return typ == "timestamp with time zone"
	case kindWhen:
		return typ == "timestamp with time zone" || typ == "timestamp without time zone"
	default:
		return typ == "boolean"
	}
}

func (k kind) want() string {
	return [...]string{"text (a key is matched as text: cast it with ::text in the view)",
		"date (a day of the floor: make a timestamp a day in the floor's zone with (t AT TIME ZONE 'zone')::date)",
		"timestamp with time zone (an instant: a timestamp without a zone cannot be made a day in the floor's zone)",
		"a timestamp", "boolean"}[k]
}

// typed is one column the catalogue reads whose type matters.
type typed struct {
	at             catalog.Pos
	relation, name string
	use            string
	kind           kind
}

func typedColumns(cat *catalog.Catalog) []typed {
	var out []typed
	add := func(at catalog.Pos, rel, use string, k kind, names ...string) {
		for _, n := range names {
			if n != "" {
				out = append(out, typed{at, rel, n, use, k})
			}
		}
	}
	ro := cat.Roster()
	add(ro.Teams.At, ro.Teams.Relation, "roster teams", kindKey, ro.Teams.Key, ro.Teams.Name)
	a := ro.Agents
	add(a.At, a.Relation, "roster agents", kindKey, a.Key, a.Name, a.Email)
	add(a.At, a.Relation, "roster agents", kindDay, a.Hired, a.Left)
	h := ro.TeamHistory
	add(h.At, h.Relation, "roster team_history", kindKey, h.Agent, h.Team)
	add(h.At, h.Relation, "roster team_history", kindDay, h.From, h.To)
	f := ro.FloorHistory
	add(f.At, f.Relation, "roster floor_history", kindKey, f.Team, f.DecidedBy, f.Reason)
	add(f.At, f.Relation, "roster floor_history", kindDay, f.From, f.To)
	add(f.At, f.Relation, "roster floor_history", kindBool, f.CountsAsSales)
	if l := cat.Loads(); l != nil {
		add(l.At, l.Relation, "loads", kindKey, l.Source)
		add(l.At, l.Relation, "loads", kindDay, l.Day)
		add(l.At, l.Relation, "loads", kindWhen, l.Finished)
	}
	if t := cat.Targets(); t != nil {
		add(t.At, t.Relation, "targets", kindKey, t.Team, t.Metric, t.PeriodKind, t.SetBy, t.Reason)
		add(t.At, t.Relation, "targets", kindDay, t.PeriodStart)
		add(t.At, t.Relation, "targets", kindWhen, t.SetAt)
	}
	for _, s := range cat.Sources() {
		use := "source " + s.ID
		add(s.At, s.Relation, use, kindKey, s.AgentKey)
		add(s.At, s.Relation, use, kindDay, s.DayKey)
		add(s.At, s.Relation, use, kindTime, s.TimeKey)
	}
	return out
}

// columnTypes reads each column's type and type category; empty where the
// relation or column does not exist (CheckCatalog reports those).
const columnTypes = `
SELECT coalesce(format_type(a.atttypid, a.atttypmod), ''), coalesce(t.typcategory::text, '')
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY w(rel, col, i)
LEFT JOIN pg_attribute a ON a.attrelid = to_regclass(w.rel) AND a.attname = w.col AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_type t ON t.oid = a.atttypid
ORDER BY w.i`

// CheckMapping checks the rows of the relations the catalogue reads
// against the rules the engine reads them by, and returns each problem at
// the place in the catalogue that names the relation:
//   - keys are text, days are dates, an event's time is a timestamp with
//     time zone, counts_as_sales is a boolean;
//   - no team or agent key holds a run of digits answers would cut;
//   - teams and agents have one row per key, an agent_day source one row
//     per agent and day, a history one row per key and start;
//   - a history with ranges (to:) has ranges that neither overlap nor
//     leave a gap, and none that ends before it starts;
//   - every nightly source has a finished run in the loads relation, and
//     no finished run covers an earlier day than a run that finished
//     before it.
//
// A relation or column that is missing or unreadable is CheckCatalog's to
// report, so a check that cannot run adds nothing.
func CheckMapping(ctx context.Context, q Querier, cat *catalog.Catalog) (catalog.Errors, error) {
	var errs catalog.Errors
	add := func(at catalog.Pos, hint, format string, args ...any) {
		errs = append(errs, &catalog.Error{Pos: at, Msg: fmt.Sprintf(format, args...), Hint: hint})
	}
	cols := typedColumns(cat)
	rels, names := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		rels[i], names[i] = c.relation, c.name
	}
	rows, err := q.Query(ctx, columnTypes, rels, names)
	if err != nil {
		return nil, fmt.Errorf("check the catalogue's column types: %w", err)
	}
	i := 0
	var typ, category string
	wrong := map[string]bool{} // relation.column
	_, err = pgx.ForEachRow(rows, []any{&typ, &category}, func() error {
		c := cols[i]
		i++
		if typ != "" && !c.kind.ok(typ, category) {
			wrong[c.relation+"."+c.name] = true
			add(c.at, "make it "+c.kind.want(), "%s.%s (%s) is %s", c.relation, c.name, c.use, typ)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check the catalogue's column types: %w", err)
	}
	m := mapping{ctx: ctx, q: q, add: add}
	ro := cat.Roster()
	m.digits(ro.Teams.At, ro.Teams.Relation, "team", ro.Teams.Key)
	m.digits(ro.Agents.At, ro.Agents.Relation, "agent", ro.Agents.Key)
	m.unique(ro.Teams.At, ro.Teams.Relation, "team", "each team once", ro.Teams.Key, "")
	m.unique(ro.Agents.At, ro.Agents.Relation, "agent", "each agent once", ro.Agents.Key, "")
	h, f := ro.TeamHistory, ro.FloorHistory
	m.unique(h.At, h.Relation, "agent", "one team per agent from a day, or its figures count twice", h.Agent, h.From)
	m.unique(f.At, f.Relation, "team", "one decision per team from a day", f.Team, f.From)
	if h.To != "" && !wrong[h.Relation+"."+h.To] {
		m.ranges(h.At, h.Relation, "agent", "team", h.Agent, h.From, h.To)
	}
	if f.To != "" && !wrong[f.Relation+"."+f.To] {
		m.ranges(f.At, f.Relation, "team", "place on the floor", f.Team, f.From, f.To)
	}
	for _, s := range cat.Sources() {
		if s.Grain == catalog.GrainAgentDay {
			m.unique(s.At, s.Relation, "agent-day", "one row per agent and day, or its figures count twice: sum them per agent and day in the view",
				s.AgentKey, s.DayKey)
		}
	}
	if l := cat.Loads(); l != nil {
		m.loads(cat, l)
	}
	return errs, nil
}

type mapping struct {
	ctx context.Context
	q   Querier
	add func(at catalog.Pos, hint, format string, args ...any)
}

// count runs a statement that returns a count and the first day it
// concerns; false if it could not run.
func (m mapping) count(stmt string, args ...any) (n int64, first string, ok bool) {
	err := m.q.QueryRow(m.ctx, stmt, args...).Scan(&n, &first)
	return n, first, err == nil
}

// unique checks that the relation has one row per key (and day, when day
// is set).
func (m mapping) unique(at catalog.Pos, rel, what, rule, key, day string) {
	cols := pgx.Identifier{key}.Sanitize()
	first := "''"
	if day != "" {
		cols += ", " + pgx.Identifier{day}.Sanitize()
		first = "coalesce(min(" + pgx.Identifier{day}.Sanitize() + ")::text, '')"
	}
	list := fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY %s HAVING count(*) > 1", cols, sanitize(rel), cols)
	n, day1, ok := m.count(fmt.Sprintf("SELECT count(*), %s FROM (%s) x", first, list))
	if !ok || n == 0 {
		return
	}
	since := ""
	if day1 != "" {
		since = ", the first on " + day1
	}
	m.add(at, "list them with: "+list, "%s has %d %s(s) with more than one row%s; the rule is %s", rel, n, what, since, rule)
}

// digits checks that no key holds a run of digits the scrubber would cut
// from an answer: a key cut there would not find its team or agent again.
func (m mapping) digits(at catalog.Pos, rel, what, key string) {
	k := pgx.Identifier{key}.Sanitize()
	list := fmt.Sprintf("SELECT %s FROM %s WHERE %s::text ~ '[0-9]{%d}'", k, sanitize(rel), k, scrub.MinRun)
	n, _, ok := m.count(fmt.Sprintf("SELECT count(*), '' FROM (%s) x", list))
	if ok && n > 0 {
		m.add(at, "present a key with no such run (a surrogate key, or the id with a letter between its digits); list them with: "+list,
			"%s has %d %s key(s) with a run of %d or more digits, which every answer cuts to its last %d (the backstop that keeps phone and member numbers out); "+
				"the rule is that a key survives an answer whole", rel, n, what, scrub.MinRun, scrub.Keep)
	}
}

// ranges checks a history whose rows run from a day to a last day (NULL
// while it holds): per key, each range must start the day after the one
// before it ends.
func (m mapping) ranges(at catalog.Pos, rel, key, what, keyCol, from, to string) {
	k, f, t := pgx.Identifier{keyCol}.Sanitize(), pgx.Identifier{from}.Sanitize(), pgx.Identifier{to}.Sanitize()
	spans := fmt.Sprintf("SELECT %s, %s AS since, %s AS last, lead(%s) OVER (PARTITION BY %s ORDER BY %s) AS next FROM %s", k, f, t, f, k, f, sanitize(rel))
	for _, rule := range []struct{ cond, problem, fix string }{
		{"last < since", "ends before it starts", "make each range's last day on or after its first"},
		{"next IS NOT NULL AND (last IS NULL OR next <= last)", "overlaps the next",
			"end each range the day before the next starts; a last day that is the next range's first (an exclusive end) must be written as the day before it in the view"},
		{"next > last + 1 AND last >= since", "leaves a gap before the next",
			"start each range the day after the one before it ends: a day between ranges would count for the earlier " + what},
	} {
		list := fmt.Sprintf("SELECT * FROM (%s) x WHERE %s", spans, rule.cond)
		n, day1, ok := m.count(fmt.Sprintf("SELECT count(*), coalesce(min(since)::text, '') FROM (%s) y", list))
		if ok && n > 0 {
			m.add(at, rule.fix+"; list them with: "+list, "%s has %d range(s) of %s %s's %s that %s, the first from %s; "+
				"the rule is one %s per %s on every day", rel, n, article(key), key, what, rule.problem, day1, what, key)
		}
	}
}

// loads checks the watermarks: every nightly source has a finished run,
// and no finished run covers an earlier day than one finished before it.
func (m mapping) loads(cat *catalog.Catalog, l *catalog.LoadsRelation) {
	var names []string
	var nightly []*catalog.Source
	for _, s := range cat.Sources() {
		if s.Refresh == catalog.RefreshNightly {
			nightly = append(nightly, s)
			names = append(names, s.Load)
		}
	}
	src, day, fin := pgx.Identifier{l.Source}.Sanitize(), pgx.Identifier{l.Day}.Sanitize(), pgx.Identifier{l.Finished}.Sanitize()
	rel := sanitize(l.Relation)
	rows, err := m.q.Query(m.ctx, fmt.Sprintf("SELECT DISTINCT %s::text FROM %s WHERE %s IS NOT NULL AND %s::text = ANY($1)", src, rel, fin, src), names)
	if err != nil {
		return
	}
	loaded, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, s := range nightly {
		if !slices.Contains(loaded, s.Load) {
			m.add(s.At, "write load: with the value that names this source's runs in "+l.Relation+"."+l.Source+
				" (without load:, the runs must be named by the source's relation)",
				"source %s: no finished run in %s names it (%s = %q), so its figures would never be loaded", s.ID, l.Relation, l.Source, s.Load)
		}
	}
	list := fmt.Sprintf("SELECT * FROM (SELECT %s, %s, %s, max(%s) OVER (PARTITION BY %s ORDER BY %s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS covered_before FROM %s WHERE %s IS NOT NULL) x WHERE %s < covered_before",
		src, day, fin, day, src, fin, rel, fin, day)
	rows, err = m.q.Query(m.ctx, fmt.Sprintf("SELECT %s::text, count(*), min(%s)::text FROM (%s) y WHERE %s::text = ANY($1) GROUP BY 1 ORDER BY 1", src, day, list, src), names)
	if err != nil {
		return
	}
	var name, first string
	var n int64
	pgx.ForEachRow(rows, []any{&name, &n, &first}, func() error {
		m.add(l.At, "record a rerun of earlier days (a backfill) under a name of its own, or leave it out of the view; list them with: "+list,
			"%s: %d finished run(s) of %q cover an earlier day than a run that finished before them, the first %s; "+
				"the rule is that a load's watermark never goes backwards", l.Relation, n, name, first)
		return nil
	})
}

// article is the indefinite article of a noun.
func article(noun string) string {
	if strings.ContainsAny(noun[:1], "aeiou") {
		return "an"
	}
	return "a"
}
