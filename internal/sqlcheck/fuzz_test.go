package sqlcheck_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"plumbline/internal/pgtest"
	"plumbline/internal/sqlcheck"
)

// FuzzCheck drives the grammar of grammar_test.go with the fuzzer's bytes
// and checks every SELECT it makes: the check never panics, every refusal
// teaches, and every statement it accepts touches only allow-listed
// relations and functions, as PostgreSQL itself judges it. The judge is a
// role that holds only the allow-list, in a database of its own where no
// built-in function may be run by PUBLIC: SELECT on the analyst's
// relations, EXECUTE on every function whose name is on the allow-list, on
// the functions behind the allowed operators, on the casts to the allowed
// types and on the implicit casts PostgreSQL applies to make a statement's
// values fit (but those to the catalogue's reg* types, which look names
// up), and on the output functions of every type and the input
// functions of the allowed ones, which a cast through text calls. Each
// accepted statement is explained as that role:
// PostgreSQL checks EXECUTE on every function and SELECT on every relation
// a plan calls or reads when it sets the plan up, so a refusal of
// privilege (42501) is an escape, whatever form of call reached it.
func FuzzCheck(f *testing.F) {
	seeds := rand.New(rand.NewPCG(1, 2))
	for range 32 {
		b := make([]byte, 16+seeds.IntN(112))
		for i := range b {
			b[i] = byte(seeds.IntN(256))
		}
		f.Add(b)
	}
	for i := range 16 {
		f.Add([]byte(strings.Repeat(string(rune('0'+i)), 48)))
	}
	o := newOracle(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		sql := generate(in)
		st, err := sqlcheck.Check(sql, o.policy)
		var r *sqlcheck.Refusal
		switch {
		case errors.As(err, &r):
			if r.Check == "" || r.Rule == "" || r.Choices == nil || r.Position < 0 || r.Position > len([]rune(sql))+1 {
				t.Fatalf("a refusal that does not teach: %+v\n%s", r, sql)
			}
			return
		case err != nil:
			t.Fatalf("neither a statement nor a refusal: %v\n%s", err, sql)
		}
		for _, rel := range st.Relations {
			if !slices.Contains(o.policy.Relations, rel) {
				t.Fatalf("accepted a relation off the allow-list, %s:\n%s", rel, sql)
			}
		}
		o.judge(t, sql, st.SQL)
	})
}

// oracle is PostgreSQL judging what a statement touches.
type oracle struct {
	conn   *pgx.Conn // signed in as a superuser, running as the judging role
	policy *sqlcheck.Policy
}

// newOracle makes the judging role in a database of its own, and a
// connection that runs as it. A fuzzing run's workers share the cluster
// of the process that starts them, each with a database of its own.
func newOracle(f *testing.F) *oracle {
	ctx := context.Background()
	db := pgtest.NewDB(f)
	if os.Getenv("PLUMBLINE_TEST_DSN") == "" {
		f.Setenv("PLUMBLINE_TEST_DSN", db.DSN)
	}
	admin := db.Conn(f)
	role := fmt.Sprintf("fz_%08x", rand.Uint32())
	o := &oracle{policy: floor(f)}
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" NOLOGIN"); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP OWNED BY "+role+"; DROP ROLE "+role); err != nil {
			f.Errorf("drop the judging role: %v", err)
		}
	})
	var grants string
	err := admin.QueryRow(ctx, `SELECT string_agg(format('GRANT EXECUTE ON FUNCTION %s TO %I', f, $4::text), '; ')
		FROM (SELECT p.oid::regprocedure AS f FROM pg_proc p
		      WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY($1)
		      UNION SELECT o.oprcode::regprocedure FROM pg_operator o
		      WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname = ANY($2) AND o.oprcode <> 0
		      UNION SELECT c.castfunc::regprocedure FROM pg_cast c JOIN pg_type t ON t.oid = c.casttarget
		      WHERE c.castfunc <> 0 AND (t.typname = ANY($3) OR c.castcontext = 'i' AND t.typname !~ '^reg')
		      UNION SELECT unnest(ARRAY[t.typoutput, t.typsend])::regprocedure FROM pg_type t
		      UNION SELECT unnest(ARRAY[t.typinput, t.typreceive])::regprocedure FROM pg_type t WHERE t.typname = ANY($3)) allowed
		WHERE f::oid <> 0`,
		keys(sqlcheck.Functions), keys(sqlcheck.Operators), keys(sqlcheck.Types), role).Scan(&grants)
	if err != nil {
		f.Fatal(err)
	}
	setup := fmt.Sprintf(`REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog FROM PUBLIC;
		GRANT USAGE ON SCHEMA analytics, metrics, live TO %[1]s; GRANT SELECT ON %[2]s TO %[1]s; %[3]s`,
		role, strings.Join(analystRelations, ", "), grants)
	if _, err := admin.Exec(ctx, setup); err != nil {
		f.Fatal(err)
	}
	o.conn = db.Conn(f)
	if _, err := o.conn.Exec(ctx, "SET ROLE "+role+"; SET search_path = pg_catalog, pg_temp; SET statement_timeout = '2s'"); err != nil {
		f.Fatal(err)
	}
	return o
}

// judge explains the checked statement as the judging role, and fails the
// test if PostgreSQL finds it touching anything the role does not hold.
// Any other error (a type that does not fit, a column that is not there)
// is the statement's own, which the door would answer too.
func (o *oracle) judge(t *testing.T, text, checked string) {
	_, err := o.conn.Exec(context.Background(), "EXPLAIN "+checked, pgx.QueryExecModeSimpleProtocol)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
	case errors.As(err, &pgErr) && pgErr.Code == "42501":
		t.Fatalf("escape: the check accepted a statement that %s\n%s", pgErr.Message, text)
	case errors.As(err, &pgErr):
	default:
		t.Fatalf("the judge failed: %v", err)
	}
}
