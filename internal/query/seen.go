package query

import (
	"fmt"
	"strings"
	"time"

	"plumbline/catalog"
)

// This file holds the views the reader reads figures through: one per
// source, in schema SeenSchema, returning only the rows the transaction's
// caller may see by their reach (plumbline.reach). The engine refuses a
// request outside a caller's reach before any SQL runs; these views are the
// database's own enforcement of the same rule, so that a report that asked
// for a team outside it would get no rows even if the engine's check were
// gone.
//
// The views are not security barriers. A barrier would keep the planner
// from reaching a team's agents by their index (at 960 agents a team's
// report took 4.8 times as long), and what it guards against, a function in
// the querying statement that shows rows before the filter drops them, has
// no way in: the reader runs only the statements plumbline builds, and may
// create no function, type or table anywhere.
//
// A transaction names its caller in three settings, which pgstore sets in
// every transaction: CallerSetting (the person's id), DaySetting (the
// call's day on the floor, which dates the rows of reach and the teams)
// and DefaultReachSetting (what a person with no row in force sees: floor
// or none). PostgreSQL lets any role set a setting of these names, so the
// settings are trusted only because only the reader may read the views,
// and only plumbline's server login is a member of the reader: the
// analyst's door, the one place a statement is written by someone else,
// signs in as a login of its own that cannot read them.

// The settings a transaction names its caller in.
const (
	CallerSetting       = "plumbline.caller"
	DaySetting          = "plumbline.day"
	DefaultReachSetting = "plumbline.default_reach"
)

// ReachFunction is the function the views call for what the transaction's
// caller may see; the reader alone may execute it.
const ReachFunction = SeenSchema + ".caller_reach()"

// keptSetting holds, on a connection, what its last caller may see, as
// ReachFunction read it.
const keptSetting = "plumbline.reach_kept"

// ReachKept is how long the database keeps what a caller may see, on the
// connection that read it, for the next statements that ask: as long as
// the engine keeps a person's reach (members.DefaultReachTTL), so that a
// change of the roster's history holds in both within it. A change of
// reach itself holds from the next transaction.
const ReachKept = 30 * time.Second

// SeenSchema is the schema of the views that filter each source by the
// caller's reach.
const SeenSchema = "plumbline_seen"

// Seen is the view the engine reads a source through, quoted: its rows
// that the transaction's caller may see.
func Seen(src *catalog.Source) string { return relation(SeenNames(src)[0]) }

// Begins is the view of when a source's data begins, whoever asks, quoted:
// one row, the first value of its day or time column. How far a source is
// loaded is the same for every caller, and is kept once for all of them.
func Begins(src *catalog.Source) string { return relation(SeenNames(src)[1]) }

// Totals is the view of a source's rows that count for the floor's totals,
// quoted, for a caller who may see those (ask.Reach.Totals): every row
// of an agent on a team on the floor that day, saying neither the agent
// (its agent key is a digest that changes with every transaction, so that
// a figure over two sources still joins an agent's day) nor the team.
func Totals(src *catalog.Source) string { return relation(SeenNames(src)[2]) }

// SeenNames names, as schema.name, the views the reader reads a source
// through: Seen's, Begins' and Totals', and Rolled's when the source is
// rolled up.
func SeenNames(src *catalog.Source) []string {
	names := []string{SeenSchema + "." + src.ID, SeenSchema + "." + src.ID + ":begins", SeenSchema + "." + src.ID + ":totals"}
	if src.Rollup != "" {
		names = append(names, SeenSchema+"."+src.ID+":by_team")
	}
	return names
}

// SeenGrant is the SQL that lets role read what the reader reads cat's
// sources through: the schema, ReachFunction, every source's views
// (SeenNames) and, with rollups, RollupsRelation and RefreshFunction.
// Sources for which read says false are left out.
func SeenGrant(cat *catalog.Catalog, role string, read func(*catalog.Source) bool) string {
	role = ident(role)
	var b strings.Builder
	fmt.Fprintf(&b, "GRANT USAGE ON SCHEMA %s TO %s;\nGRANT EXECUTE ON FUNCTION %s TO %s;\n", SeenSchema, role, ReachFunction, role)
	rollups := false
	for _, src := range cat.Sources() {
		if !read(src) {
			continue
		}
		var views []string
		for _, name := range SeenNames(src) {
			views = append(views, relation(name))
		}
		fmt.Fprintf(&b, "GRANT SELECT ON %s TO %s;\n", strings.Join(views, ", "), role)
		rollups = rollups || src.Rollup != ""
	}
	if rollups {
		fmt.Fprintf(&b, "GRANT SELECT ON %s TO %s;\nGRANT EXECUTE ON FUNCTION %s TO %s;\n", RollupsRelation, role, RefreshFunction, role)
	}
	return b.String()
}

// SeenViews returns the SQL that creates SeenSchema and its views for every
// source of the catalogue, replacing any there were. Its owner must be able
// to read the sources, the roster's team history and plumbline.reach; the
// reader is given the views by the grants (internal/grants).
//
// A row of a source is seen when the caller sees the floor; when it is
// their own agent's (own); when its agent is on one of the caller's teams
// on the call's day, so that an agent's whole report is theirs to read; or
// when its agent was on one of those teams on the row's day, so that a
// team's report holds the days of those who have since moved on. What a
// person sees on the day is the union of the rows of reach in force for
// them and their groups, or the default when none is: the same rule the
// engine applies (internal/members).
func SeenViews(cat *catalog.Catalog) string {
	// Only the histories of agents ever on the caller's teams are walked.
	h := cat.Roster().TeamHistory
	spans, _, err := teamSpans(cat).Where(fmt.Sprintf("h.%s IN (SELECT e.%s FROM %s e WHERE e.%s IN (SELECT r.team_key FROM r WHERE r.sees = 'team'))",
		ident(h.Agent), ident(h.Agent), relation(h.Relation), ident(h.Team))).ToSql()
	if err != nil {
		panic(err) // a constant shape with no arguments
	}
	var b strings.Builder
	fmt.Fprintf(&b, `DROP SCHEMA IF EXISTS %[1]s CASCADE;
CREATE SCHEMA %[1]s;
REVOKE ALL ON SCHEMA %[1]s FROM PUBLIC;

-- Whom the transaction is for, and what they may see on its day: whether
-- the whole floor; whether its totals; the agents whose rows are all theirs to read (their own
-- agent, and the agents on their teams that day); and the spans of days
-- of the agents who were on one of their teams and are no longer.
CREATE TYPE %[1]s.span AS (agent text, since date, until date);
CREATE TYPE %[1]s.reach AS (floor boolean, totals boolean, agents text[], past %[1]s.span[]);
CREATE VIEW %[1]s.reach_of_caller AS
WITH c AS (
    SELECT nullif(current_setting('%[2]s', true), '') AS person,
           nullif(current_setting('%[3]s', true), '')::date AS day,
           coalesce(current_setting('%[4]s', true), '') AS fallback
), r AS (
    SELECT x.sees, x.team_key FROM c, %[7]s
), spans AS (
    SELECT t.agent::text AS agent, t.since, t.until, t.since <= c.day AND (t.until IS NULL OR t.until > c.day) AS now
    FROM (%[5]s) t, c
    WHERE t.team IN (SELECT r.team_key FROM r WHERE r.sees = 'team')
), f AS (
    SELECT CASE WHEN EXISTS (SELECT FROM r) THEN EXISTS (SELECT FROM r WHERE r.sees = 'floor')
                ELSE c.fallback = 'floor' END AS floor,
           c.person
    FROM c
)
SELECT f.floor,
       f.floor OR EXISTS (SELECT FROM r WHERE r.sees = 'totals') AS totals,
       CASE WHEN f.floor THEN '{}'
            ELSE ARRAY(SELECT f.person WHERE EXISTS (SELECT FROM r WHERE r.sees = 'own')
                       UNION SELECT s.agent FROM spans s WHERE s.now) END AS agents,
       CASE WHEN f.floor THEN '{}'
            ELSE ARRAY(SELECT ROW(s.agent, s.since, s.until)::%[1]s.span FROM spans s
                       WHERE s.agent NOT IN (SELECT n.agent FROM spans n WHERE n.now)) END AS past
FROM f;

-- The same, read by a function with a plan of its own, so that a report's
-- plan holds one call where it would hold the view's every node. It keeps
-- what it read on the connection, in %[6]s, under a digest of the three
-- settings and of plumbline.reach_version, which moves whenever a row of
-- reach or of a group's members changes, for %[8]d seconds from the start
-- of the transaction that read it: a transaction sees one reach
-- throughout, a change of reach is seen by the next transaction, and a
-- change of the roster's history within %[8]d seconds, as the engine's own
-- reading of reach. (The function sets no search_path, which would undo
-- that setting as it returns; every name in it is qualified, and the
-- reader can create nothing to shadow one.)
CREATE FUNCTION %[1]s.caller_reach() RETURNS %[1]s.reach
LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
DECLARE
    key text := pg_catalog.md5(pg_catalog.concat_ws(E'\n', pg_catalog.current_setting('%[2]s', true),
        pg_catalog.current_setting('%[3]s', true), pg_catalog.current_setting('%[4]s', true),
        pg_catalog.pg_sequence_last_value('plumbline.reach_version')));
    kept text := pg_catalog.current_setting('%[6]s', true);
    at bigint := pg_catalog.date_part('epoch', pg_catalog.now());
    out %[1]s.reach;
BEGIN
    IF pg_catalog.left(kept, 32) = key AND pg_catalog.split_part(pg_catalog.split_part(kept, E'\n', 1), ' ', 2)::bigint > at THEN
        RETURN pg_catalog.substr(kept, pg_catalog.strpos(kept, E'\n') + 1)::%[1]s.reach;
    END IF;
    SELECT * INTO out FROM %[1]s.reach_of_caller;
    PERFORM pg_catalog.set_config('%[6]s', key || ' ' || (at + %[8]d) || E'\n' || out::text, false);
    RETURN out;
END $$;
REVOKE ALL ON FUNCTION %[1]s.caller_reach() FROM PUBLIC;
`, SeenSchema, CallerSetting, DaySetting, DefaultReachSetting, spans, keptSetting, ReachInForce("c.person", "c.day"), int(ReachKept.Seconds()))
	for _, src := range cat.Sources() {
		agent := "s." + ident(src.AgentKey)
		day, first := "s."+ident(src.DayKey), ident(src.DayKey)
		if src.Grain == catalog.GrainAgentEvent {
			day = fmt.Sprintf("(s.%s AT TIME ZONE %s)::date", ident(src.TimeKey), literal(cat.Zone().String()))
			first = ident(src.TimeKey)
		}
		fmt.Fprintf(&b, `
-- %[3]s as the caller may see it.
CREATE VIEW %[2]s AS
SELECT s.* FROM %[3]s s
WHERE (SELECT (%[1]s.caller_reach()).floor)
   OR %[4]s::text = ANY ((SELECT (%[1]s.caller_reach()).agents)::text[])
   OR EXISTS (SELECT FROM unnest((SELECT (%[1]s.caller_reach()).past)) p
              WHERE p.agent = %[4]s::text AND p.since <= %[5]s AND (p.until IS NULL OR p.until > %[5]s));
CREATE VIEW %[6]s AS SELECT min(%[7]s) AS first FROM %[3]s;
`, SeenSchema, Seen(src), relation(src.Relation), agent, day, Begins(src), first)
		// Its columns are the source's as the database has them, so that a
		// column the catalogue names and the source lacks leaves the view to
		// be made and check --db to say so.
		fmt.Fprintf(&b, `
-- %[3]s's rows that count for the floor's totals, as a caller who sees
-- those may: no agent's or team's.
DO $do$
BEGIN
    EXECUTE 'CREATE VIEW %[2]s AS SELECT ' || (
        SELECT pg_catalog.string_agg(CASE WHEN a.attname = %[5]s
                THEN pg_catalog.format('pg_catalog.md5(s.%%I::text || pg_catalog.now()::text) AS %%I', a.attname, a.attname)
                ELSE pg_catalog.format('s.%%I', a.attname) END, ', ' ORDER BY a.attnum)
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = %[6]s::regclass AND a.attnum > 0 AND NOT a.attisdropped) || $v$ FROM %[3]s s
%[4]s
WHERE f.counts AND (SELECT (%[1]s.caller_reach()).totals)$v$;
END $do$;
`, SeenSchema, Totals(src), relation(src.Relation), teamAndFloor(cat, agent, day), literal(src.AgentKey), literal(relation(src.Relation)))
	}
	b.WriteString(rollupViews(cat))
	return b.String()
}

// ReachInForce is a FROM item and its condition, "plumbline.reach x WHERE
// …": the rows of reach, as x, in force on day for person and for every
// group they are in, where person and day are SQL expressions. The engine
// reads them (internal/members) and so does the database's own filter.
func ReachInForce(person, day string) string {
	return fmt.Sprintf(`plumbline.reach x
    WHERE (x.person_id = %[1]s
           OR x.group_id IN (SELECT g.group_id FROM plumbline.group_members g WHERE g.person_id = %[1]s))
      AND x.from_day <= %[2]s AND (x.to_day IS NULL OR x.to_day >= %[2]s)`, person, day)
}

// teamAndFloor joins the rows of a source, whose agent and day are the SQL
// expressions given, to the team the agent was on that day (t) and that
// team's place on the floor that day (f): "WHERE f.counts" keeps the rows
// that count for the floor.
func teamAndFloor(cat *catalog.Catalog, agent, day string) string {
	teams, _, _ := teamSpans(cat).ToSql() // constant shapes with no arguments
	floor, _, _ := floorSpans(cat).ToSql()
	return fmt.Sprintf(`JOIN (%[1]s) t ON t.agent = %[3]s AND %[4]s >= t.since AND (t.until IS NULL OR %[4]s < t.until)
JOIN (%[2]s) f ON f.team = t.team AND %[4]s >= f.since AND (f.until IS NULL OR %[4]s < f.until)`, teams, floor, agent, day)
}

// literal quotes a string as an SQL literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
