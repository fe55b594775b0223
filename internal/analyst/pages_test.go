package analyst_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/analyst"
	"plumbline/reports/ask"
)

// page asks for one page of a statement; it fails the test when the page
// is refused.
type page func(sql string, pageSize, offset int) answer

// mcpPage asks over MCP.
func mcpPage(t *testing.T, cs *mcp.ClientSession) page {
	return func(sql string, pageSize, offset int) answer {
		t.Helper()
		a, isError := sqlCall(t, cs, map[string]any{"sql": sql, "page_size": pageSize, "offset": offset})
		if isError {
			t.Fatalf("the page at %d of %d was refused: %+v", offset, pageSize, a.Error)
		}
		return a
	}
}

// allPages pages through a statement from offset 0 until has_more is
// false, and returns every page's rows in the order they came, the types
// of their columns and how many pages there were.
func allPages(t *testing.T, ask page, sql string, pageSize int) (rows [][]any, types []string, pages int) {
	t.Helper()
	for offset := 0; ; pages++ {
		a := ask(sql, pageSize, offset)
		if len(a.Rows) > pageSize || (a.HasMore && (len(a.Rows) != pageSize || a.Next == nil || *a.Next != offset+pageSize)) {
			t.Fatalf("the page at %d of %d holds %d rows, has_more %v, next_offset %v", offset, pageSize, len(a.Rows), a.HasMore, a.Next)
		}
		rows, types = append(rows, a.Rows...), a.Types
		if !a.HasMore {
			return rows, types, pages + 1
		}
		offset = *a.Next
	}
}

// partition compares the rows of every page with the statement's rows run
// once, as multisets: twice counts the rows the pages list more often
// than the statement gives them, never those they list less often.
func partition(pages, once []string) (twice, never int) {
	counts := map[string]int{}
	for _, r := range once {
		counts[r]++
	}
	for _, r := range pages {
		counts[r]--
	}
	for _, n := range counts {
		if n < 0 {
			twice -= n
		} else {
			never += n
		}
	}
	return twice, never
}

// The filed statement: a day's agents by applications submitted, most
// first, where many agents tie. Paged 5 and 10 rows at a time over MCP, its
// pages together hold each of the statement's rows exactly once, as the
// statement run once directly gives them, in its order.
func TestPagesOfTiedRowsHoldEachRowOnce(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	ctx := context.Background()
	// The day with the most agents, and of those the latest.
	var day time.Time
	var ties int
	err := f.sql.QueryRow(ctx, `SELECT day, count(*) - count(DISTINCT submitted) FROM metrics.agent_sales_daily
		GROUP BY day ORDER BY count(*) DESC, day DESC LIMIT 1`).Scan(&day, &ties)
	if err != nil {
		t.Fatal(err)
	}
	if ties < 10 {
		t.Fatalf("on %s only %d agents tie with another on submitted; the test needs many", day.Format(time.DateOnly), ties)
	}
	stmt := fmt.Sprintf(`SELECT agent_key, submitted FROM metrics.agent_sales_daily WHERE day = date '%s' ORDER BY submitted DESC`,
		day.Format(time.DateOnly))
	rows, err := f.sql.Query(ctx, stmt)
	if err != nil {
		t.Fatal(err)
	}
	var once, order []string
	var key string
	var submitted int
	_, err = pgx.ForEachRow(rows, []any{&key, &submitted}, func() error {
		once, order = append(once, fmt.Sprintf("%s %d", key, submitted)), append(order, fmt.Sprint(submitted))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{5, 10} {
		var got, gotOrder []string
		pages, _, _ := allPages(t, mcpPage(t, cs), stmt, size)
		for _, r := range pages {
			got, gotOrder = append(got, fmt.Sprintf("%s %v", r[0], r[1])), append(gotOrder, fmt.Sprint(r[1]))
		}
		if twice, never := partition(got, once); twice > 0 || never > 0 {
			t.Errorf("page_size %d over %s: %d rows, %d listed twice, %d never, of the %d the statement gives",
				size, day.Format(time.DateOnly), len(got), twice, never, len(once))
		}
		if !slices.Equal(gotOrder, order) {
			t.Errorf("page_size %d: the pages are not in the statement's order of submitted", size)
		}
	}
}

// doorPage asks the door directly, without MCP, as a contained agent, and
// reads the answer as a client reads its JSON.
func doorPage(t *testing.T, f *floor) page {
	caller := ask.Caller{Person: "service:floor-analyst", Client: "invariant", Tools: []string{analyst.ToolName}}
	return func(sql string, pageSize, offset int) answer {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"sql": sql, "page_size": pageSize, "offset": offset})
		res := f.door.Call(context.Background(), caller, args)
		b, err := json.Marshal(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		var a answer
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		if res.Refused {
			t.Fatalf("the page at %d of %d of %s was refused: %+v", offset, pageSize, sql, a.Error)
		}
		return a
	}
}

// relation is a relation of the demo floor the analyst reads, for drawing
// statements over it.
type relation struct {
	name    string
	columns []column                // in the relation's order
	star    bool                    // the analyst may read every column, so SELECT *
	where   func(day string) string // cuts it to a day's rows, or to a few more
}

// column is a column a statement may select or order by; few are those
// with few values, which tie.
type column struct {
	name string
	few  bool
	null bool // holds NULLs
}

// oneDay cuts a relation to the rows of a day, by its column col.
func oneDay(col string) func(string) string {
	return func(day string) string { return fmt.Sprintf("%s = date '%s'", col, day) }
}

// relations are those the statements are drawn over, each cut to a few
// dozen or a hundred rows.
var relations = []relation{
	{"metrics.agent_sales_daily", []column{{"agent_key", false, false}, {"day", true, false}, {"submitted", true, false}, {"lost", true, false},
		{"approved", true, true}}, true, oneDay("day")},
	{"metrics.agent_time_daily", []column{{"agent_key", false, false}, {"day", true, false}, {"logged_hours", false, true},
		{"available_hours", false, true}, {"talk_hours", false, true}}, true, oneDay("day")},
	{"metrics.agent_quality_daily", []column{{"agent_key", false, false}, {"day", true, false}, {"audits_passed", true, false},
		{"audits_failed", true, false}}, true, func(day string) string { return fmt.Sprintf("day BETWEEN date '%s' - 6 AND date '%s'", day, day) }},
	{"live.sales_board", []column{{"agent_key", false, false}, {"entered_at", false, false}, {"sales", true, false}}, true,
		func(day string) string {
			// Bounds that are instants, whatever the session's time zone.
			from, _ := time.Parse(time.DateOnly, day)
			return fmt.Sprintf("entered_at >= timestamptz '%s 00:00-05' AND entered_at < timestamptz '%s 00:00-05'", day, from.AddDate(0, 0, 1).Format(time.DateOnly))
		}},
	{"analytics.agent_team_history", []column{{"agent_key", false, false}, {"team_key", true, false}, {"effective_from", true, false}}, true,
		func(string) string { return "true" }},
	{"analytics.team_floor_history", []column{{"team_key", true, false}, {"effective_from", true, false}, {"counts_as_sales", true, false},
		{"decided_by", true, false}, {"reason", false, false}}, true, func(string) string { return "true" }},
	{"analytics.dim_agent", []column{{"agent_key", false, false}, {"full_name", false, false}, {"hired_on", true, false}, {"left_on", true, true}},
		false, func(string) string { return "true" }},
}

// drawn is a statement drawn at random, with what checking its pages
// needs.
type drawn struct {
	sql       string // the statement
	unlimited string // the statement without its inner LIMIT, if it has one
	keys      []int  // those of the columns it orders by that are in its result, 0-based
}

// draw draws a statement over a relation from a small grammar: a plain
// SELECT of a few columns, maybe DISTINCT; SELECT *; a GROUP BY with
// count(*); or a UNION ALL of two days; ordered or not, by one or two
// columns (mostly ones with few values, which tie), ASC or DESC, NULLS
// FIRST or LAST; maybe with an inner LIMIT.
func draw(rng *rand.Rand, days []string) drawn {
	rel := relations[rng.IntN(len(relations))]
	day := days[rng.IntN(len(days))]
	pick := func(n int) []column { // n distinct columns, in a random order
		cols := slices.Clone(rel.columns)
		rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		return cols[:n]
	}
	var d drawn
	var out []column       // the result's columns
	var orderable []column // what ORDER BY may name
	var sql string
	switch form := rng.IntN(5); {
	case form == 0 && rel.star:
		out, orderable = rel.columns, rel.columns
		sql = fmt.Sprintf("SELECT * FROM %s WHERE %s", rel.name, rel.where(day))
	case form == 1:
		group := pick(1 + rng.IntN(2))
		out = append(slices.Clone(group), column{name: "n", few: true})
		orderable = out
		var names []string
		for _, c := range group {
			names = append(names, c.name)
		}
		sql = fmt.Sprintf("SELECT %s, count(*) AS n FROM %s WHERE %s GROUP BY %s", strings.Join(names, ", "), rel.name, rel.where(day),
			strings.Join(names, ", "))
	case form == 2:
		out = pick(1 + rng.IntN(2))
		orderable = out
		other := days[rng.IntN(len(days))]
		var names []string
		for _, c := range out {
			names = append(names, c.name)
		}
		list := strings.Join(names, ", ")
		// The same day twice makes every row twice.
		sql = fmt.Sprintf("SELECT %s FROM %s WHERE %s UNION ALL SELECT %s FROM %s WHERE %s", list, rel.name, rel.where(day), list, rel.name, rel.where(other))
	default:
		out = pick(1 + rng.IntN(len(rel.columns)))
		distinct := ""
		if rng.IntN(3) == 0 {
			distinct = "DISTINCT "
		}
		orderable = out
		if distinct == "" {
			orderable = rel.columns // an ORDER BY may name what the result leaves out
		}
		var names []string
		for _, c := range out {
			names = append(names, c.name)
		}
		sql = fmt.Sprintf("SELECT %s%s FROM %s WHERE %s", distinct, strings.Join(names, ", "), rel.name, rel.where(day))
	}
	if rng.IntN(5) > 0 {
		// Mostly columns with few values, so that rows tie.
		var few []column
		for _, c := range orderable {
			if c.few || rng.IntN(4) == 0 {
				few = append(few, c)
			}
		}
		if len(few) == 0 {
			few = slices.Clone(orderable)
		}
		rng.Shuffle(len(few), func(i, j int) { few[i], few[j] = few[j], few[i] })
		var keys []string
		for _, c := range few[:1+rng.IntN(min(2, len(few)))] {
			key := c.name
			if i := slices.IndexFunc(out, func(o column) bool { return o.name == c.name }); i >= 0 {
				d.keys = append(d.keys, i)
				if rng.IntN(3) == 0 {
					key = fmt.Sprint(i + 1) // by position, as the analyst may
				}
			}
			key += []string{"", " ASC", " DESC"}[rng.IntN(3)]
			if c.null {
				key += []string{"", " NULLS FIRST", " NULLS LAST"}[rng.IntN(3)]
			}
			keys = append(keys, key)
		}
		sql += " ORDER BY " + strings.Join(keys, ", ")
	}
	d.sql = sql
	if rng.IntN(4) == 0 {
		d.unlimited = sql
		d.sql = fmt.Sprintf("%s LIMIT %d", sql, 1+rng.IntN(60))
	}
	return d
}

// direct runs a statement once, directly, as a superuser over the simple
// protocol, and returns its rows as PostgreSQL writes them (numeric as a
// number: see written), in the order it gives them.
func direct(t *testing.T, conn *pgx.Conn, sql string) [][]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var row []string
		for i, v := range rows.RawValues() {
			switch {
			case v == nil:
				row = append(row, "NULL")
			case rows.FieldDescriptions()[i].DataTypeOID == pgtype.NumericOID:
				row = append(row, number(t, string(v)))
			default:
				row = append(row, string(v))
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// written turns a page's rows into what PostgreSQL writes for them, in UTC
// as the direct connection is: truth values as t and f, timestamps in its
// ISO style. A numeric is compared as a number, written as a fraction: the
// door writes a zero without its scale (0 for 0.00).
func written(t *testing.T, types []string, rows [][]any) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range rows {
		var row []string
		for i, v := range r {
			switch v := v.(type) {
			case nil:
				row = append(row, "NULL")
			case bool:
				row = append(row, map[bool]string{true: "t", false: "f"}[v])
			case string:
				if types[i] == "timestamptz" {
					at, err := time.Parse(time.RFC3339Nano, v)
					if err != nil {
						t.Fatal(err)
					}
					v = at.UTC().Format("2006-01-02 15:04:05.999999-07")
				}
				row = append(row, v)
			case json.Number:
				if types[i] == "numeric" {
					v = json.Number(number(t, v.String()))
				}
				row = append(row, v.String())
			default:
				t.Fatalf("a cell of type %s came as %T", types[i], v)
			}
		}
		out = append(out, row)
	}
	return out
}

// number writes a decimal number as a fraction in lowest terms.
func number(t *testing.T, s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("%q is not a number", s)
	}
	return r.RatString()
}

// joined writes each row as one string, to count rows by.
func joined(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		out[i] = string(b)
	}
	return out
}

// projected keeps the columns cols of rows (none when cols is empty).
func projected(rows [][]string, cols []int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = []string{}
		for _, c := range cols {
			out[i] = append(out[i], r[c])
		}
	}
	return out
}

var pagesSeed = flag.Uint64("pages.seed", 0, "the seed of TestPagesPartitionTheResult's statements; 0 for a new one")

// The invariant: for any statement, the union of its pages is its result,
// each row exactly once. Statements are drawn at random over the demo
// floor (see draw) and each paged at a random page_size from 1 to 50; the
// pages together must be, as a multiset, the statement run once directly,
// and in its order (the columns it orders by read the same, row by row).
// With an inner LIMIT and ties at the cut, which rows the statement keeps
// is PostgreSQL's choice: then the pages must hold as many rows as it
// keeps, of the same values of the columns it orders by, each a row of the
// statement without its LIMIT.
func TestPagesPartitionTheResult(t *testing.T) {
	f := newFloor(t, setup{})
	ctx := context.Background()
	if _, err := f.sql.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	rows, err := f.sql.Query(ctx, "SELECT DISTINCT day::text FROM metrics.agent_sales_daily WHERE day > (SELECT max(day) - 21 FROM metrics.agent_sales_daily)")
	if err != nil {
		t.Fatal(err)
	}
	days, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(days) < 7 {
		t.Fatalf("days: %v %v", days, err)
	}
	slices.Sort(days)
	seed := *pagesSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	ask := doorPage(t, f)
	start := time.Now()
	statements, calls, tied := 0, 0, 0
	for statements == 0 || time.Since(start) < 3*time.Second {
		d := draw(rng, days)
		size := 1 + rng.IntN(analyst.MaxPageSize)
		statements++
		once := direct(t, f.sql, d.sql)
		pages, types, n := allPages(t, ask, d.sql, size)
		got := written(t, types, pages)
		calls += n
		keyed := joined(projected(once, d.keys))
		if len(d.keys) > 0 && len(once) > size && len(slices.Compact(slices.Clone(keyed))) < len(once) {
			tied++ // rows tie on the ORDER BY across pages: the case in question
		}
		whole, want := got, once
		if d.unlimited != "" {
			// Which of the rows tied at the cut the LIMIT keeps is
			// PostgreSQL's choice; the values it orders by are not.
			whole, want = projected(got, d.keys), projected(once, d.keys)
			all := direct(t, f.sql, d.unlimited)
			if twice, _ := partition(joined(got), joined(all)); twice > 0 {
				t.Errorf("seed %d, page_size %d: %s\n%d rows of the pages are not rows of the statement without its LIMIT", seed, size, d.sql, twice)
			}
		}
		if twice, never := partition(joined(whole), joined(want)); twice > 0 || never > 0 {
			t.Errorf("seed %d, page_size %d: %s\nthe pages hold %d rows, the statement %d: %d listed twice, %d never",
				seed, size, d.sql, len(got), len(once), twice, never)
		} else if len(d.keys) > 0 && !slices.Equal(joined(projected(got, d.keys)), keyed) {
			t.Errorf("seed %d, page_size %d: %s\nthe pages are not in the statement's order", seed, size, d.sql)
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("seed %d: %d statements (%d with ties across pages), %d pages, in %s", seed, statements, tied, calls, time.Since(start).Round(time.Millisecond))
}

// A column of a type PostgreSQL cannot order (json) cannot order the pages
// either: the statement is refused with a rule that names the column by
// its place and type and says how to fix it, never PostgreSQL's message nor
// the statement's own names, on record under its check; with a * too. Cast
// to text or jsonb, it runs. A statement PostgreSQL refuses as written
// keeps its own refusal, and FETCH … WITH TIES is refused by the check.
func TestAColumnWithoutAnOrderingIsRefused(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	const where = " FROM metrics.agent_sales_daily WHERE day = date '2026-11-17'"
	for _, c := range []struct{ sql, columns string }{
		{"SELECT agent_key, json_build_object('submitted', submitted) AS detail" + where + " ORDER BY submitted DESC", "a column of a type PostgreSQL cannot order (column 2, json)"},
		{"SELECT * FROM (SELECT to_json(agent_key) AS who, submitted, to_json(lost) AS gone" + where + ") AS detail", "columns of a type PostgreSQL cannot order (column 1, json; column 3, json)"},
	} {
		a, isError := sqlCall(t, cs, map[string]any{"sql": c.sql, "page_size": 5})
		if !isError || a.Error == nil || a.Error.Code != "invalid_argument" || a.Error.Argument != "sql" || a.Error.Check != "order" ||
			a.Error.Choices == nil || !strings.Contains(a.Error.Rule, c.columns) || !strings.Contains(a.Error.Rule, "cast such a column to text in the select list") {
			t.Errorf("%s: %+v, want refused by order naming %s", c.sql, a.Error, c.columns)
			continue
		}
		for _, quoted := range []string{"detail", "agent_key", "who", "gone", "could not identify", "operator"} {
			if strings.Contains(a.Error.Rule, quoted) {
				t.Errorf("the rule says %q: %s", quoted, a.Error.Rule)
			}
		}
	}
	for _, cast := range []string{"::text", "::jsonb"} {
		sql := "SELECT agent_key, json_build_object('submitted', submitted)" + cast + " AS detail" + where + " ORDER BY submitted DESC"
		if a, isError := sqlCall(t, cs, map[string]any{"sql": sql, "page_size": 5}); isError || len(a.Rows) != 5 {
			t.Errorf("cast %s: %+v", cast, a.Error)
		}
	}
	a, _ := sqlCall(t, cs, map[string]any{"sql": "SELECT lower(submitted)" + where})
	if a.Error == nil || a.Error.Check != "database" || a.Error.SQLState != "42883" {
		t.Errorf("a function PostgreSQL does not have: %+v", a.Error)
	}
	a, _ = sqlCall(t, cs, map[string]any{"sql": "SELECT agent_key" + where + " ORDER BY submitted DESC FETCH FIRST 5 ROWS WITH TIES"})
	if a.Error == nil || a.Error.Check != "ties" || !strings.Contains(a.Error.Rule, "rank()") {
		t.Errorf("WITH TIES: %+v", a.Error)
	}
	if got := f.audit(t); !slices.Equal(got, []string{
		"service:floor-analyst plumbline-cli invalid_argument order true",
		"service:floor-analyst plumbline-cli invalid_argument order true",
		"service:floor-analyst plumbline-cli ok - true",
		"service:floor-analyst plumbline-cli ok - true",
		"service:floor-analyst plumbline-cli invalid_argument database true",
		"service:floor-analyst plumbline-cli invalid_argument ties false",
	}) {
		t.Errorf("audit log:\n%s", strings.Join(got, "\n"))
	}
}
