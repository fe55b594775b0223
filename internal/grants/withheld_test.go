package grants_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/internal/grants"
	"plumbline/internal/pgtest"
	sqlfiles "plumbline/sql"
)

// The analyst sees no one else. Signed in as the agent login and running
// as the analyst role in a read-only transaction, as the analyst's door
// runs a statement, every probe of another session (plumbline's login
// running a report for a manager, named as plumbline names it), of the size
// or statistics of a table the analyst may not read, of the server's files,
// or of what outlasts the transaction is refused by the database alone.
func TestTheAnalystSeesNoOneElse(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	if _, err := db.Conn(t).Exec(ctx, "ANALYZE crm.member_calls"); err != nil {
		t.Fatal(err)
	}
	// Another session: plumbline's login, in a report's transaction for
	// person p0042, holding its lock on the source it reads.
	app, err := pgx.Connect(ctx, db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	tx, err := app.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL ROLE %s; SET LOCAL application_name = 'plumbline: p0042';
		SELECT count(*) FROM plumbline_seen.agent_sales_daily`, pgtest.Roles.Reader), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	const memberCalls = `(SELECT oid FROM pg_class WHERE relname = 'member_calls')`
	for _, p := range []struct{ name, sql string }{
		{"pg_stat_activity", "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'plumbline: %'"},
		{"pg_stat_get_activity", "SELECT application_name FROM pg_stat_get_activity(NULL) WHERE application_name LIKE 'plumbline: %'"},
		{"pg_locks", "SELECT pid, relation::regclass FROM pg_locks WHERE pid <> pg_backend_pid() AND relation IS NOT NULL"},
		{"pg_class.reltuples", "SELECT reltuples FROM pg_class WHERE relname = 'member_calls'"},
		{"pg_class.relpages", "SELECT relpages FROM pg_class WHERE relname = 'member_calls'"},
		{"pg_stat_user_tables", "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'member_calls'"},
		{"pg_stat_get_live_tuples", "SELECT pg_stat_get_live_tuples(" + memberCalls + ")"},
		{"pg_stats", "SELECT attname, most_common_vals::text FROM pg_stats WHERE tablename = 'member_calls'"},
		{"pg_total_relation_size", "SELECT pg_total_relation_size(" + memberCalls + ")"},
		{"pg_database_size", "SELECT pg_database_size(current_database())"},
		{"lo_create", "SELECT lo_create(0)"},
		{"lo_from_bytea", "SELECT lo_from_bytea(0, 'x')"},
		{"lo_import", "SELECT lo_import('/etc/hostname')"},
		{"pg_notify", "SELECT pg_notify('plumbline', 'x')"},
		{"pg_advisory_lock", "SELECT pg_advisory_lock(42)"},
		{"pg_try_advisory_xact_lock", "SELECT pg_try_advisory_xact_lock(42)"},
		{"pg_logical_emit_message", "SELECT pg_logical_emit_message(false, 'plumbline', 'x')"},
		{"pg_read_file", "SELECT pg_read_file('pg_hba.conf')"},
		{"pg_ls_dir", "SELECT pg_ls_dir('.')"},
	} {
		t.Run(p.name, func(t *testing.T) {
			rows, err := asAnalyst(t, db, p.sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				t.Errorf("as the analyst it ran and saw %q (%v); want it refused (42501)", rows, err)
			}
		})
	}
}

// asAnalyst runs one statement as the door runs it (signed in as the
// agent login, as the analyst role, in a read-only transaction that is
// rolled back) and returns its rows as text.
func asAnalyst(t *testing.T, db *pgtest.DB, stmt string) ([][]string, error) {
	t.Helper()
	tx, end := db.AsAnalyst(t, "2s")
	defer end()
	rows, err := tx.Query(context.Background(), stmt, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return out, err
		}
		row := make([]string, len(values))
		for i, v := range values {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// What setup takes from every role goes back to those that need it: a
// monitoring role (pg_read_all_stats, and so pg_monitor) sees other
// sessions and the size of tables, the database's owner keeps all of it
// (pg_dump reads pg_class.relpages), auth takes its transaction's advisory
// lock and the logger its logical decoding message; the analyst still
// reads what every role may of the catalogue.
func TestWithheldGoesBackToWhoNeedsIt(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	admin := db.Conn(t)
	owner := "pt" + db.Name + "_owner"
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s NOLOGIN; ALTER DATABASE %s OWNER TO %[1]s", owner, db.Name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s OWNER TO CURRENT_USER; DROP OWNED BY %s; DROP ROLE %[2]s", db.Name, owner)); err != nil {
			t.Errorf("drop the owner: %v", err)
		}
	})
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	as, err := grants.LoadFor(sqlfiles.AnalystGrants(), grants.ToAnalyst)
	if err != nil {
		t.Fatal(err)
	}
	if err := grants.Apply(ctx, admin, pgtest.Roles, append(gs, as...), pgtest.Catalog(t)); err != nil { // as setup does for a database of that owner
		t.Fatal(err)
	}
	for _, c := range []struct{ role, sql string }{
		{"pg_read_all_stats", "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"},
		{"pg_read_all_stats", "SELECT reltuples, relpages FROM pg_class WHERE relname = 'member_calls'"},
		{"pg_read_all_stats", "SELECT pg_total_relation_size(oid) FROM pg_class WHERE relname = 'member_calls'"},
		{owner, "SELECT reltuples, relpages FROM pg_class WHERE relname = 'member_calls'"},
		{owner, "SELECT count(*) FROM pg_locks"},
		{owner, "SELECT pg_try_advisory_xact_lock(1), lo_unlink(lo_create(0)), pg_notify('plumbline', 'x')"},
		{pgtest.Roles.Auth, "SELECT pg_advisory_xact_lock(1)"},
		{pgtest.Roles.Logger, "SELECT pg_logical_emit_message(true, 'plumbline', '')"},
		{pgtest.Roles.Analyst, "SELECT relname, relkind, relnamespace FROM pg_class WHERE relname = 'member_calls'"},
	} {
		err := pgx.BeginFunc(ctx, admin, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+c.role); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, c.sql)
			return err
		})
		if err != nil {
			t.Errorf("as %s, %s: %v", c.role, c.sql, err)
		}
	}
}
