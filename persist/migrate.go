package persist

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Each owner (catalog, plugin, observe, tasks, sessions) keeps its schema in
// its own package as numbered files, NNNN_what.sql, and hands them to
// Migrate. Applied versions are recorded per owner in persist_migrations; a
// version is the file name without .sql, so gaps in the numbering are fine
// and two owners may use the same number.
//
// Databases created before the owners had folders recorded every version in
// one table, schema_migrations, from one shared folder whose names were
// unique. A version found there counts as applied for whichever owner now
// ships a file of that name, so an old catalog.db opens and only the newer
// files run.

var (
	ownerName     = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	migrationName = regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)
)

// legacyTable is where versions were recorded before per-owner folders.
const legacyTable = "schema_migrations"

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS persist_migrations (
	owner      TEXT NOT NULL,
	version    TEXT NOT NULL,
	applied_at BIGINT NOT NULL, -- Unix microseconds
	PRIMARY KEY (owner, version)
)`

// Migrate applies, in lexical order, every NNNN_name.sql file at the root
// of fsys not yet recorded for owner, each in its own write transaction that
// also records it. A second process starting at the same moment waits for
// the write lock and then finds the version recorded, so nothing runs twice.
// A failing file rolls back whole and the error names it.
func (db *DB) Migrate(ctx context.Context, owner string, fsys fs.FS) error {
	if !ownerName.MatchString(owner) {
		return fmt.Errorf("persist: migration owner %q must be a short lower-case name", owner)
	}
	fsys, err := db.dialectFiles(fsys)
	if err != nil {
		return fmt.Errorf("persist: %s migrations: %w", owner, err)
	}
	files, err := migrationFiles(fsys)
	if err != nil {
		return fmt.Errorf("persist: %s migrations: %w", owner, err)
	}
	unlock, err := db.lockMigrations(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := db.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("persist: create persist_migrations: %w", err)
	}
	applied, err := db.Applied(ctx, owner)
	if err != nil {
		return err
	}
	done := make(map[string]bool, len(applied))
	for _, v := range applied {
		done[v] = true
	}
	legacy, err := db.tableExists(ctx, legacyTable)
	if err != nil {
		return err
	}
	for _, f := range files {
		version := strings.TrimSuffix(f, ".sql")
		if done[version] {
			continue
		}
		body, err := fs.ReadFile(fsys, f)
		if err != nil {
			return fmt.Errorf("persist: %s migration %s: %w", owner, version, err)
		}
		if err := db.apply(ctx, owner, version, string(body), legacy); err != nil {
			return err
		}
	}
	return nil
}

// dialectFiles picks the dialect's sub-folder of an owner's migrations
// when the dialect has one and the owner ships it; otherwise the root files,
// which are then written in SQL both backends accept.
func (db *DB) dialectFiles(fsys fs.FS) (fs.FS, error) {
	dir := db.dialect.MigrationDir
	if dir == "" {
		return fsys, nil
	}
	st, err := fs.Stat(fsys, dir)
	if err != nil || !st.IsDir() {
		return fsys, nil
	}
	return fs.Sub(fsys, dir)
}

// lockMigrations holds the dialect's cross-process migration lock on one
// connection until the returned function runs; a no-op on SQLite, whose
// write lock already lets one process migrate at a time.
func (db *DB) lockMigrations(ctx context.Context) (func(), error) {
	if db.dialect.MigrationLock == "" {
		return func() {}, nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("persist: migration lock: %w", err)
	}
	if _, err := conn.ExecContext(ctx, db.dialect.Rebind(db.dialect.MigrationLock), int64(migrationLockKey)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("persist: migration lock: %w", err)
	}
	return func() {
		// Unlock even when ctx ended; closing the connection would free
		// the lock too, but the pool keeps it open.
		conn.ExecContext(context.WithoutCancel(ctx), db.dialect.Rebind(db.dialect.MigrationUnlock), int64(migrationLockKey))
		conn.Close()
	}, nil
}

func migrationFiles(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		if !migrationName.MatchString(e.Name()) {
			return nil, fmt.Errorf("file %s is not named NNNN_name.sql (four digits, lower-case words)", e.Name())
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

func (db *DB) apply(ctx context.Context, owner, version, body string, legacy bool) error {
	err := db.Write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM persist_migrations WHERE owner = ? AND version = ?`,
			owner, version).Scan(&n); err != nil {
			return err
		}
		if n > 0 { // another process applied it while we waited for the lock
			return nil
		}
		if legacy {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+legacyTable+` WHERE version = ?`,
				version).Scan(&n); err != nil {
				return err
			}
		}
		if n == 0 && strings.TrimSpace(body) != "" {
			if _, err := tx.ExecContext(ctx, body); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO persist_migrations(owner, version, applied_at) VALUES (?, ?, ?)`,
			owner, version, Micros(db.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("persist: %s migration %s: %w", owner, version, err)
	}
	return nil
}

// Applied returns the versions applied for owner, in order.
func (db *DB) Applied(ctx context.Context, owner string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM persist_migrations WHERE owner = ? ORDER BY version`, owner)
	if err != nil {
		return nil, fmt.Errorf("persist: read applied migrations: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (db *DB) tableExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, db.dialect.Rebind(db.dialect.TableExists), name).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("persist: look for table %s: %w", name, err)
	}
	return n > 0, nil
}
