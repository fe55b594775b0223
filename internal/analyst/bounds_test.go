package analyst_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/pgtest"
)

// No answer can grow past the door's bounds, 64 KiB a value and 256 KiB a
// page by default, counted as PostgreSQL sends a value and as the answer's
// JSON holds it. A value past its bound is refused, naming the bound and
// how to narrow the statement; a page reaching its bound stops at the rows
// that fit, with has_more, next_offset and a note naming the bound, and
// the next page goes on from there; a row past the page's bound on its own
// is refused. Past a bound the door stops reading and cancels the
// statement: no backend goes on running it.
func TestAnswersAreBounded(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))

	for _, c := range []struct{ name, sql, check, bound string }{
		{"a long value", "SELECT lpad('', 2000000, 'x') FROM generate_series(1, 3)", "value", "64 KiB"},
		{"a value long only as JSON", "SELECT lpad('', 20000, '<')", "value", "64 KiB"},
		{"a wide row", "SELECT lpad('', 60000, 'a'), lpad('', 60000, 'b'), lpad('', 60000, 'c'), lpad('', 60000, 'd'), lpad('', 60000, 'e')", "page", "256 KiB"},
	} {
		a, isError := sqlCall(t, cs, map[string]any{"sql": c.sql})
		if !isError || a.Error == nil || a.Error.Check != c.check || a.Error.Argument != "sql" || !strings.Contains(a.Error.Rule, c.bound) ||
			!strings.Contains(a.Error.Rule, "left(") || strings.Contains(a.Error.Rule, "lpad") {
			t.Errorf("%s: %d rows, error %+v; want refused by the %s bound of %s, saying how to narrow", c.name, len(a.Rows), a.Error, c.check, c.bound)
		}
		f.noneRunning(t, "lpad")
	}

	const wide = "SELECT n, lpad('', 60000, 'x') FROM generate_series(1, 10) n"
	var got []any
	offset := 0
	for calls := 0; ; calls++ {
		a, isError := sqlCall(t, cs, map[string]any{"sql": wide, "offset": offset})
		if isError || calls > 3 {
			t.Fatalf("page at %d: %+v", offset, a.Error)
		}
		if len(a.Rows) < 10-offset && (!a.HasMore || a.Next == nil || *a.Next != offset+len(a.Rows) ||
			!strings.Contains(strings.Join(a.Notes, " "), "256 KiB")) {
			t.Errorf("page at %d: %d rows, has_more %v, next %v, notes %v; want as many rows as fit, and a note on the bound",
				offset, len(a.Rows), a.HasMore, a.Next, a.Notes)
		}
		for _, r := range a.Rows {
			got = append(got, r[0])
		}
		if !a.HasMore {
			break
		}
		offset = *a.Next
	}
	if len(got) != 10 || got[0] != float64(1) || got[9] != float64(10) {
		t.Errorf("the pages held %v, want 1 to 10 once each", got)
	}
	if audit := strings.Join(f.audit(t), "\n"); !strings.Contains(audit, "invalid_argument value") || !strings.Contains(audit, "invalid_argument page") {
		t.Errorf("audit log:\n%s", audit)
	}
}

// noneRunning waits a little for the agent login's backends to stop
// running statements holding marker, and fails the test if any still
// does.
func (f *floor) noneRunning(t *testing.T, marker string) {
	t.Helper()
	var running int
	for range 50 {
		err := f.sql.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND usename = $1 AND state <> 'idle' AND query LIKE '%' || $2 || '%'`,
			pgtest.Roles.Agent, marker).Scan(&running)
		if err != nil {
			t.Fatal(err)
		}
		if running == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d backends of the agent login still run the statement", running)
}

// The database holds the analyst to its limits: setup gives the agent
// login and the analyst role statement_timeout, lock_timeout,
// idle_in_transaction_session_timeout, work_mem and temp_file_limit, and a
// statement past one is refused, saying how to narrow it: here a sort
// past temp_file_limit, set to 1MB for this database alone.
func TestTheDatabaseHoldsTheAnalystToItsLimits(t *testing.T) {
	f := newFloor(t, setup{before: func(db *pgtest.DB, conn *pgx.Conn) {
		if _, err := conn.Exec(context.Background(), "ALTER ROLE "+pgtest.Roles.Agent+" IN DATABASE "+db.Name+" SET temp_file_limit = '1MB'"); err != nil {
			t.Fatal(err)
		}
	}})
	rows, err := f.sql.Query(context.Background(), `SELECT r.rolname || ' ' || c FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole,
		unnest(s.setconfig) c WHERE s.setdatabase = 0 AND r.rolname IN ($1, $2) ORDER BY 1`, pgtest.Roles.Agent, pgtest.Roles.Analyst)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, role := range []string{pgtest.Roles.Agent, pgtest.Roles.Analyst} {
		for _, s := range []string{"idle_in_transaction_session_timeout=10s", "lock_timeout=2s", "statement_timeout=10s", "temp_file_limit=256MB", "work_mem=16MB"} {
			want = append(want, role+" "+s)
		}
	}
	if !slices.Equal(settings, want) {
		t.Errorf("the roles' settings:\n%s\nwant\n%s", strings.Join(settings, "\n"), strings.Join(want, "\n"))
	}
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	a, isError := sqlCall(t, cs, map[string]any{"sql": "SELECT count(DISTINCT lpad('', 200, n::text)) FROM generate_series(1, 200000) n"})
	if !isError || a.Error == nil || a.Error.SQLState != "53400" || !strings.Contains(a.Error.Rule, "temp_file_limit") {
		t.Errorf("a sort past temp_file_limit: %+v", a.Error)
	}
}

// A JSON value nested deeper than an answer holds is refused as such,
// naming how to narrow it, rather than failing as if the door were down.
func TestADeepJSONValueIsRefusedAsTooDeep(t *testing.T) {
	f := newFloor(t, setup{})
	cs := f.client(t, f.serviceToken(t, "floor-analyst", "reports:read", "analyst:sql"))
	for _, n := range []int{12000, 65} {
		sql := fmt.Sprintf("SELECT 1 AS n, (lpad('', %d, '[') || lpad('', %d, ']'))::jsonb AS deep", n, n)
		a, isError := sqlCall(t, cs, map[string]any{"sql": sql})
		if !isError || a.Error == nil || a.Error.Check != "depth" || a.Error.Code != "invalid_argument" || a.Error.Argument != "sql" ||
			!strings.Contains(a.Error.Rule, "column 2") || !strings.Contains(a.Error.Rule, "::text") || strings.Contains(a.Error.Rule, "repeat") {
			t.Errorf("%d deep: %d rows, error %s; want refused as too deep, naming the column and how to narrow", n, len(a.Rows), said(a))
		}
	}
	a, isError := sqlCall(t, cs, map[string]any{"sql": "SELECT (lpad('', 192, '{\"a\":[') || '\"]}\"' || lpad('', 64, ']}'))::jsonb AS deep"})
	if isError || len(a.Rows) != 1 {
		t.Errorf("64 deep, with a bracket inside a string: error %s; want answered", said(a))
	}
}

// said is the check and rule of an answer's error, if it has one.
func said(a answer) string {
	if a.Error == nil {
		return "none"
	}
	return a.Error.Check + ": " + a.Error.Rule
}
