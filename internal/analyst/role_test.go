package analyst_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck/hostile"
)

// The database is the real fence. With the parser and every check bypassed,
// each hostile statement goes straight to PostgreSQL, signed in as the
// agent login and running as the analyst role in a read-only transaction
// with a one-second statement timeout, as the door runs statements, over
// the simple protocol, which runs every statement of a string. The role
// alone refuses member data, writes and catalogue tricks, each with the
// SQLSTATE the corpus expects; what is only slow, the timeout ends; what
// PostgreSQL lets every role do (read public catalogue metadata, take a
// lock for its own session, make what a rollback undoes) runs, holds no
// member data and leaves nothing behind, as the door ends every
// transaction with ROLLBACK.
func TestTheRoleAloneRefusesTheHostileCorpus(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	admin := db.Conn(t)
	// Member data behind a view and a function, neither granted to the
	// analyst: a grant the DBA forgot to review is the trick.
	if _, err := admin.Exec(ctx, `CREATE VIEW analytics.member_calls_view AS SELECT * FROM crm.member_calls;
		CREATE FUNCTION analytics.member_transcripts() RETURNS SETOF text LANGUAGE sql AS 'SELECT transcript FROM crm.member_calls'`); err != nil {
		t.Fatal(err)
	}
	secrets := memberData(t, admin)
	for _, h := range hostile.Load(t) {
		t.Run(h.Name, func(t *testing.T) {
			cells, err := asAnalyst(t, db, h.SQL, h.Role == hostile.Contained)
			var pgErr *pgconn.PgError
			state := ""
			if errors.As(err, &pgErr) {
				state = pgErr.Code
			}
			switch h.Role {
			case hostile.Refused:
				if !slices.Contains(h.SQLState, state) {
					t.Errorf("the role answered %q (%v), want one of %v", state, err, h.SQLState)
				}
			case hostile.Slow:
				if state != "57014" {
					t.Errorf("the timeout did not end it: %v", err)
				}
			case hostile.Contained:
				if err != nil {
					t.Fatalf("PostgreSQL refused what it lets every role do: %v", err)
				}
				for _, c := range cells {
					for _, s := range secrets {
						if strings.Contains(c, s) {
							t.Fatalf("it revealed member data: %q", s)
						}
					}
				}
			default:
				t.Fatalf("unknown role outcome %q", h.Role)
			}
		})
	}
	// Nothing outlasted its transaction: the facts are whole, no table and
	// no large object was made.
	var facts, stolen, objects int
	if err := admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM metrics.agent_sales_daily),
		(SELECT count(*) FROM pg_class WHERE relname = 'stolen'), (SELECT count(*) FROM pg_largeobject_metadata)`).
		Scan(&facts, &stolen, &objects); err != nil || facts == 0 || stolen != 0 || objects != 0 {
		t.Errorf("after the corpus: %d sales rows, %d tables named stolen, %d large objects (%v)", facts, stolen, objects, err)
	}
}

// asAnalyst runs text as the door runs a statement, without the checks,
// on a connection of its own, and returns every cell it printed when
// collect is set.
func asAnalyst(t *testing.T, db *pgtest.DB, text string, collect bool) ([]string, error) {
	t.Helper()
	ctx := context.Background()
	tx, end := db.AsAnalyst(t, "1s")
	defer end()
	if !collect {
		_, err := tx.Exec(ctx, text, pgx.QueryExecModeSimpleProtocol)
		return nil, err
	}
	rows, err := tx.Query(ctx, text, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	var cells []string
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return nil, err
		}
		for _, v := range values {
			cells = append(cells, fmt.Sprint(v))
		}
	}
	return cells, rows.Err()
}

// memberData reads, as a superuser, values of the member data the analyst
// must never see: names, phone numbers, transcripts, recordings.
func memberData(t *testing.T, admin *pgx.Conn) []string {
	t.Helper()
	rows, err := admin.Query(context.Background(), `SELECT v FROM (SELECT member_name, member_phone, transcript, recording_url
		FROM crm.member_calls LIMIT 200) m, LATERAL (VALUES (member_name), (member_phone), (transcript), (recording_url)) x(v)
		WHERE length(v) >= 8`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(out) < 100 {
		t.Fatalf("%d member data values (%v): the demo floor should hold hundreds", len(out), err)
	}
	return out
}
