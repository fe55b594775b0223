// Package migrate applies plumbline's ordered SQL migrations and records them.
//
// A set is a directory of files named NNNN_name.sql. Each file runs once, in
// version order, inside its own transaction, and is recorded with a checksum
// in plumbline.schema_migrations. A file that changed after it was applied
// stops the run: migrations are history, not configuration. Concurrent
// migrators (several replicas starting at once) serialise on an advisory lock.
//
// This is a small package rather than a library on purpose: the sets are
// embedded in the binary, the runner talks pgx directly, and nothing here
// needs templating or down-migrations.
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// Set is one ordered directory of migrations, recorded under its name.
type Set struct {
	Name  string
	Files fs.FS
}

type migration struct {
	version  int
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
// but fixed.
const lockKey = 7_305_218_114

// Apply brings the database up to date with every set, in the order given.
// It returns the names of the files it applied.
func Apply(ctx context.Context, conn *pgx.Conn, sets ...Set) (applied []string, err error) {
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey); uerr != nil && err == nil {
			err = fmt.Errorf("release migration lock: %w", uerr)
		}
	}()
	if _, err := conn.Exec(ctx, bootstrap); err != nil {
		return nil, fmt.Errorf("create migration ledger: %w", err)
	}
	for _, set := range sets {
		names, err := applySet(ctx, conn, set)
		applied = append(applied, names...)
		if err != nil {
			return applied, err
		}
	}
	return applied, nil
}

func applySet(ctx context.Context, conn *pgx.Conn, set Set) ([]string, error) {
	migrations, err := load(set.Files)
	if err != nil {
		return nil, fmt.Errorf("read set %s: %w", set.Name, err)
	}
	done, err := ledger(ctx, conn, set.Name)
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range migrations {
		file := set.Name + "/" + m.name
		if sum, ok := done[m.version]; ok {
			if sum != m.checksum {
				return applied, fmt.Errorf("migration %s changed after it was applied; add a new migration instead of editing it", file)
			}
			continue
		}
		if err := run(ctx, conn, set.Name, m); err != nil {
			return applied, fmt.Errorf("apply %s: %w", file, err)
		}
		applied = append(applied, file)
	}
	return applied, nil
}

func load(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []migration
	seen := map[int]string{}
	for _, e := range entries {
		match := fileName.FindStringSubmatch(e.Name())
		if e.IsDir() || match == nil {
			return nil, fmt.Errorf("%s: migration files are named NNNN_name.sql", e.Name())
		}
		version, _ := strconv.Atoi(match[1])
		if other, dup := seen[version]; dup {
			return nil, fmt.Errorf("%s and %s share version %d", other, e.Name(), version)
		}
		seen[version] = e.Name()
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, migration{version: version, name: e.Name(), sql: string(body), checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

func ledger(ctx context.Context, conn *pgx.Conn, set string) (map[int]string, error) {
	rows, err := conn.Query(ctx, "SELECT version, checksum FROM plumbline.schema_migrations WHERE set_name = $1", set)
	if err != nil {
		return nil, fmt.Errorf("read migration ledger: %w", err)
	}
	done := map[int]string{}
	var version int
	var sum string
	_, err = pgx.ForEachRow(rows, []any{&version, &sum}, func() error {
		done[version] = sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read migration ledger: %w", err)
	}
	return done, nil
}

func run(ctx context.Context, conn *pgx.Conn, set string, m migration) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// The simple protocol lets one file hold many statements.
		if _, err := tx.Exec(ctx, m.sql, pgx.QueryExecModeSimpleProtocol); err != nil {
			return err
		}
		_, err := tx.Exec(ctx,
			"INSERT INTO plumbline.schema_migrations (set_name, version, name, checksum) VALUES ($1, $2, $3, $4)",
			set, m.version, m.name, m.checksum)
		return err
	})
}
