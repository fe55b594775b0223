package pgtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// MarkReads replaces relation, a table "schema.name", with a view over it
// (the table keeps its rows as "schema.name_table") that marks each read
// made for one of people, as plumbline names them on the session
// ("plumbline: <person>"): the reading session takes the shared advisory
// lock key, which outlives its transaction, so that Marked sees the read
// even when the call it was for was refused afterwards. The reader is
// given that lock function, which setup takes from every role.
func (db *DB) MarkReads(t testing.TB, relation string, key int, people ...string) {
	t.Helper()
	schema, name, _ := strings.Cut(relation, ".")
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = "'plumbline: " + strings.ReplaceAll(p, "'", "''") + "'"
	}
	view := pgx.Identifier{schema, name}.Sanitize()
	_, err := db.Conn(t).Exec(context.Background(), fmt.Sprintf(`
		ALTER TABLE %[1]s RENAME TO %[2]s;
		CREATE VIEW %[1]s AS SELECT t.* FROM %[3]s t
		CROSS JOIN (SELECT pg_advisory_lock_shared(%[4]d) WHERE current_setting('application_name') IN (%[5]s)) AS mark;
		GRANT SELECT ON %[1]s TO %[6]s;
		GRANT EXECUTE ON FUNCTION pg_catalog.pg_advisory_lock_shared(bigint) TO %[6]s`,
		view, pgx.Identifier{name + "_table"}.Sanitize(), pgx.Identifier{schema, name + "_table"}.Sanitize(),
		key, strings.Join(names, ", "), pgx.Identifier{Roles.Reader}.Sanitize()))
	if err != nil {
		t.Fatalf("pgtest: mark the reads of %s: %v", relation, err)
	}
	// The views that filter by reach followed the table to its new name;
	// they are made anew over the view that marks.
	db.Serve(t, Catalog(t))
}

// Marked says how many sessions hold the mark key of MarkReads.
func (db *DB) Marked(t testing.TB, key int) int {
	t.Helper()
	var n int
	err := db.Conn(t).QueryRow(context.Background(), `SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND objid = $1 AND granted`, key).Scan(&n)
	if err != nil {
		t.Fatalf("pgtest: read the marks: %v", err)
	}
	return n
}
