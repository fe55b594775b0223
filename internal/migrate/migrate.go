package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

// Set is one ordered directory of migrations, recorded under its name.
type Set struct {
	Name  string
	Files fs.FS
}

type migration struct {
	name     string
	sql      string
	checksum string
}

var fileName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

const bootstrap = `
CREATE SCHEMA IF NOT EXISTS plumbline;
CREATE TABLE IF NOT EXISTS plumbline.schema_migrations (
    set_name   text NOT NULL,
    version    int NOT NULL,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (set_name, version)
)`

// lockKey is the advisory lock every migrator takes; the value is arbitrary
// but fixed, and the same as before the runner was goose's, so that old
// and new binaries starting at once still take turns.
const lockKey = 7_305_218_114

// Apply brings the database conn connects to up to date with every set, in
// the order given, over connections of its own with conn's configuration.
// It returns the names of the files it applied.
func Apply(ctx context.Context, conn *pgx.Conn, sets ...Set) (applied []string, err error) {
	db := stdlib.OpenDB(*conn.Config())
	defer db.Close()
	// goose holds the lock on one connection and migrates on another.
	db.SetMaxOpenConns(2)
	for _, set := range sets {
		names, err := applySet(ctx, db, set)
		applied = append(applied, names...)
		if err != nil {
			return applied, err
		}
	}
	return applied, nil
}

func applySet(ctx context.Context, db *sql.DB, set Set) ([]string, error) {
	files, err := load(set.Files)
	if err != nil {
		return nil, fmt.Errorf("read set %s: %w", set.Name, err)
	}
	var ms []*goose.Migration
	for version, m := range files {
		ms = append(ms, goose.NewGoMigration(version, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			// With no arguments pgx sends the file as one simple-protocol
			// query, so a file may hold many statements.
			_, err := tx.ExecContext(ctx, m.sql)
			return err
		}}, nil))
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockKey), lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectCustom, db, nil,
		goose.WithStore(&ledger{set: set.Name, files: files}), goose.WithGoMigrations(ms...),
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(locker), goose.WithSlog(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", set.Name, err)
	}
	results, err := p.Up(ctx)
	var partial *goose.PartialError
	if errors.As(err, &partial) {
		results, err = partial.Applied, fmt.Errorf("apply %s/%s: %w", set.Name, files[partial.Failed.Source.Version].name, partial.Err)
	}
	var applied []string
	for _, r := range results {
		applied = append(applied, set.Name+"/"+files[r.Source.Version].name)
	}
	if err != nil {
		return applied, fmt.Errorf("migrate set %s: %w", set.Name, err)
	}
	return applied, nil
}

// load reads a set's files by version.
func load(fsys fs.FS) (map[int64]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	out := map[int64]migration{}
	for _, e := range entries {
		match := fileName.FindStringSubmatch(e.Name())
		if e.IsDir() || match == nil {
			return nil, fmt.Errorf("%s: migration files are named NNNN_name.sql", e.Name())
		}
		version, _ := strconv.ParseInt(match[1], 10, 64)
		if version == 0 {
			return nil, fmt.Errorf("%s: versions start at 0001", e.Name())
		}
		if other, dup := out[version]; dup {
			return nil, fmt.Errorf("%s and %s share version %d", other.name, e.Name(), version)
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out[version] = migration{name: e.Name(), sql: string(body), checksum: hex.EncodeToString(sum[:])}
	}
	return out, nil
}

// ledger is goose's version store over plumbline.schema_migrations, one
// set's rows of it. Version 0, goose's mark that its table exists, is
// never written: the table's existence is the mark.
type ledger struct {
	set   string
	files map[int64]migration
}

var _ database.StoreExtender = (*ledger)(nil)

func (l *ledger) Tablename() string { return "plumbline.schema_migrations" }

func (l *ledger) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	var exists bool
	err := db.QueryRowContext(ctx, "SELECT to_regclass('plumbline.schema_migrations') IS NOT NULL").Scan(&exists)
	return exists, err
}

func (l *ledger) CreateVersionTable(ctx context.Context, db database.DBTxConn) error {
	_, err := db.ExecContext(ctx, bootstrap)
	return err
}

func (l *ledger) Insert(ctx context.Context, db database.DBTxConn, req database.InsertRequest) error {
	if req.Version == 0 {
		return nil
	}
	m := l.files[req.Version]
	_, err := db.ExecContext(ctx, "INSERT INTO plumbline.schema_migrations (set_name, version, name, checksum) VALUES ($1, $2, $3, $4)",
		l.set, req.Version, m.name, m.checksum)
	return err
}

func (l *ledger) Delete(ctx context.Context, db database.DBTxConn, version int64) error {
	return errors.New("migrations are history: plumbline never reverts one")
}

func (l *ledger) GetMigration(ctx context.Context, db database.DBTxConn, version int64) (*database.GetMigrationResult, error) {
	if version == 0 {
		return &database.GetMigrationResult{IsApplied: true}, nil
	}
	var r database.GetMigrationResult
	err := db.QueryRowContext(ctx, "SELECT applied_at FROM plumbline.schema_migrations WHERE set_name = $1 AND version = $2",
		l.set, version).Scan(&r.Timestamp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, database.ErrVersionNotFound
	}
	r.IsApplied = err == nil
	return &r, err
}

func (l *ledger) GetLatestVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	var v int64
	err := db.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM plumbline.schema_migrations WHERE set_name = $1", l.set).Scan(&v)
	return v, err
}

// ListMigrations lists the set's applied versions, newest first, as goose
// asks, and enforces the checksum rule: goose lists them before it applies
// anything, under the lock.
func (l *ledger) ListMigrations(ctx context.Context, db database.DBTxConn) ([]*database.ListMigrationsResult, error) {
	rows, err := db.QueryContext(ctx, "SELECT version, checksum FROM plumbline.schema_migrations WHERE set_name = $1 ORDER BY version DESC", l.set)
	if err != nil {
		return nil, fmt.Errorf("read migration ledger: %w", err)
	}
	defer rows.Close()
	var out []*database.ListMigrationsResult
	for rows.Next() {
		var v int64
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			return nil, fmt.Errorf("read migration ledger: %w", err)
		}
		if m, ok := l.files[v]; ok && m.checksum != sum {
			return nil, fmt.Errorf("migration %s/%s changed after it was applied; add a new migration instead of editing it", l.set, m.name)
		}
		out = append(out, &database.ListMigrationsResult{Version: v, IsApplied: true})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read migration ledger: %w", err)
	}
	return append(out, &database.ListMigrationsResult{Version: 0, IsApplied: true}), nil
}

// Rehearse runs, in tx, every file of sets that Apply would apply, in the
// same order, and returns their names; the caller rolls tx back. It refuses
// what Apply would refuse: a file changed since it was applied, or one
// whose version is below one already applied. A failing file is named.
func Rehearse(ctx context.Context, tx pgx.Tx, sets ...Set) ([]string, error) {
	// The migrations find plumbline's schema there, as Apply's ledger
	// creates it first.
	if _, err := tx.Exec(ctx, bootstrap); err != nil {
		return nil, fmt.Errorf("create migration ledger: %w", err)
	}
	var ran []string
	for _, set := range sets {
		files, err := load(set.Files)
		if err != nil {
			return ran, fmt.Errorf("read set %s: %w", set.Name, err)
		}
		applied := map[int64]string{}
		rows, err := tx.Query(ctx, "SELECT version, checksum FROM plumbline.schema_migrations WHERE set_name = $1", set.Name)
		if err != nil {
			return ran, fmt.Errorf("read migration ledger: %w", err)
		}
		var v int64
		var sum string
		if _, err := pgx.ForEachRow(rows, []any{&v, &sum}, func() error { applied[v] = sum; return nil }); err != nil {
			return ran, fmt.Errorf("read migration ledger: %w", err)
		}
		latest := int64(0)
		for v := range applied {
			latest = max(latest, v)
		}
		for _, v := range slices.Sorted(maps.Keys(files)) {
			m := files[v]
			sum, done := applied[v]
			switch {
			case done && sum != m.checksum:
				return ran, fmt.Errorf("migration %s/%s changed after it was applied; add a new migration instead of editing it", set.Name, m.name)
			case done:
				continue
			case v < latest:
				return ran, fmt.Errorf("migration %s/%s comes before one already applied; give it a version after %04d", set.Name, m.name, latest)
			}
			if _, err := tx.Exec(ctx, m.sql, pgx.QueryExecModeSimpleProtocol); err != nil {
				return ran, fmt.Errorf("apply %s/%s: %w", set.Name, m.name, err)
			}
			ran = append(ran, set.Name+"/"+m.name)
		}
	}
	return ran, nil
}
