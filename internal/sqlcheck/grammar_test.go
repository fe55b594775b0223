package sqlcheck_test

import (
	"fmt"
	"slices"
	"strings"
)

// This file holds a small grammar of SELECTs over the demo floor, driven
// by a fuzzer's bytes: every string it makes is a SELECT over the floor's
// relations and columns (those the analyst may read and a few it may not),
// calling functions on the allow-list and off it, through every form of
// call the grammar knows: calls, attribute notation (alias.name and
// (expression).name), casts, typed literals, operators (in expressions, in
// ANY and ALL, in ORDER BY … USING) and the SQL syntax PostgreSQL turns
// into calls (EXTRACT, AT TIME ZONE, LIKE … ESCAPE, COLLATION FOR, …).
// Most of what it makes is well typed, so that PostgreSQL gets past the
// parser and plans it.

// typ is an expression's type, as the grammar sees it.
type typ int

const (
	tInt typ = iota
	tNum
	tText
	tDate
	tTime // timestamptz
	tBool
	tAny // anything, as a select list or to_json takes it
	nTypes
)

// col is a column of a relation.
type col struct {
	name string
	t    typ
}

// rel is a relation of the demo floor.
type rel struct {
	name string
	cols []col
}

// floorRelations are the floor's relations: the analyst's eight first,
// then some it may not read.
var floorRelations = []rel{
	{"analytics.dim_team", []col{{"team_key", tText}, {"team_name", tText}, {"lead_agent_key", tText}}},
	{"analytics.dim_agent", []col{{"agent_key", tText}, {"full_name", tText}, {"hired_on", tDate}, {"left_on", tDate}, {"email", tText}}},
	{"analytics.agent_team_history", []col{{"agent_key", tText}, {"team_key", tText}, {"effective_from", tDate}}},
	{"analytics.team_floor_history", []col{{"team_key", tText}, {"effective_from", tDate}, {"counts_as_sales", tBool}, {"decided_by", tText}, {"reason", tText}}},
	{"metrics.agent_time_daily", []col{{"agent_key", tText}, {"day", tDate}, {"logged_hours", tNum}, {"available_hours", tNum}, {"talk_hours", tNum}}},
	{"metrics.agent_sales_daily", []col{{"agent_key", tText}, {"day", tDate}, {"submitted", tInt}, {"lost", tInt}, {"approved", tInt}}},
	{"metrics.agent_quality_daily", []col{{"agent_key", tText}, {"day", tDate}, {"audits_passed", tInt}, {"audits_failed", tInt}}},
	{"live.sales_board", []col{{"agent_key", tText}, {"entered_at", tTime}, {"sales", tInt}}},
	{"crm.member_calls", []col{{"agent_key", tText}, {"member_name", tText}, {"date_of_birth", tDate}, {"transcript", tText}}},
	{"metrics.load_runs", []col{{"relation", tText}, {"covers_day", tDate}, {"row_count", tInt}}},
	{"analytics.targets", []col{{"team_key", tText}, {"metric", tText}, {"value", tNum}}},
	{"pg_catalog.pg_class", []col{{"relname", tText}, {"relpages", tInt}}},
}

// fn is a function the grammar calls: its name, its arguments' types and
// its result's.
type fn struct {
	name string
	args []typ
	t    typ
}

// floorFunctions are functions on the allow-list and off it, plain and
// aggregate, of the floor's types.
var floorFunctions = []fn{
	{"upper", []typ{tText}, tText}, {"lower", []typ{tText}, tText}, {"length", []typ{tText}, tInt},
	{"lpad", []typ{tText, tInt, tText}, tText}, {"left", []typ{tText, tInt}, tText}, {"md5", []typ{tText}, tText},
	{"concat", []typ{tAny, tAny}, tText}, {"abs", []typ{tInt}, tInt}, {"round", []typ{tNum, tInt}, tNum},
	{"date_trunc", []typ{tText, tTime}, tTime}, {"to_char", []typ{tTime, tText}, tText}, {"now", nil, tTime},
	{"count", []typ{tAny}, tInt}, {"sum", []typ{tInt}, tNum}, {"max", []typ{tText}, tText}, {"avg", []typ{tNum}, tNum},
	{"string_agg", []typ{tText, tText}, tText}, {"to_json", []typ{tAny}, tAny}, {"to_jsonb", []typ{tAny}, tAny},
	{"split_part", []typ{tText, tText, tInt}, tText}, {"make_date", []typ{tInt, tInt, tInt}, tDate},
	{"date_part", []typ{tText, tDate}, tNum}, {"num_nulls", []typ{tAny, tAny}, tInt}, {"format", []typ{tText, tAny}, tText},
	{"json_build_object", []typ{tText, tAny}, tAny}, {"array_agg", []typ{tAny}, tAny}, {"age", []typ{tDate}, tAny},
	{"pg_catalog.upper", []typ{tText}, tText}, {"bool_or", []typ{tBool}, tBool},
	// off the allow-list
	{"pg_sleep", []typ{tNum}, tAny}, {"pg_catalog.pg_sleep", []typ{tNum}, tAny}, {"set_config", []typ{tText, tText, tBool}, tText},
	{"current_setting", []typ{tText}, tText}, {"row_to_json", []typ{tAny}, tAny}, {"pg_typeof", []typ{tAny}, tAny},
	{"txid_current", nil, tInt}, {"pg_backend_pid", nil, tInt}, {"to_regclass", []typ{tText}, tAny},
	{"pg_advisory_lock", []typ{tInt}, tAny}, {"version", nil, tText}, {"quote_ident", []typ{tText}, tText},
	{"repeat", []typ{tText, tInt}, tText}, {"pg_column_size", []typ{tAny}, tInt}, {"pg_read_file", []typ{tText}, tText},
	{"has_table_privilege", []typ{tText, tText}, tBool}, {"public.upper", []typ{tText}, tText},
	{"analytics.member_transcripts", nil, tText}, {"json_agg", []typ{tAny}, tAny}, {"xmlcomment", []typ{tText}, tAny},
}

// aggregates are the floorFunctions that aggregate.
var aggregates = map[string]bool{"count": true, "sum": true, "max": true, "avg": true, "string_agg": true, "array_agg": true,
	"bool_or": true, "json_agg": true}

// allowedFunctions counts the floorFunctions on the allow-list, which
// come first.
const allowedFunctions = 29

// attributeNames are the names the grammar writes after a dot: columns,
// functions on the allow-list and off it that take one argument of any
// type, and types (a name after a dot may be a cast). Those that may pass
// come first.
var attributeNames = []string{
	"agent_key", "team_key", "day", "submitted", "full_name", "sales", "f1", "x", "y", "nothing",
	"count", "sum", "max", "to_json", "to_jsonb", "upper", "length", "num_nulls", "array_agg", "md5", "concat", "text", "numeric", "date",
	// off the allow-lists
	"row_to_json", "pg_typeof", "pg_column_size", "to_regclass", "quote_ident", "quote_literal", "json_strip_nulls",
	"jsonb_pretty", "pg_sleep", "txid_current", "row_security_active", "pg_get_viewdef", "pg_relation_size",
	"current_setting", "pg_advisory_lock", "pg_notify", "version", "bit_length", "xmlcomment", "json_agg",
	"regclass", "regtype", "oid", "name", "xml", "bytea", "tsvector", "int4range", "json", "char",
}

// allowedAttributes counts the attributeNames that may pass.
const allowedAttributes = 24

// castTypes are the types the grammar casts to, allowed first.
var castTypes = []string{
	"int4", "int8", "numeric", "text", "varchar", "date", "timestamptz", "bool", "json", "jsonb", "interval", "pg_catalog.text",
	"regclass", "regtype", "oid", "name", "xml", "bytea", "tsvector", `"char"`, "int4range", "money", "regproc", "public.text",
}

// literals are a literal of each of the castTypes, for typed literals.
var literals = map[string]string{
	"int4": "1", "int8": "2", "numeric": "1.5", "text": "pg_class", "varchar": "a", "date": "2026-11-01", "timestamptz": "2026-11-01 10:00+00",
	"bool": "true", "json": `{"a": 1}`, "jsonb": `[1, "a"]`, "interval": "1 day", "regclass": "pg_class", "regtype": "int4", "oid": "1259",
	"name": "pg_class", "xml": "<a/>", "bytea": `\x00`, "tsvector": "a b", `"char"`: "a", "int4range": "[1,2)", "money": "1.00", "regproc": "now",
}

// allowedCasts counts the castTypes on the allow-list.
const allowedCasts = 12

// operators are the binary operators the grammar writes between two
// expressions of one type, allowed first.
var operators = []struct {
	op     string
	arg, t typ
}{
	{"+", tInt, tInt}, {"-", tInt, tInt}, {"*", tNum, tNum}, {"/", tNum, tNum}, {"%", tInt, tInt}, {"||", tText, tText},
	{"=", tText, tBool}, {"<>", tInt, tBool}, {"<", tDate, tBool}, {">=", tNum, tBool}, {"~~", tText, tBool}, {"~", tText, tBool},
	{"^", tNum, tNum}, {"OPERATOR(pg_catalog.+)", tInt, tInt}, {"OPERATOR(pg_catalog.=)", tText, tBool},
	// off the allow-list, or no operator at all
	{"@@", tText, tBool}, {"~<~", tText, tBool}, {"<->", tInt, tInt}, {"##", tInt, tInt}, {"OPERATOR(public.+)", tInt, tInt},
	{"OPERATOR(pg_catalog.~>=~)", tText, tBool}, {"!~~", tText, tBool},
}

// allowedOperators counts the operators on the allow-list.
const allowedOperators = 15

// allowedRelations counts the floorRelations the analyst may read.
const allowedRelations = 8

// grammar makes one SELECT from the bytes that drive it. Each choice
// takes one byte; when they run out, every choice is the first, which
// ends the statement soon.
type grammar struct {
	in      []byte
	out     *strings.Builder
	queries int // sub-selects open
	nest    int // expressions open
	// scopes are the FROM items in scope, innermost query last.
	scopes  [][]item
	aliases int
	// plain says aggregates and window functions may not be called here
	// (WHERE, ON).
	plain bool
}

// item is a FROM item: its alias and its columns.
type item struct {
	alias string
	cols  []col
}

// Bounds on nesting, which keep statements short.
const (
	maxQueries = 3
	maxNest    = 4
)

// generate turns bytes into a SELECT.
func generate(in []byte) string {
	g := &grammar{in: in, out: &strings.Builder{}}
	g.statement()
	return g.out.String()
}

// choose takes a byte and returns a choice below n.
func (g *grammar) choose(n int) int {
	if len(g.in) == 0 || n <= 1 {
		return 0
	}
	b := g.in[0]
	g.in = g.in[1:]
	return int(b) % n
}

// pick takes a byte and returns an index into a list of n whose first
// allowed entries are on an allow-list: three times in four, one of those.
func (g *grammar) pick(allowed, n int) int {
	c := g.choose(4 * n)
	if c < 3*n && allowed > 0 {
		return c % allowed
	}
	return c % n
}

// maybe takes a byte and says yes one time in n.
func (g *grammar) maybe(n int) bool { return g.choose(n) == n-1 }

func (g *grammar) w(parts ...string) {
	for _, p := range parts {
		g.out.WriteString(p)
	}
}

func (g *grammar) statement() {
	if g.maybe(6) {
		g.w("WITH w AS (")
		g.query(nil)
		g.w(") ")
	}
	g.query(nil)
	if g.maybe(6) {
		g.w(" UNION ALL ")
		g.query(nil)
	}
}

// query writes one SELECT; want, if not nil, are the types its columns
// must have (a sub-select's).
func (g *grammar) query(want []typ) {
	g.queries++
	g.scopes = append(g.scopes, nil)
	nest := g.nest
	g.nest = 0
	defer func() {
		g.queries--
		g.scopes = g.scopes[:len(g.scopes)-1]
		g.nest = nest
	}()
	from := &strings.Builder{}
	g.fromClause(from)
	g.w("SELECT ")
	distinct := g.maybe(8)
	if distinct {
		g.w("DISTINCT ")
		if g.maybe(2) {
			g.w("ON (")
			g.expr(tAny)
			g.w(") ")
		}
	}
	n := len(want)
	if want == nil {
		n = 1 + g.choose(2)
	}
	for i := range n {
		if i > 0 {
			g.w(", ")
		}
		t := tAny
		if want != nil {
			t = want[i]
		}
		g.expr(t)
		if g.maybe(4) {
			g.w(fmt.Sprintf(" AS c%d", i))
		}
	}
	g.w(from.String())
	if g.maybe(2) {
		g.w(" WHERE ")
		g.plainly(func() { g.expr(tBool) })
	}
	grouped := g.maybe(10)
	if grouped {
		g.w(" GROUP BY 1")
	}
	if c, ok := g.column(tAny); ok && !grouped && !distinct && g.maybe(3) {
		g.w(" ORDER BY ", c)
		g.w([]string{"", " DESC", " USING <", " USING OPERATOR(pg_catalog.>)", " USING ~<~", " USING OPERATOR(pg_catalog.~>~)"}[g.pick(4, 6)])
	}
	if g.maybe(3) {
		g.w(" LIMIT 3")
	}
}

// fromClause writes a FROM clause into from, putting its items in scope;
// the sub-selects in it are written there too.
func (g *grammar) fromClause(from *strings.Builder) {
	out := g.out
	g.out = from
	defer func() { g.out = out }()
	g.w(" FROM ")
	for i := range 1 + g.choose(2) {
		join := false
		if i > 0 {
			join = g.maybe(2)
			g.w(map[bool]string{false: ", ", true: " JOIN "}[join])
		}
		g.fromItem()
		switch {
		case !join:
		case g.maybe(2) && g.agentKeys():
			g.w(" USING (agent_key)")
		default:
			g.w(" ON ")
			g.plainly(func() { g.expr(tBool) })
		}
	}
}

// plainly writes what f writes where aggregates and window functions may
// not be called.
func (g *grammar) plainly(f func()) {
	plain := g.plain
	g.plain = true
	f()
	g.plain = plain
}

// agentKeys says whether every FROM item of the query has an agent_key.
func (g *grammar) agentKeys() bool {
	for _, it := range g.scopes[len(g.scopes)-1] {
		if !slices.ContainsFunc(it.cols, func(c col) bool { return c.name == "agent_key" }) {
			return false
		}
	}
	return true
}

// fromItem writes one FROM item and puts it in scope.
func (g *grammar) fromItem() {
	g.aliases++
	alias := fmt.Sprintf("t%d", g.aliases)
	var cols []col
	switch c := g.choose(8); {
	case c < 5 || g.queries >= maxQueries:
		r := floorRelations[g.pick(allowedRelations, len(floorRelations))]
		g.w(r.name, " ", alias)
		cols = r.cols
	case c == 5:
		t := typ(g.choose(int(tBool) + 1))
		scopes := g.scopes
		if g.maybe(3) {
			g.w("LATERAL ")
		} else {
			g.scopes = nil // a sub-select in FROM sees nothing around it
		}
		g.w("(")
		g.query([]typ{t})
		g.scopes = scopes
		g.w(") AS ", alias, "(x)")
		cols = []col{{"x", t}}
	case c == 6:
		switch g.choose(3) {
		case 0:
			g.w("generate_series(1, 3) AS ", alias, "(x)")
			cols = []col{{"x", tInt}}
		case 1:
			g.w("unnest(ARRAY['a', 'b']) AS ", alias, "(x)")
			cols = []col{{"x", tText}}
		default:
			g.w("pg_catalog.generate_series(1, 2) ", alias)
			cols = []col{{alias, tInt}}
		}
	default:
		g.w("(VALUES (1, 'a')) AS ", alias, "(x, y)")
		cols = []col{{"x", tInt}, {"y", tText}}
	}
	top := len(g.scopes) - 1
	g.scopes[top] = append(g.scopes[top], item{alias, cols})
}

// column picks a column of type t from the items in scope; ok is false
// when none has one.
func (g *grammar) column(t typ) (string, bool) {
	var found []string
	for _, s := range g.scopes {
		for _, it := range s {
			for _, c := range it.cols {
				if c.t == t || t == tAny {
					found = append(found, it.alias+"."+c.name)
				}
			}
		}
	}
	if len(found) == 0 {
		return "", false
	}
	return found[g.choose(len(found))], true
}

// alias picks an item in scope, for a whole-row reference, and returns
// its alias and columns.
func (g *grammar) alias() (string, []col, bool) {
	var found []item
	for _, s := range g.scopes {
		found = append(found, s...)
	}
	if len(found) == 0 {
		return "", nil, false
	}
	it := found[g.choose(len(found))]
	return it.alias, it.cols, true
}

// constant writes a literal of type t.
func (g *grammar) constant(t typ) {
	switch t {
	case tInt:
		g.w(fmt.Sprint(g.choose(20)))
	case tNum:
		g.w(fmt.Sprintf("%d.5", g.choose(20)))
	case tText:
		g.w([]string{"'a'", "'week'", "'falcons'", "''", "'pg_class'", "'%a%'", "'YYYY'", "'data_directory'"}[g.choose(8)])
	case tDate:
		g.w([]string{"date '2026-11-01'", "current_date", "'2026-11-02'::date"}[g.choose(3)])
	case tTime:
		g.w([]string{"timestamptz '2026-11-01 10:00+00'", "now()", "current_timestamp", "localtimestamp"}[g.choose(4)])
	case tBool:
		g.w([]string{"true", "false", "NULL::bool"}[g.choose(3)])
	default:
		g.w([]string{"1", "'x'", "NULL", "current_user", "session_user", "current_schema", "current_catalog", "ROW(1, 'a')"}[g.choose(8)])
	}
}

// leaf writes a column of type t, or a literal.
func (g *grammar) leaf(t typ) {
	if c, ok := g.column(t); ok && g.choose(3) > 0 {
		g.w(c)
		return
	}
	g.constant(t)
}

// expr writes an expression of type t (tAny: of any type).
func (g *grammar) expr(t typ) {
	g.nest++
	defer func() { g.nest-- }()
	if t == tAny {
		t = typ(g.choose(int(nTypes)))
	}
	c := g.choose(24)
	if g.nest > maxNest {
		c = 0
	}
	switch {
	case c < 9:
		g.leaf(t)
	case c < 12:
		g.call(t)
	case c < 14:
		g.attribute()
	case c == 14:
		g.cast(t)
	case c < 17:
		g.operator(t)
	case c == 17:
		g.subquery(t)
	case c == 18:
		g.w("CASE WHEN ")
		g.expr(tBool)
		g.w(" THEN ")
		g.expr(t)
		g.w(" ELSE ")
		g.expr(t)
		g.w(" END")
	case c == 19:
		g.w([]string{"coalesce", "nullif", "greatest", "least"}[g.choose(4)], "(")
		g.expr(t)
		g.w(", ")
		g.expr(t)
		g.w(")")
	case c == 20:
		g.predicate()
	case c == 21:
		g.syntax()
	case c == 22:
		switch c := g.choose(3); {
		case c == 0:
			g.w("(ARRAY[")
			g.expr(t)
			g.w(", ")
			g.expr(t)
			g.w("])[1]")
		case c == 1 && t == tText:
			g.w("(")
			g.expr(tText)
			g.w([]string{`) COLLATE "C"`, `) COLLATE pg_catalog."default"`}[g.choose(2)])
		case c == 2 && t == tInt && !g.plain:
			g.window()
		default:
			g.leaf(t)
		}
	default:
		g.w("(")
		g.expr(t)
		g.w(")")
	}
}

// call writes a call of a function, one of type t if the grammar has one.
func (g *grammar) call(t typ) {
	var fit, allowed []fn
	for i, f := range floorFunctions {
		if (f.t == t || t == tAny) && !(g.plain && aggregates[f.name]) {
			fit = append(fit, f)
			if i < allowedFunctions {
				allowed = append(allowed, f)
			}
		}
	}
	if len(fit) == 0 {
		g.leaf(t)
		return
	}
	f := fit[g.pick(len(allowed), len(fit))]
	g.w(f.name, "(")
	if f.name == "count" && g.maybe(2) {
		g.w("*)")
		return
	}
	for i, a := range f.args {
		if i > 0 {
			g.w(", ")
		}
		g.expr(a)
	}
	g.w(")")
}

// attribute writes attribute notation: alias.name, (alias).name or
// (expression).name.
func (g *grammar) attribute() {
	name := attributeNames[g.pick(allowedAttributes, len(attributeNames))]
	a, cols, ok := g.alias()
	if ok && len(cols) > 0 && g.maybe(2) {
		name = cols[g.choose(len(cols))].name
	}
	switch c := g.choose(4); {
	case c < 2 && ok:
		g.w(a, ".", name)
	case c == 2 && ok:
		g.w("(", a, ").", name)
	default:
		g.w("(")
		g.expr(tAny)
		g.w(").", name)
	}
}

// cast writes a cast of an expression, or a typed literal.
func (g *grammar) cast(t typ) {
	to := castTypes[g.pick(allowedCasts, len(castTypes))]
	switch g.choose(3) {
	case 0:
		g.w("(")
		g.expr(t)
		g.w(")::", to)
	case 1:
		g.w("CAST(")
		g.expr(t)
		g.w(" AS ", to, ")")
	default:
		g.w(to, " '", literals[strings.TrimPrefix(strings.TrimPrefix(to, "pg_catalog."), "public.")], "'")
	}
}

// operator writes a binary operator over two expressions, of type t if it
// can.
func (g *grammar) operator(t typ) {
	var fit []int
	allowed := 0
	for i, o := range operators {
		if o.t == t {
			fit = append(fit, i)
			if i < allowedOperators {
				allowed++
			}
		}
	}
	if allowed == 0 {
		fit, allowed = []int{0, 15, 17}, 1
	}
	o := operators[fit[g.pick(allowed, len(fit))]]
	g.w("(")
	g.expr(o.arg)
	g.w(" ", o.op, " ")
	g.expr(o.arg)
	g.w(")")
}

// subquery writes a scalar sub-select of type t, or a test over one.
func (g *grammar) subquery(t typ) {
	if g.queries >= maxQueries {
		g.leaf(t)
		return
	}
	if t != tBool || g.maybe(3) {
		g.w("(")
		g.query([]typ{t})
		g.w(")")
		return
	}
	switch g.choose(4) {
	case 0:
		g.w("EXISTS (")
		g.query([]typ{tInt})
	case 1:
		a := typ(g.choose(int(tBool)))
		g.expr(a)
		g.w(" IN (")
		g.query([]typ{a})
	default:
		a := typ(g.choose(int(tBool)))
		g.expr(a)
		ops := []string{"=", "<>", "OPERATOR(pg_catalog.=)", "@@", "~<~", "OPERATOR(pg_catalog.~~*)", "OPERATOR(public.=)"}
		g.w(" ", ops[g.pick(3, len(ops))], " ", []string{"ANY", "ALL", "SOME"}[g.choose(3)], " (")
		g.query([]typ{a})
	}
	g.w(")")
}

// predicate writes a truth-valued test.
func (g *grammar) predicate() {
	a := typ(g.choose(int(tBool) + 1))
	g.expr(a)
	switch g.choose(6) {
	case 0:
		g.w(" IS NULL")
	case 1:
		g.w(" IS DISTINCT FROM ")
		g.expr(a)
	case 2:
		g.w(" BETWEEN ")
		g.expr(a)
		g.w(" AND ")
		g.expr(a)
	case 3:
		g.w(" IN (")
		g.expr(a)
		g.w(", ")
		g.expr(a)
		g.w(")")
	case 4:
		g.w(" = ANY (ARRAY[")
		g.expr(a)
		g.w("])")
	default:
		g.w(" IS NOT NULL AND ")
		g.expr(tBool)
	}
}

// syntax writes SQL syntax that PostgreSQL turns into a call.
func (g *grammar) syntax() {
	s := []struct {
		pre  string
		arg  typ
		post string
	}{
		{"EXTRACT(year FROM ", tDate, ")"}, {"(", tTime, " AT TIME ZONE 'UTC')"}, {"(", tText, " LIKE 'a%' ESCAPE '!')"},
		{"COLLATION FOR (", tText, ")"}, {"POSITION('a' IN ", tText, ")"}, {"SUBSTRING(", tText, " FROM 1 FOR 2)"},
		{"TRIM(BOTH 'x' FROM ", tText, ")"}, {"(", tText, " SIMILAR TO 'a%')"}, {"(", tText, " IS NORMALIZED)"},
		{"OVERLAY(", tText, " PLACING 'x' FROM 1)"}, {"(", tTime, " AT TIME ZONE 'America/New_York')"}, {"(", tText, " ILIKE 'a%')"},
	}[g.choose(12)]
	g.w(s.pre)
	g.expr(s.arg)
	g.w(s.post)
}

// window writes a window function over the rows in scope.
func (g *grammar) window() {
	g.w([]string{"row_number()", "rank()", "count(*)", "sum(1)", "lag(1)", "ntile(2)"}[g.choose(6)], " OVER (")
	if g.maybe(2) {
		g.w("PARTITION BY ")
		g.expr(tAny)
		g.w(" ")
	}
	g.w("ORDER BY ")
	g.expr(tAny)
	g.w(")")
}
