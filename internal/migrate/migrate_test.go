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
