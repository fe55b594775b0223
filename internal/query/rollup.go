package query

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"plumbline/catalog"
	"plumbline/reports/ask"
)

// This file holds the rollups: for a source that declares one
// (catalog.RollupTeamDay), a table of its metrics' parts summed by team and
// day over the days each team counted on the floor, which the floor's
// reports read instead of every agent-day. plumbline builds it, and builds
// it again when the source's finished loads, the roster's histories or the
// source's rows change (RefreshFunction), never on a request. A report reads
// a rollup only while it was built from the loads as they are now and by
// the catalogue the server runs: otherwise the same statement reads the
// agent-days, so an answer is the same either way.

// RollupsRelation records, for every rolled-up source, what its rollup was
// built from and when: the definition's digest, the loads and the roster it
// read, the time the build took and the rows it made.
const RollupsRelation = SeenSchema + ".rollups"

// RefreshFunction builds again every rollup whose source, loads or roster
// changed since it was built, or whose definition did, and returns for
// each it built the source's id, the rows made and the milliseconds taken.
// The reader may execute it, in a transaction that may write.
const RefreshFunction = SeenSchema + ".refresh_rollups()"

// Rolled is the view of a rolled-up source's rollup, quoted: its rows, to a
// caller who sees the whole floor.
func Rolled(src *catalog.Source) string { return relation(SeenNames(src)[3]) }

// rollupTable is the table that holds a source's rollup, quoted; only its
// owner reads it.
func rollupTable(src *catalog.Source) string {
	return relation(SeenSchema + "." + src.ID + ":" + catalog.RollupTeamDay)
}

// rolledMetrics are the metrics a source's rollup sums: those whose every
// part reads that source.
func rolledMetrics(cat *catalog.Catalog, src *catalog.Source) []*catalog.Metric {
	var out []*catalog.Metric
	for _, m := range cat.Metrics() {
		if !cross(m) && m.Sources()[0] == src {
			out = append(out, m)
		}
	}
	return out
}

// Rollup column names: part i of metric m summed over the agent-days it
// kept, and those agent-days kept and left out.
func partColumn(m *catalog.Metric, i int) string { return ident(fmt.Sprintf("%s:p%d", m.ID, i)) }
func keptColumn(m *catalog.Metric) string        { return ident(m.ID + ":k") }
func leftColumn(m *catalog.Metric) string        { return ident(m.ID + ":l") }

// rollupSelect is the statement a source's rollup is built by: every
// metric's parts summed by team and day, over the agent-days of teams on
// the floor that day, up to the source's load watermark. Its rows come in
// order of day, so that a period's rows lie together on few pages.
func rollupSelect(cat *catalog.Catalog, src *catalog.Source) string {
	col := func(name string) string { return "s." + ident(name) }
	cols := []string{"t.team", "s." + ident(src.DayKey) + " AS day"}
	for _, m := range rolledMetrics(cat, src) {
		cond := known(m, col)
		for i, part := range m.Parts() {
			expr := "(" + part.Expr.SQL(col) + ")"
			if m.LeaveOut {
				expr = "CASE WHEN " + cond + " THEN " + expr + " END"
			}
			cols = append(cols, fmt.Sprintf("sum(%s) AS %s", expr, partColumn(m, i)))
		}
		cols = append(cols, fmt.Sprintf("count(*) FILTER (WHERE %s) AS %s", cond, keptColumn(m)),
			fmt.Sprintf("count(*) FILTER (WHERE NOT (%s)) AS %s", cond, leftColumn(m)))
	}
	day := col(src.DayKey)
	return fmt.Sprintf(`SELECT %s
FROM %s s
%s
WHERE f.counts AND %s <= %s
GROUP BY 1, 2
ORDER BY 2, 1`, strings.Join(cols, ", "), relation(src.Relation), teamAndFloor(cat, col(src.AgentKey), day), day, watermark(cat, "max", literal(src.Load)))
}

// rollupDigest names a rollup's definition: a rollup built by another
// catalogue's definition is not read.
func rollupDigest(cat *catalog.Catalog, src *catalog.Source) string {
	sum := sha256.Sum256([]byte(rollupSelect(cat, src)))
	return hex.EncodeToString(sum[:8])
}

// loadStamp is an expression that changes whenever a load of src finishes
// or a finished one is run again: the number of finished runs and the
// newest finish, as text that no session setting changes. source is the
// SQL for the source's name in the loads relation.
func loadStamp(cat *catalog.Catalog, source string) string {
	return finishedLoads(cat, "count(*)::text || ' ' || coalesce(extract(epoch FROM max(l."+ident(cat.Loads().Finished)+"))::text, '')", source)
}

// rolledUp returns the catalogue's rolled-up sources.
func rolledUp(cat *catalog.Catalog) []*catalog.Source {
	var out []*catalog.Source
	for _, src := range cat.Sources() {
		if src.Rollup != "" {
			out = append(out, src)
		}
	}
	return out
}

// Rollups reports whether the catalogue declares any rollup.
func Rollups(cat *catalog.Catalog) bool { return len(rolledUp(cat)) > 0 }

// rollupViews returns the SQL that creates the rollups of cat's rolled-up
// sources, their views and RefreshFunction, in SeenSchema; the rollups
// start empty, and are read only once RefreshFunction has built them.
func rollupViews(cat *catalog.Catalog) string {
	srcs := rolledUp(cat)
	if len(srcs) == 0 {
		return ""
	}
	var b, refresh strings.Builder
	fmt.Fprintf(&b, `
-- What each rollup was built from, and when.
CREATE TABLE %[1]s (
    source text PRIMARY KEY,
    definition text NOT NULL,
    loads text,
    changes text,
    refreshed_at timestamptz NOT NULL,
    took_ms double precision NOT NULL,
    row_count bigint NOT NULL
);
`, RollupsRelation)
	h, f := cat.Roster().TeamHistory, cat.Roster().FloorHistory
	for _, src := range srcs {
		// The columns take the types of the sums: integers stay integers.
		// A source whose columns are not what the catalogue says gets a
		// rollup of no figures, which no build can fill and no report
		// reads, so that setup goes on and check --db says what is wrong.
		fmt.Fprintf(&b, `
-- %[2]s summed by team and day, and the view the reader reads it through:
-- to a caller who sees the whole floor, every row.
DO $do$
BEGIN
    CREATE TABLE %[1]s AS %[3]s WITH NO DATA;
EXCEPTION WHEN undefined_column OR undefined_function OR datatype_mismatch OR undefined_table THEN
    CREATE TABLE %[1]s (team text, day date);
END $do$;
ALTER TABLE %[1]s ADD PRIMARY KEY (day, team);
CREATE VIEW %[4]s AS SELECT r.* FROM %[1]s r WHERE (SELECT (%[5]s.caller_reach()).floor);
`, rollupTable(src), relation(src.Relation), rollupSelect(cat, src), Rolled(src), SeenSchema)
		// The rows of a source and of the roster may change outside a
		// load: the statistics' counts of rows written catch that, late
		// by up to a second, and the next refresh builds again.
		fmt.Fprintf(&refresh, `
    loads_now := %[1]s;
    changes_now := (SELECT pg_catalog.concat_ws(' ', sum(t.n_tup_ins), sum(t.n_tup_upd), sum(t.n_tup_del))
        FROM pg_catalog.pg_stat_all_tables t WHERE t.relid IN (%[2]s::regclass, %[3]s::regclass, %[4]s::regclass));
    IF NOT EXISTS (SELECT FROM %[5]s r WHERE r.source = %[6]s AND r.definition = %[7]s
                   AND r.loads IS NOT DISTINCT FROM loads_now AND r.changes IS NOT DISTINCT FROM changes_now) THEN
        started := pg_catalog.clock_timestamp();
        DELETE FROM %[8]s;
        INSERT INTO %[8]s %[9]s;
        GET DIAGNOSTICS n = ROW_COUNT;
        rolled := %[6]s;
        row_count := n;
        took_ms := 1000 * pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - started);
        INSERT INTO %[5]s AS r VALUES (rolled, %[7]s, loads_now, changes_now, pg_catalog.now(), took_ms, n)
        ON CONFLICT (source) DO UPDATE SET definition = excluded.definition, loads = excluded.loads,
            changes = excluded.changes, refreshed_at = excluded.refreshed_at, took_ms = excluded.took_ms,
            row_count = excluded.row_count;
        RETURN NEXT;
    END IF;
`, loadStamp(cat, literal(src.Load)), literal(relation(src.Relation)), literal(relation(h.Relation)), literal(relation(f.Relation)),
			RollupsRelation, literal(src.ID), literal(rollupDigest(cat, src)), rollupTable(src), rollupSelect(cat, src))
	}
	fmt.Fprintf(&b, `
-- Builds again every rollup whose definition, loads, source or roster
-- changed since it was built; one refresh at a time. It runs with its
-- owner's rights, so it names every relation by its schema and looks up
-- nothing else anywhere but pg_catalog.
CREATE FUNCTION %[1]s RETURNS TABLE (rolled text, row_count bigint, took_ms double precision)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    loads_now text;
    changes_now text;
    started timestamptz;
    n bigint;
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(%[2]d);
%[3]s
END $$;
REVOKE ALL ON FUNCTION %[1]s FROM PUBLIC;
`, RefreshFunction, refreshLock, refresh.String())
	return b.String()
}

// refreshLock is the advisory lock a refresh holds, so that two servers
// do not build the same rollups at once.
const refreshLock = 0x706c756d62 // "plumb"

// fresh is the condition, for a statement, that every rollup of srcs was
// built by this catalogue's definition from the loads as they are now.
func (b *builder) fresh(srcs []*catalog.Source) sq.Sqlizer {
	var conds []string
	var args []any
	for _, src := range srcs {
		conds = append(conds, fmt.Sprintf("coalesce((SELECT u.definition = ? AND u.loads = %s FROM %s u WHERE u.source = ?), false)",
			loadStamp(b.cat, "?"), RollupsRelation))
		args = append(args, rollupDigest(b.cat, src), src.Load, src.ID)
	}
	return sq.Expr("("+strings.Join(conds, " AND ")+")", args...)
}

// rolled returns the sources a plan reads through their rollups, or nil
// when it reads agent-days: a rollup serves the floor's figures, for a
// caller who sees the whole floor, by team or over time, of metrics that
// each read one rolled-up source.
func (b *builder) rolled() []*catalog.Source {
	p := b.plan
	if p.Scope.Kind != ask.ScopeFloor || p.Scope.Totals || p.GroupBy == catalog.GroupAgent {
		return nil
	}
	var out []*catalog.Source
	for _, m := range p.Metrics {
		src := m.Sources()[0]
		if cross(m) || src.Rollup == "" {
			return nil
		}
		if !contains(out, src) {
			out = append(out, src)
		}
	}
	return out
}

// rolledBranch selects a rollup's rows in the period as (team, day, p…,
// k…, l…), while the rollups are fresh.
func (b *builder) rolledBranch(src *catalog.Source) sq.Sqlizer {
	q := sq.Select("r.team", "r.day")
	i := 0
	for _, m := range b.plan.Metrics {
		for n := range m.Parts() {
			if m.Sources()[0] == src {
				q = q.Column(fmt.Sprintf("r.%s AS p%d", partColumn(m, n), i))
			} else {
				q = q.Column(fmt.Sprintf("NULL AS p%d", i))
			}
			i++
		}
	}
	for j, m := range b.plan.Metrics {
		if m.Sources()[0] == src {
			q = q.Column(fmt.Sprintf("r.%s AS k%d", keptColumn(m), j)).Column(fmt.Sprintf("r.%s AS l%d", leftColumn(m), j))
		} else {
			q = q.Column(fmt.Sprintf("0 AS k%d", j)).Column(fmt.Sprintf("0 AS l%d", j))
		}
	}
	return q.From(Rolled(src) + " r").Where(sq.Expr("r.day BETWEEN ? AND ?", b.plan.Period.Start, b.plan.Period.End)).
		Where("(SELECT ok FROM fresh)")
}

// teamed gives every row its team: the rollups' rows while they are fresh
// (the CTE fresh, read once), and otherwise the agent-days joined to their
// spans. The agent-days come first, so that the union takes its columns'
// types from them.
func (b *builder) teamed(srcs []*catalog.Source) []string {
	fresh := "fresh AS (SELECT " + b.add("", b.fresh(srcs)) + " AS ok)"
	cols := []string{"t.team", "x.day"}
	for i := range b.plan.Parts() {
		cols = append(cols, fmt.Sprintf("x.p%d", i))
	}
	for j := range b.plan.Metrics {
		cols = append(cols, fmt.Sprintf("x.k%d", j), fmt.Sprintf("x.l%d", j))
	}
	branches := []string{b.add("", sq.Select(cols...).From("facts x").
		Join("spans t ON t.agent = x.agent AND x.day >= t.since AND (t.until IS NULL OR x.day < t.until)").
		Where("NOT (SELECT ok FROM fresh)"))}
	for _, src := range srcs {
		branches = append(branches, b.add("", b.rolledBranch(src)))
	}
	return []string{fresh, "teamed AS (" + strings.Join(branches, " UNION ALL ") + ")"}
}
