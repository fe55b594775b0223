package migrate_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"plumbline/internal/migrate"
	"plumbline/internal/pgtest"
	sqlfiles "plumbline/sql"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestApply(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	sets := []migrate.Set{{Name: "demo", Files: sqlfiles.Demo()}, {Name: "plumbline", Files: sqlfiles.Migrations()}}
	applied, err := migrate.Apply(ctx, conn, sets...)
	if err != nil || len(applied) != 0 {
		t.Fatalf("re-applying applied %v, %v; want nothing", applied, err)
	}
	extra := migrate.Set{Name: "extra", Files: fstest.MapFS{
		"0002_second.sql": {Data: []byte("CREATE TABLE second (x int);")},
		"0001_first.sql":  {Data: []byte("CREATE TABLE first (x int); CREATE TABLE first_too (x int);")},
	}}
	applied, err = migrate.Apply(ctx, conn, extra)
	if err != nil || strings.Join(applied, " ") != "extra/0001_first.sql extra/0002_second.sql" {
		t.Fatalf("applied %v, %v; want both files in version order", applied, err)
	}
	var n int
	conn.QueryRow(ctx, "SELECT count(*) FROM plumbline.schema_migrations WHERE set_name = 'extra'").Scan(&n)
	if n != 2 {
		t.Errorf("%d migrations recorded, want 2", n)
	}

	changed := migrate.Set{Name: "extra", Files: fstest.MapFS{
		"0001_first.sql": {Data: []byte("CREATE TABLE first (y int);")},
	}}
	if _, err := migrate.Apply(ctx, conn, changed); err == nil || !strings.Contains(err.Error(), "changed after it was applied") {
		t.Errorf("an edited migration: %v", err)
	}
	badName := migrate.Set{Name: "bad", Files: fstest.MapFS{"first.sql": {Data: []byte("SELECT 1")}}}
	if _, err := migrate.Apply(ctx, conn, badName); err == nil || !strings.Contains(err.Error(), "NNNN_name.sql") {
		t.Errorf("a badly named file: %v", err)
	}
	failing := migrate.Set{Name: "failing", Files: fstest.MapFS{"0001_broken.sql": {Data: []byte("CREATE TABLE nope (x nosuchtype);")}}}
	if _, err := migrate.Apply(ctx, conn, failing); err == nil {
		t.Error("a failing migration was reported applied")
	}
	conn.QueryRow(ctx, "SELECT count(*) FROM plumbline.schema_migrations WHERE set_name = 'failing'").Scan(&n)
	if n != 0 {
		t.Error("a failing migration was recorded")
	}
}

// Migrators started at once take turns on the lock: each file runs once,
// by one of them, and neither fails.
func TestConcurrentMigratorsTakeTurns(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	set := migrate.Set{Name: "slow", Files: fstest.MapFS{
		"0001_slow.sql": {Data: []byte("SELECT pg_sleep(0.3); CREATE TABLE slow_one (x int);")},
		"0002_next.sql": {Data: []byte("CREATE TABLE slow_two (x int);")},
	}}
	const migrators = 3
	results := make(chan []string, migrators)
	errs := make(chan error, migrators)
	for range migrators {
		go func() {
			applied, err := migrate.Apply(ctx, db.Conn(t), set)
			results <- applied
			errs <- err
		}()
	}
	var all []string
	for range migrators {
		all = append(all, <-results...)
		if err := <-errs; err != nil {
			t.Errorf("a concurrent migrator: %v", err)
		}
	}
	if strings.Join(all, " ") != "slow/0001_slow.sql slow/0002_next.sql" {
		t.Errorf("applied %v across %d migrators; want each file once, in order", all, migrators)
	}
}

// A file numbered below one already applied is refused, not run out of
// order.
func TestOutOfOrderIsRefused(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	later := fstest.MapFS{"0002_later.sql": {Data: []byte("CREATE TABLE later (x int);")}}
	if _, err := migrate.Apply(ctx, conn, migrate.Set{Name: "order", Files: later}); err != nil {
		t.Fatal(err)
	}
	later["0001_earlier.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE earlier (x int);")}
	applied, err := migrate.Apply(ctx, conn, migrate.Set{Name: "order", Files: later})
	if err == nil || len(applied) != 0 || !strings.Contains(err.Error(), "missing") {
		t.Errorf("an earlier file after a later one: applied %v, %v; want it refused", applied, err)

	}
	var exists bool
	conn.QueryRow(ctx, "SELECT to_regclass('earlier') IS NOT NULL").Scan(&exists)
	if exists {
		t.Error("the out-of-order file ran")
	}
}

// A rehearsal runs what Apply would run, in the transaction it is given,
// and refuses what Apply would refuse, so that setup can roll it all back
// and change nothing.
func TestRehearse(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	rehearse := func(sets ...migrate.Set) ([]string, error) {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		return migrate.Rehearse(ctx, tx, sets...)
	}
	applied := []migrate.Set{{Name: "demo", Files: sqlfiles.Demo()}, {Name: "plumbline", Files: sqlfiles.Migrations()}}
	if ran, err := rehearse(applied...); err != nil || len(ran) != 0 {
		t.Errorf("rehearsing applied sets ran %v, %v; want nothing", ran, err)
	}
	files := fstest.MapFS{
		"0002_second.sql": {Data: []byte("CREATE TABLE second (x int);")},
		"0001_first.sql":  {Data: []byte("CREATE TABLE first (x int);")},
	}
	ran, err := rehearse(migrate.Set{Name: "own", Files: files})
	var left bool
	conn.QueryRow(ctx, "SELECT to_regclass('first') IS NOT NULL OR to_regclass('second') IS NOT NULL").Scan(&left)
	if err != nil || strings.Join(ran, " ") != "own/0001_first.sql own/0002_second.sql" || left {
		t.Errorf("a rehearsal ran %v, %v, and left its tables: %v; want both in order and nothing left", ran, err, left)
	}
	if _, err := migrate.Apply(ctx, conn, migrate.Set{Name: "own", Files: fstest.MapFS{"0002_second.sql": files["0002_second.sql"]}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"changed", fstest.MapFS{"0002_second.sql": {Data: []byte("CREATE TABLE second (y int);")}}, "own/0002_second.sql changed after it was applied"},
		{"out of order", files, "own/0001_first.sql comes before one already applied"},
		{"failing", fstest.MapFS{"0002_second.sql": files["0002_second.sql"], "0003_broken.sql": {Data: []byte("CREATE TABLE nope (x nosuchtype);")}},
			"apply own/0003_broken.sql: "},
	} {
		if _, err := rehearse(migrate.Set{Name: "own", Files: tc.files}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
