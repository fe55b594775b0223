package dbcheck

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/grants"
	"plumbline/internal/query"
)

// This file checks a database against a catalogue: `plumbline check --db`.

// column is one column the catalogue reads, and where it says so.
type column struct {
	relation, name, use string
	summed              bool
	nullable            bool // the catalogue allows NULL in it
	// seen is the view the reader reads a source's column through, in
	// query.SeenSchema; empty for a relation it reads itself.
	seen string
}

// columnsOf lists every column the catalogue reads: the roster's and each
// source's keys and summed columns.
func columnsOf(cat *catalog.Catalog) []column {
	var out []column
	add := func(rel, use string, summed bool, names ...string) {
		for _, n := range names {
			if n != "" {
				out = append(out, column{relation: rel, name: n, use: use, summed: summed})
			}
		}
	}
	ro := cat.Roster()
	add(ro.Teams.Relation, "roster teams", false, ro.Teams.Key, ro.Teams.Name)
	a := ro.Agents
	add(a.Relation, "roster agents", false, a.Key, a.Name, a.Email, a.Hired, a.Left)
	h := ro.TeamHistory
	add(h.Relation, "roster team_history", false, h.Agent, h.Team, h.From, h.To)
	f := ro.FloorHistory
	add(f.Relation, "roster floor_history", false, f.Team, f.From, f.To, f.CountsAsSales, f.DecidedBy, f.Reason)
	if l := cat.Loads(); l != nil {
		add(l.Relation, "loads", false, l.Source, l.Day, l.Finished)
	}
	if t := cat.Targets(); t != nil {
		add(t.Relation, "targets", false, t.Team, t.Metric, t.PeriodKind, t.PeriodStart, t.SetBy, t.SetAt, t.Reason)
		out = append(out, column{relation: t.Relation, name: t.Value, use: "targets", summed: true})
	}
	for _, s := range cat.Sources() {
		use := "source " + s.ID
		from := len(out)
		add(s.Relation, use, false, s.AgentKey, s.DayKey, s.TimeKey)
		for _, c := range s.Columns {
			out = append(out, column{relation: s.Relation, name: c, use: use, summed: true, nullable: slices.Contains(s.Nullable, c)})
		}
		for i := from; i < len(out); i++ {
			out[i].seen = s.ID
		}
	}
	return out
}

// columnFacts reads, for each column, whether its relation and it exist,
// its type, whether it may hold NULL (a view's column always may: a view
// declares no NOT NULL), whether its relation is a view, and whether the
// reader may select it: in the view it reads a source through ($4, in
// schema $5), or else in the relation itself.
const columnFacts = `
SELECT c.oid IS NOT NULL, a.attnum IS NOT NULL, coalesce(t.typcategory = 'N', false),
       coalesce(format_type(a.atttypid, a.atttypmod), ''), coalesce(NOT a.attnotnull, false), coalesce(c.relkind IN ('v', 'm'), false),
       coalesce(r.oid IS NOT NULL AND a.attnum IS NOT NULL AND
                CASE WHEN w.seen = '' THEN has_column_privilege(r.oid, c.oid, a.attnum, 'SELECT')
                     ELSE sa.attnum IS NOT NULL AND has_column_privilege(r.oid, sc.oid, sa.attnum, 'SELECT') END, false)
FROM unnest($1::text[], $2::text[], $4::text[]) WITH ORDINALITY w(rel, col, seen, i)
LEFT JOIN pg_namespace n ON n.nspname = split_part(w.rel, '.', 1)
LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = split_part(w.rel, '.', 2)
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = w.col AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_roles r ON r.rolname = $3
LEFT JOIN pg_class sc ON sc.relnamespace = to_regnamespace($5) AND sc.relname = w.seen
LEFT JOIN pg_attribute sa ON sa.attrelid = sc.oid AND sa.attname = w.col AND sa.attnum > 0 AND NOT sa.attisdropped
ORDER BY w.i`

// readerFacts reads whether the reader exists, whether the login may become
// it, and which columns it can read that look like member data.
const readerFacts = `
SELECT r.oid IS NOT NULL, coalesce(pg_has_role(session_user, r.oid, 'MEMBER'), false),
       coalesce((SELECT array_agg(n.nspname || '.' || c.relname || '.' || a.attname ORDER BY 1)
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
                   AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND a.attname ~ $2
                   AND has_column_privilege(r.oid, c.oid, a.attnum, 'SELECT')), '{}')
FROM (SELECT $1::text AS name) want LEFT JOIN pg_roles r ON r.rolname = want.name`

// CheckCatalog checks that every relation and column the catalogue reads
// exists, that summed columns are numeric and hold NULL only where the
// catalogue lists them as nullable, that the reader (the role
// reports run as) can read them and the login can become the reader, that
// every relation has a reviewed grant file, and that the reader can read no
// column that looks like member data. It returns one line per problem.
func CheckCatalog(ctx context.Context, q Querier, cat *catalog.Catalog, gs []*grants.Grant, reader string) ([]string, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	var exists, member bool
	var looksLikeMemberData []string
	err := q.QueryRow(ctx, readerFacts, reader, grants.MemberData.String()).Scan(&exists, &member, &looksLikeMemberData)
	if err != nil {
		return nil, fmt.Errorf("check the reader role: %w", err)
	}
	switch {
	case !exists:
		add("the reader role %s does not exist; create it with plumbline setup", reader)
	case !member:
		add("this login is not a member of the reader role %s, which reports run as", reader)
	}
	for _, col := range looksLikeMemberData {
		add("%s: the reader can read it and its name looks like member data; revoke it", col)
	}

	cols := columnsOf(cat)
	rels, names, seen := make([]string, len(cols)), make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		rels[i], names[i], seen[i] = c.relation, c.name, c.seen
	}
	rows, err := q.Query(ctx, columnFacts, rels, names, reader, seen, query.SeenSchema)
	if err != nil {
		return nil, fmt.Errorf("check the catalogue's columns: %w", err)
	}
	i := 0
	missingRel := map[string]bool{}
	var relExists, colExists, numeric, nullable, view, readable bool
	var typ string
	var inViews []column // summed columns of views the catalogue does not list as nullable
	_, err = pgx.ForEachRow(rows, []any{&relExists, &colExists, &numeric, &typ, &nullable, &view, &readable}, func() error {
		c := cols[i]
		i++
		switch {
		case !relExists:
			if !missingRel[c.relation] {
				add("%s (%s): the relation does not exist", c.relation, c.use)
			}
			missingRel[c.relation] = true
		case !colExists:
			add("%s.%s (%s): the column does not exist", c.relation, c.name, c.use)
		case c.summed && !numeric:
			add("%s.%s (%s): is %s, not a number; a summed column must be numeric", c.relation, c.name, c.use, typ)
		case c.summed && view && !c.nullable:
			inViews = append(inViews, c)
		case c.summed && nullable && !c.nullable:
			add("%s.%s (%s): can hold NULL, but the catalogue does not list it under the source's nullable:; "+
				"list it there (its metrics then need nulls: leave_out) or make the column NOT NULL", c.relation, c.name, c.use)
		case !readable && exists && c.seen != "":
			add("%s.%s (%s): the reader role %s cannot read it through %s.%s, the view that filters it by reach; "+
				"grant it in the relation's grant file and run plumbline setup", c.relation, c.name, c.use, reader, query.SeenSchema, c.seen)
		case !readable && exists:
			add("%s.%s (%s): the reader role %s cannot read it; grant it in the relation's grant file and apply the grants", c.relation, c.name, c.use, reader)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check the catalogue's columns: %w", err)
	}

	for _, c := range inViews {
		var nulls int64
		stmt := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", sanitize(c.relation), pgx.Identifier{c.name}.Sanitize())
		if q.QueryRow(ctx, stmt).Scan(&nulls) == nil && nulls > 0 {
			add("%s.%s (%s): holds NULL in %d rows, but the catalogue does not list it under the source's nullable: (a view declares no NOT NULL, "+
				"so its rows are read); list it there (its metrics then need nulls: leave_out), or give the view a value where it has none",
				c.relation, c.name, c.use, nulls)
		}
	}
	for _, rel := range grants.Ungranted(cat, gs) {
		add("%s: no grant file names it; add %s.sql with its grain and review to the grants directory", rel, rel)
	}
	if t := cat.Targets(); t != nil && !missingRel[t.Relation] {
		targetProblems(ctx, q, cat, t, add)
	}
	sort.Strings(problems)
	return slices.Compact(problems), nil
}

// targetProblems checks the rows of the targets relation against the
// catalogue: each names a metric the catalogue gives a target: rule, over a
// kind of period the rule sets its targets for. A relation or column that is missing has been reported
// already, so a query that fails adds nothing.
func targetProblems(ctx context.Context, q Querier, cat *catalog.Catalog, t *catalog.TargetsRelation, add func(string, ...any)) {
	stmt := fmt.Sprintf("SELECT DISTINCT %s::text, %s::text FROM %s ORDER BY 1, 2", pgx.Identifier{t.Metric}.Sanitize(),
		pgx.Identifier{t.PeriodKind}.Sanitize(), sanitize(t.Relation))
	rows, err := q.Query(ctx, stmt)
	if err != nil {
		return
	}
	var metric, kind string
	pgx.ForEachRow(rows, []any{&metric, &kind}, func() error {
		m, ok := cat.Metric(metric)
		switch {
		case !ok || m.Target == nil:
			add("%s: holds targets for %q, which is not a metric with a target: rule in the catalogue; add target: to the metric, or remove the rows",
				t.Relation, metric)
		case !slices.Contains(catalog.TargetPeriods, kind):
			add("%s: holds targets over periods of kind %q; a target is set over a week or a month", t.Relation, kind)
		case !m.Target.SetFor(kind):
			add("%s: holds %s targets by %s, but the catalogue sets them by %s only, so answers never read them; add %s to the metric's target periods, or remove the rows",
				t.Relation, metric, kind, strings.Join(m.Target.Periods, " and "), kind)
		}
		return nil
	})
}

// analystReach lists the relations a role can read any column of.
const analystReach = `
SELECT coalesce(array_agg(n.nspname || '.' || c.relname ORDER BY 1), '{}')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
  AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND has_any_column_privilege($1, c.oid, 'SELECT')`

// CheckAnalyst checks the analyst role against its grant files, for
// `plumbline check --db`: the role exists, can read every relation a file
// names, can read no other, and can read no column that looks like member
// data. It returns one line per problem.
func CheckAnalyst(ctx context.Context, q Querier, gs []*grants.Grant, analyst string) ([]string, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var exists, member bool
	var looksLikeMemberData []string
	err := q.QueryRow(ctx, readerFacts, analyst, grants.MemberData.String()).Scan(&exists, &member, &looksLikeMemberData)
	if err != nil {
		return nil, fmt.Errorf("check the analyst role: %w", err)
	}
	if !exists {
		return []string{fmt.Sprintf("the analyst role %s does not exist; create it with plumbline setup", analyst)}, nil
	}
	for _, col := range looksLikeMemberData {
		add("%s: the analyst can read it and its name looks like member data; revoke it", col)
	}
	var readable []string
	if err := q.QueryRow(ctx, analystReach, analyst).Scan(&readable); err != nil {
		return nil, fmt.Errorf("check the analyst role: %w", err)
	}
	granted := grants.Relations(gs)
	for _, rel := range granted {
		if !slices.Contains(readable, rel) {
			add("%s: an analyst grant file names it but the analyst role %s cannot read it; apply the grants (plumbline setup)", rel, analyst)
		}
	}
	for _, rel := range readable {
		if !slices.Contains(granted, rel) {
			add("%s: the analyst role %s can read it but no analyst grant file names it; revoke it", rel, analyst)
		}
	}
	return problems, nil
}

// sanitize quotes a schema-qualified relation name.
func sanitize(relation string) string {
	schema, name, _ := strings.Cut(relation, ".")
	return pgx.Identifier{schema, name}.Sanitize()
}
