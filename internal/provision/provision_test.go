package provision_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/demofloor"
	"plumbline/internal/grants"
	"plumbline/internal/pgtest"
	"plumbline/internal/provision"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// An empty database, provisioned twice: the first run applies every
// migration, fills the schema before any grant exists and ends with the
// reader holding exactly its grant files; the second applies nothing and
// changes no grant.
func TestDatabaseFromEmpty(t *testing.T) {
	ctx := context.Background()
	conn := pgtest.NewEmptyDB(t).Conn(t)

	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	floor, err := demofloor.Generate(demofloor.Options{Seed: pgtest.Seed, Now: pgtest.Now})
	if err != nil {
		t.Fatal(err)
	}
	var sawUngranted int
	plan := provision.Plan{Demo: true, Roles: pgtest.Roles, Grants: gs, Fill: func(ctx context.Context, conn *pgx.Conn) error {
		// The schema is there, and the reader holds nothing in it yet.
		err := conn.QueryRow(ctx, `SELECT count(*) FROM (VALUES ('metrics.agent_sales_daily'), ('analytics.dim_team')) AS r(rel)
			WHERE to_regclass(rel) IS NOT NULL AND NOT has_table_privilege($1, rel, 'SELECT')`, pgtest.Roles.Reader).Scan(&sawUngranted)
		if err != nil {
			return err
		}
		return demofloor.Load(ctx, conn, floor)
	}}
	applied, err := provision.Database(ctx, conn, plan)
	if err != nil {
		t.Fatal(err)
	}
	want := count(t, sqlfiles.Demo()) + count(t, sqlfiles.Migrations())
	if len(applied) != want || sawUngranted != 2 {
		t.Errorf("first run: %d migrations applied (want %d); fill saw %d of 2 relations migrated and ungranted", len(applied), want, sawUngranted)
	}
	readable := func() []string {
		rows, err := conn.Query(ctx, `SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE c.relkind IN ('r', 'v', 'm', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
			AND has_table_privilege($1, c.oid, 'SELECT')`, pgtest.Roles.Reader)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names) // in Go's order, as grants.ReaderReads is
		return names
	}
	first := readable()
	if want := grants.ReaderReads(gs, pgtest.Catalog(t)); !slices.Equal(first, want) {
		t.Errorf("the reader may read %v, want the grant files' %v", first, want)
	}

	plan.Fill = nil
	applied, err = provision.Database(ctx, conn, plan)
	if err != nil || len(applied) != 0 {
		t.Errorf("second run: applied %v, err %v", applied, err)
	}
	if again := readable(); !slices.Equal(again, first) {
		t.Errorf("second run changed the reader's relations: %v, then %v", first, again)
	}
}

func count(t *testing.T, fsys fs.FS) int {
	t.Helper()
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations: %v", err)
	}
	return len(files)
}

// Only a superuser may take PostgreSQL's built-ins from PUBLIC; anyone
// else is merely warned. Set up by a role that owns the database and all
// it holds but is not a superuser, as on a managed service, provisioning
// stops and says so, rather than leave the analyst what it should not see.
func TestDatabaseNeedsASuperuser(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	admin := db.Conn(t)
	role, name := db.Name+"_dba", db.Name+"_managed"
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN CREATEROLE PASSWORD 'pgtest-login'", role)); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s OWNER %s", name, role)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the database: %v", err)
		}
		if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
			t.Errorf("drop the role: %v", err)
		}
	})
	cfg, err := pgx.ParseConfig(db.LoginDSN(role))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	gs, err := grants.Load(sqlfiles.Grants())
	if err != nil {
		t.Fatal(err)
	}
	_, err = provision.Database(ctx, conn, provision.Plan{Demo: true, Roles: pgtest.Roles, Grants: gs})
	if err == nil || !strings.Contains(err.Error(), "from PUBLIC: ") || !strings.Contains(err.Error(), "run plumbline setup as a superuser") {
		t.Errorf("provisioned by a role that is not a superuser: %v", err)
	}
}

// A catalogue that reads a relation no grant file names is refused before
// anything changes: the company's SQL and plumbline's migrations were only
// rehearsed.
func TestRefusesAnUngrantedRelation(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewEmptyDB(t)
	db.LoadExport(t, "../../testdata/floor2")
	conn := db.Conn(t)
	cat, err := catalog.LoadDir("../../testdata/floor2/catalog")
	if err != nil {
		t.Fatal(err)
	}
	gs, err := grants.LoadDir("../../testdata/floor2/grants")
	if err != nil {
		t.Fatal(err)
	}
	var fewer []*grants.Grant
	for _, g := range gs {
		if g.Relation != "reporting.loads" {
			fewer = append(fewer, g)
		}
	}
	_, err = provision.Database(ctx, conn, provision.Plan{Roles: pgtest.Roles, Grants: fewer, Catalog: cat, SQL: os.DirFS("../../testdata/floor2/sql")})
	var refusal *provision.Refusal
	if !errors.As(err, &refusal) || len(refusal.Missing) != 0 || len(refusal.Ungranted) != 1 || refusal.Ungranted[0].Relation != "reporting.loads" ||
		!strings.Contains(err.Error(), "reporting.loads (named by the catalogue at ../../testdata/floor2/catalog/floor.yaml:31:1)") {
		t.Fatalf("a catalogue reading an ungranted relation: %v", err)
	}
	var schemas int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname IN ('plumbline', 'reporting')").Scan(&schemas); err != nil || schemas != 0 {
		t.Errorf("the refused plan left %d of plumbline's and the company's schemas: %v", schemas, err)
	}
}

// The demo's members get reach as plumbline access grant gives it, once:
// each lead sees the team they lead, the floor manager the floor, from the
// floor's first day; a second run adds no row. The lead handed out is the
// Falcons'.
func TestDemoMembers(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	opts := demofloor.Options{Seed: pgtest.Seed, Now: pgtest.Now}
	var people provision.DemoPeople
	for run := 1; run <= 2; run++ {
		var err error
		if people, err = provision.DemoMembers(ctx, db.DSN, pgtest.Roles.Auth, opts); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	if people.Team.Key != "falcons" || people.FloorManager != provision.DemoFloorManager {
		t.Errorf("the demo hands out %+v", people)
	}
	conn := db.Conn(t)
	start, _, err := demofloor.Span(opts)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT r.person_id, r.sees || coalesce(':' || r.team_key, ''), count(*)
		FROM plumbline.reach r WHERE r.set_by = $1 AND r.from_day = $2 AND r.to_day IS NULL GROUP BY 1, 2 ORDER BY 1, 2`, provision.DemoSetBy, start)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var person, sees string
		var n int
		err := r.Scan(&person, &sees, &n)
		return fmt.Sprintf("%s %s %d", person, sees, n), err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	leads, err := conn.Query(ctx, `SELECT x FROM analytics.dim_team, LATERAL (VALUES (lead_agent_key || ' team:' || team_key || ' 1', 1),
		(lead_agent_key || ' totals 1', 2)) v(x, n) ORDER BY lead_agent_key, n`)
	if err != nil {
		t.Fatal(err)
	}
	if want, err = pgx.CollectRows(leads, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	want = append(want, provision.DemoFloorManager.PersonID+" floor 1")
	if !slices.Equal(got, want) {
		t.Errorf("the demo's rows of reach:\n%v\nwant:\n%v", got, want)
	}
	var total int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM plumbline.reach").Scan(&total); err != nil || total != len(want) {
		t.Errorf("plumbline.reach holds %d rows (%v), want %d", total, err, len(want))
	}
	var lead string
	if err := conn.QueryRow(ctx, "SELECT lead_agent_key FROM analytics.dim_team WHERE team_key = 'falcons'").Scan(&lead); err != nil || people.Lead.PersonID != lead {
		t.Errorf("the lead handed out is %s, not the Falcons' %s (%v)", people.Lead.PersonID, lead, err)
	}
}
