package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/pgstore"
	"plumbline/internal/pgtest"
	"plumbline/reports/ask"
)

// foreignStore opens a store as the analyst's door does: signed in as the
// agent login, running statements someone else wrote as the analyst.
func foreignStore(t *testing.T, db *pgtest.DB, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	opts.Role, opts.Foreign = pgtest.Roles.Analyst, true
	st, err := pgstore.Open(context.Background(), db.AgentDSN, nil, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// Nothing a statement someone else wrote does outlasts it on a pooled
// connection, even what its ROLLBACK leaves: run as the analyst alone, as
// if the check had missed them and the role held what PUBLIC no longer
// does, a session's advisory lock and a prepared statement are gone by the
// next statement on the same connection.
func TestForeignStatementsLeaveNothingOnTheConnection(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, "GRANT EXECUTE ON FUNCTION pg_advisory_lock(bigint) TO "+pgtest.Roles.Analyst); err != nil {
		t.Fatal(err)
	}
	st := foreignStore(t, db, pgstore.Options{MaxConns: 1})
	tx := pgstore.Tx{Role: pgtest.Roles.Analyst, Discard: true}
	var first, next, prepared, locks int
	err := st.Batch(ctx, tx, func(b *pgx.Batch) {
		b.Queue("SELECT pg_backend_pid()").QueryRow(func(r pgx.Row) error { return r.Scan(&first) })
		b.Queue("SELECT pg_advisory_lock(42)")
		b.Queue("PREPARE kept AS SELECT 1")
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Batch(ctx, tx, func(b *pgx.Batch) {
		b.Queue("SELECT pg_backend_pid(), (SELECT count(*) FROM pg_prepared_statements)").QueryRow(func(r pgx.Row) error {
			return r.Scan(&next, &prepared)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", next).Scan(&locks); err != nil {
		t.Fatal(err)
	}
	if next != first || locks != 0 || prepared != 0 {
		t.Errorf("the next statement, on backend %d after %d, found %d advisory locks and %d prepared statements; want the same connection, with none",
			next, first, locks, prepared)
	}
}

// A statement someone else wrote is over soon after its statement timeout
// even when it will not stop: one that swallows every cancel, its own
// timeout's too, is cancelled and then has its backend ended, and the call
// ends with the timeout. Where the login may not end its backends, the
// call ends all the same, saying so.
func TestAStatementThatIgnoresCancelsIsEnded(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, `CREATE FUNCTION analytics.stubborn() RETURNS int LANGUAGE plpgsql AS $$
		BEGIN
			LOOP
				BEGIN
					PERFORM pg_sleep(0.05);
				EXCEPTION WHEN query_canceled THEN NULL;
				END;
			END LOOP;
		END $$`); err != nil {
		t.Fatal(err)
	}
	st := foreignStore(t, db, pgstore.Options{StatementTimeout: 500 * time.Millisecond, MaxConns: 1})
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := st.Batch(callCtx, pgstore.Tx{Role: pgtest.Roles.Analyst, Discard: true}, func(b *pgx.Batch) {
		b.Queue("SELECT analytics.stubborn()")
	})
	if !errors.Is(err, ask.ErrTimeout) {
		t.Errorf("the call ended with %v, want the statement timeout", err)
	}
	var running int
	err = admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE '%stubborn%' AND pid <> pg_backend_pid()`).Scan(&running)
	if err != nil || running != 0 {
		t.Errorf("%d backends still run the statement (%v)", running, err)
	}
	if _, err := admin.Exec(ctx, "REVOKE EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint) FROM PUBLIC"); err != nil {
		t.Fatal(err)
	}
	err = st.Batch(callCtx, pgstore.Tx{Role: pgtest.Roles.Analyst, Discard: true}, func(b *pgx.Batch) {
		b.Queue("SELECT analytics.stubborn()")
	})
	if !errors.Is(err, ask.ErrTimeout) || !errors.Is(err, pgstore.ErrNotEnded) {
		t.Errorf("with no right to end a backend, the call ended with %v, want the statement timeout, saying the backend was not ended", err)
	}
}
