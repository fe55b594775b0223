package pgtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// NewEmptyDB returns a database with nothing in it, dropped when the test
// ends: no floor, none of plumbline's schema and no grants (the cluster's
// roles are the cluster's, as on any server), for what a company sets up
// from scratch.
func NewEmptyDB(t testing.TB) *DB {
	t.Helper()
	once.Do(func() { shared.err = shared.setUp() })
	if shared.err != nil {
		t.Fatalf("pgtest: no PostgreSQL for this test: %v", shared.err)
	}
	ctx := context.Background()
	name := "e_" + randomHex(6)
	if err := shared.exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		if err := shared.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	dsn := withDatabase(shared.dsn, name)
	return &DB{DSN: dsn, AppDSN: withLogin(dsn, Roles.App, loginPassword), AgentDSN: withLogin(dsn, Roles.Agent, loginPassword), Name: name}
}

// LoadExport loads a company's export into the database, as
// its own tables: dir/warehouse.sql creates them, and each
// dir/export/<schema>.<table>.csv (with a header row) is copied into its
// table.
func (db *DB) LoadExport(t testing.TB, dir string) {
	t.Helper()
	ctx := context.Background()
	conn := db.Conn(t)
	ddl, err := os.ReadFile(filepath.Join(dir, "warehouse.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(ddl), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("pgtest: create the warehouse: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "export", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("pgtest: no export under %s: %v", dir, err)
	}
	for _, file := range files {
		table := strings.TrimSuffix(filepath.Base(file), ".csv")
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.PgConn().CopyFrom(ctx, f, "COPY "+pgx.Identifier(strings.Split(table, ".")).Sanitize()+" FROM STDIN (FORMAT csv, HEADER true)")
		f.Close()
		if err != nil {
			t.Fatalf("pgtest: copy %s: %v", file, err)
		}
	}
}
