package sqlcheck_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck"
	"plumbline/internal/sqlcheck/hostile"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// The analyst's allow-list of the demo floor, written out here.
var analystRelations = []string{
	"analytics.agent_team_history", "analytics.dim_agent", "analytics.dim_team", "analytics.team_floor_history",
	"live.sales_board", "metrics.agent_quality_daily", "metrics.agent_sales_daily", "metrics.agent_time_daily",
}

var (
	catalogOnce sync.Once
	catalog     map[string]bool
)

// floor returns the analyst's policy on the demo floor, with the names of
// PostgreSQL's catalogue as the door reads them, read once from a test
// database.
func floor(t testing.TB) *sqlcheck.Policy {
	t.Helper()
	catalogOnce.Do(func() {
		rows, err := pgtest.NewDB(t).Conn(t).Query(context.Background(), sqlcheck.CatalogQuery)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		catalog = map[string]bool{}
		for _, n := range names {
			catalog[n] = true
		}
	})
	if catalog == nil {
		t.Fatal("no catalogue names")
	}
	return &sqlcheck.Policy{Relations: analystRelations, Catalog: catalog}
}

// Every hostile statement is refused by the check it breaks, with a rule
// that repeats none of the statement's own names (every name with an
// underscore that is not on an allow-list, such as member_calls or
// pg_sleep) and choices drawn only from the allow-lists.
func TestHostileStatementsAreRefused(t *testing.T) {
	corpus := hostile.Load(t)
	if len(corpus) < 60 {
		t.Fatalf("the corpus holds %d statements; it must hold at least 60", len(corpus))
	}
	policy := floor(t)
	allowed := slices.Concat(policy.Relations, keys(sqlcheck.Functions), keys(sqlcheck.Types), keys(sqlcheck.Operators))
	for _, h := range corpus {
		st, err := sqlcheck.Check(h.SQL, policy)
		var r *sqlcheck.Refusal
		if !errors.As(err, &r) {
			t.Errorf("%s: passed (%v), want refused by %s", h.Name, st, h.Check)
			continue
		}
		if r.Check != h.Check {
			t.Errorf("%s: refused by %s (%s), want %s", h.Name, r.Check, r.Rule, h.Check)
		}
		for _, name := range names.FindAllString(strings.ToLower(h.SQL), -1) {
			if strings.Contains(name, "_") && !slices.Contains(allowed, name) && strings.Contains(r.Rule, name) {
				t.Errorf("%s: the rule repeats %q: %s", h.Name, name, r.Rule)
			}
		}
		for _, c := range r.Choices {
			if !slices.Contains(allowed, c) {
				t.Errorf("%s: choice %q is not on an allow-list", h.Name, c)
			}
		}
		if r.Position < 0 || r.Position > len([]rune(h.SQL))+1 {
			t.Errorf("%s: position %d outside the statement", h.Name, r.Position)
		}
	}
}

// A syntax error points where PostgreSQL's parser stopped, and says nothing
// of what is there (the parser's own message quotes it).
func TestSyntaxErrorsPointWithoutQuoting(t *testing.T) {
	policy := floor(t)
	_, err := sqlcheck.Check("SELECT agent_key FROM metrics.agent_sales_daily WHERE submitted >> ORDER BY 1", policy)
	var r *sqlcheck.Refusal
	if !errors.As(err, &r) || r.Check != sqlcheck.CheckSyntax {
		t.Fatalf("got %v, want a syntax refusal", err)
	}
	// PostgreSQL counts characters from 1; the parser stops at ORDER.
	if want := strings.Index("SELECT agent_key FROM metrics.agent_sales_daily WHERE submitted >> ORDER BY 1", "ORDER") + 1; r.Position != want {
		t.Errorf("position %d, want %d", r.Position, want)
	}
	if strings.Contains(r.Rule, "ORDER") || strings.Contains(r.Rule, ">>") {
		t.Errorf("the rule quotes the statement: %s", r.Rule)
	}
	// Positions count characters, not bytes.
	_, err = sqlcheck.Check("SELECT 'José Peña' FROM crm.member_calls", policy)
	if !errors.As(err, &r) || r.Position != len([]rune("SELECT 'José Peña' FROM "))+1 {
		t.Errorf("got %+v, want the relation refused at its character", err)
	}
}

// Statements an analyst writes pass: joins, WITH queries (recursive too),
// windows, aggregates with FILTER, CASE, set operations, date arithmetic and
// casts to plain types. What passes is deparsed from the checked tree,
// without the caller's comments.
func TestGoodStatementsPass(t *testing.T) {
	policy := floor(t)
	for _, tt := range []struct {
		sql       string
		relations []string
		columns   int
	}{
		{`SELECT h.team_key, sum(s.submitted) AS submitted, round(sum(s.submitted)::numeric / nullif(sum(s.submitted + s.lost), 0), 4)
		  FROM metrics.agent_sales_daily s JOIN analytics.agent_team_history h ON h.agent_key = s.agent_key
		  WHERE s.day >= date '2026-11-01' AND s.day < current_date - interval '1 day' -- last fortnight
		  GROUP BY 1 ORDER BY 2 DESC`, []string{"analytics.agent_team_history", "metrics.agent_sales_daily"}, 3},
		{`WITH weekly AS (SELECT agent_key, date_trunc('week', day)::date AS week, sum(logged_hours) AS hours
		    FROM metrics.agent_time_daily GROUP BY 1, 2)
		  SELECT agent_key, week, hours, rank() OVER (PARTITION BY week ORDER BY hours DESC NULLS LAST) FROM weekly`,
			[]string{"metrics.agent_time_daily"}, 4},
		{`WITH RECURSIVE d(day) AS (SELECT date '2026-11-01' UNION ALL SELECT (day + 1)::date FROM d WHERE day < date '2026-11-07')
		  SELECT d.day, count(b.*) FILTER (WHERE b.sales > 0) FROM d LEFT JOIN live.sales_board b
		    ON (b.entered_at AT TIME ZONE 'America/New_York')::date = d.day GROUP BY d.day ORDER BY d.day`,
			[]string{"live.sales_board"}, 2},
		{`SELECT team_key, CASE WHEN counts_as_sales THEN 'floor' ELSE 'other' END, extract(year FROM effective_from)
		  FROM analytics.team_floor_history UNION SELECT team_key, team_name, 0 FROM analytics.dim_team`,
			[]string{"analytics.dim_team", "analytics.team_floor_history"}, 3},
		{`SELECT agent_key, full_name FROM analytics.dim_agent WHERE left_on IS NULL AND lower(full_name) LIKE 'maria%'
		  AND agent_key IN (SELECT agent_key FROM metrics.agent_quality_daily WHERE audits_failed > 2) ORDER BY 2 LIMIT 10`,
			[]string{"analytics.dim_agent", "metrics.agent_quality_daily"}, 2},
	} {
		st, err := sqlcheck.Check(tt.sql, policy)
		if err != nil {
			t.Errorf("%.50s…: refused: %v", tt.sql, err)
			continue
		}
		if !slices.Equal(st.Relations, tt.relations) || st.Columns != tt.columns || len(st.Fingerprint) != 16 {
			t.Errorf("%.50s…: relations %v, %d columns, fingerprint %q", tt.sql, st.Relations, st.Columns, st.Fingerprint)
		}
		if strings.Contains(st.SQL, "--") || strings.Contains(st.SQL, "fortnight") {
			t.Errorf("the deparsed statement kept a comment: %s", st.SQL)
		}
		paged, err := st.Paged(st.Columns)
		if err != nil || !strings.HasPrefix(paged, "SELECT * FROM (") || !strings.HasSuffix(paged, ") AS page LIMIT $1 OFFSET $2") {
			t.Errorf("paged: %s (%v)", paged, err)
		}
	}
}

// The fingerprint is the statement's shape: the same whatever its
// constants, spacing and comments, and different for a different shape.
func TestFingerprints(t *testing.T) {
	policy := floor(t)
	fp := func(sql string) string {
		st, err := sqlcheck.Check(sql, policy)
		if err != nil {
			t.Fatal(err)
		}
		return st.Fingerprint
	}
	a := fp("SELECT sum(submitted) FROM metrics.agent_sales_daily WHERE day = '2026-11-01'")
	if b := fp("select  sum(submitted)\nfrom metrics.agent_sales_daily /* x */ where day = '2026-10-01'"); a != b {
		t.Errorf("same shape, fingerprints %s and %s", a, b)
	}
	if c := fp("SELECT sum(lost) FROM metrics.agent_sales_daily WHERE day = '2026-11-01'"); a == c {
		t.Errorf("different shapes share the fingerprint %s", a)
	}
}

// The cost of the parse and the checks for a statement an analyst writes:
// PostgreSQL's parser, the walk over the tree, the deparse and the
// fingerprint.
func BenchmarkCheck(b *testing.B) {
	for _, bb := range []struct{ name, sql string }{
		{"simple", "SELECT agent_key, submitted FROM metrics.agent_sales_daily WHERE day = date '2026-11-17'"},
		{"typical", `SELECT h.team_key, sum(s.submitted) AS submitted, round(sum(s.submitted)::numeric / nullif(sum(s.submitted + s.lost), 0), 4)
		  FROM metrics.agent_sales_daily s JOIN analytics.agent_team_history h ON h.agent_key = s.agent_key
		  WHERE s.day >= date '2026-11-01' AND s.day < current_date GROUP BY 1 ORDER BY 2 DESC`},
		{"large", strings.Repeat(`WITH w AS (SELECT agent_key, date_trunc('week', day) AS week, sum(logged_hours) h, sum(talk_hours) t
		  FROM metrics.agent_time_daily GROUP BY 1, 2) `, 1) + `SELECT w.agent_key, w.week, w.h, w.t, rank() OVER (PARTITION BY w.week ORDER BY w.h DESC),
		  (SELECT count(*) FROM metrics.agent_quality_daily q WHERE q.agent_key = w.agent_key AND q.audits_failed > 0),
		  CASE WHEN w.h > 40 THEN 'over' WHEN w.h > 30 THEN 'full' ELSE 'part' END
		  FROM w JOIN analytics.dim_agent a ON a.agent_key = w.agent_key WHERE a.left_on IS NULL ORDER BY 2, 3 DESC`},
	} {
		policy := floor(b)
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := sqlcheck.Check(bb.sql, policy); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var names = regexp.MustCompile(`[a-z_][a-z0-9_]*`)

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Pages are in a total order: the statement's own ORDER BY (or, without
// one, its DISTINCT ON) and then every column by position, counted from the
// tree, or given by the database when the select list has a *.
func TestPagesAreInATotalOrder(t *testing.T) {
	policy := floor(t)
	for _, tt := range []struct {
		sql     string
		columns int    // what the check counts
		given   int    // what the door passes to Paged
		order   string // the ORDER BY clause and the rest of the paged statement
	}{
		{"SELECT agent_key, submitted FROM metrics.agent_sales_daily WHERE day = date '2026-09-25' ORDER BY submitted DESC", 2, 2,
			"ORDER BY submitted DESC, 1, 2) AS page"},
		{"SELECT s.* FROM metrics.agent_sales_daily s ORDER BY 2 DESC NULLS LAST LIMIT 5", -1, 5,
			"ORDER BY 2 DESC NULLS LAST, 1, 2, 3, 4, 5 LIMIT 5) AS page"},
		{"SELECT (h).*, 1 FROM analytics.agent_team_history h", -1, 4, "ORDER BY 1, 2, 3, 4) AS page"},
		{"TABLE analytics.dim_team", -1, 3, "ORDER BY 1, 2, 3) AS page"},
		{"SELECT DISTINCT ON (team_key) team_key, agent_key FROM analytics.agent_team_history", 2, 2, "ORDER BY team_key, 1, 2) AS page"},
		{"SELECT DISTINCT team_key FROM analytics.agent_team_history", 1, 1, "ORDER BY 1) AS page"},
		{"SELECT team_key, 1 FROM analytics.dim_team UNION ALL (SELECT team_key, 2 FROM analytics.agent_team_history) ORDER BY 2 DESC LIMIT 3", 2, 2,
			"ORDER BY 2 DESC, 1, 2 LIMIT 3) AS page"},
		{"SELECT agent_key, count(*) FROM metrics.agent_sales_daily GROUP BY 1", 2, 2, "GROUP BY 1 ORDER BY 1, 2) AS page"},
		{"VALUES (1, 'a'), (2, 'b')", 2, 2, "ORDER BY 1, 2) AS page"},
		{"SELECT FROM analytics.dim_team", 0, 0, "FROM analytics.dim_team) AS page"},
	} {
		st, err := sqlcheck.Check(tt.sql, policy)
		if err != nil {
			t.Errorf("%s: refused: %v", tt.sql, err)
			continue
		}
		if st.Columns != tt.columns {
			t.Errorf("%s: %d columns, want %d", tt.sql, st.Columns, tt.columns)
		}
		for range 2 { // the second page's keys are the first's, not appended again
			paged, err := st.Paged(tt.given)
			if err != nil || !strings.HasSuffix(paged, " "+tt.order+" LIMIT $1 OFFSET $2") {
				t.Errorf("%s: paged as %s (%v), want it to end %s", tt.sql, paged, err, tt.order)
			}
		}
	}
}

// FETCH … WITH TIES on the outermost query is refused, teaching what to
// write instead: its tied rows could only be ordered by changing which rows
// tie. In a sub-select it is only a set of rows, and passes.
func TestWithTiesIsRefused(t *testing.T) {
	policy := floor(t)
	sql := "SELECT agent_key FROM metrics.agent_sales_daily ORDER BY submitted DESC FETCH FIRST 5 ROWS WITH TIES"
	_, err := sqlcheck.Check(sql, policy)
	var r *sqlcheck.Refusal
	if !errors.As(err, &r) || r.Check != sqlcheck.CheckTies || !strings.Contains(r.Rule, "rank()") || strings.Contains(r.Rule, "agent_key") ||
		r.Position != strings.Index(sql, "5 ROWS")+1 {
		t.Errorf("got %+v, want refused by %s at the row count", err, sqlcheck.CheckTies)
	}
	if _, err := sqlcheck.Check("SELECT * FROM ("+sql+") AS best ORDER BY 1", policy); err != nil {
		t.Errorf("WITH TIES in a sub-select: %v", err)
	}
}

// Every form of call PostgreSQL's parser can make is checked against the
// allow-lists, not only a function's name before its arguments: a name
// after a dot that is a function or a type off the allow-lists (which
// PostgreSQL calls, or casts to, wherever no column has that name), and an
// operator in ANY, ALL or ORDER BY … USING. Columns, fields and allowed
// functions after a dot pass; without the catalogue's names, no name
// after a dot passes unless an allow-list holds it.
func TestEveryFormOfCallIsChecked(t *testing.T) {
	policy := floor(t)
	for _, tt := range []struct{ sql, check string }{
		{"SELECT s.row_to_json FROM metrics.agent_sales_daily s", sqlcheck.CheckAttribute},
		{"SELECT (s).row_to_json FROM metrics.agent_sales_daily s", sqlcheck.CheckAttribute},
		{"SELECT (s.agent_key).quote_ident FROM metrics.agent_sales_daily s", sqlcheck.CheckAttribute},
		{"SELECT metrics.agent_sales_daily.pg_typeof FROM metrics.agent_sales_daily", sqlcheck.CheckAttribute},
		{"SELECT ('pg_class'::text).regclass", sqlcheck.CheckAttribute},
		{"SELECT (ROW(1, 2)).row_to_json", sqlcheck.CheckAttribute},
		{"SELECT 1 FROM metrics.agent_sales_daily WHERE agent_key OPERATOR(pg_catalog.~<~) ANY (SELECT team_key FROM analytics.dim_team)", sqlcheck.CheckOperator},
		{"SELECT 1 WHERE 1 OPERATOR(public.=) ALL (SELECT 1)", sqlcheck.CheckOperator},
		{"SELECT agent_key FROM metrics.agent_sales_daily ORDER BY agent_key USING ~<~", sqlcheck.CheckOperator},
	} {
		_, err := sqlcheck.Check(tt.sql, policy)
		var r *sqlcheck.Refusal
		if !errors.As(err, &r) || r.Check != tt.check || r.Position < 1 || strings.Contains(r.Rule, "_") {
			t.Errorf("%s: got %+v, want refused by %s at a position, naming nothing of the statement", tt.sql, err, tt.check)
		}
	}
	for _, sql := range []string{
		"SELECT s.agent_key, s.day, metrics.agent_sales_daily.submitted FROM metrics.agent_sales_daily JOIN metrics.agent_sales_daily s USING (agent_key, day)",
		"SELECT (h).*, (h).team_key, (h.agent_key).text FROM analytics.agent_team_history h",
		"SELECT w.sum, w.count FROM (SELECT sum(submitted), count(*) FROM metrics.agent_sales_daily) w",
		"SELECT agent_key FROM metrics.agent_sales_daily WHERE agent_key = ANY (SELECT agent_key FROM analytics.dim_agent) ORDER BY day USING >",
	} {
		if _, err := sqlcheck.Check(sql, policy); err != nil {
			t.Errorf("%s: refused: %v", sql, err)
		}
	}
	_, err := sqlcheck.Check("SELECT s.agent_key FROM metrics.agent_sales_daily s", &sqlcheck.Policy{Relations: analystRelations})
	if r := (*sqlcheck.Refusal)(nil); !errors.As(err, &r) || r.Check != sqlcheck.CheckAttribute {
		t.Errorf("without the catalogue's names: %v, want refused", err)
	}
}
