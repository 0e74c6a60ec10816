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
// its own package as numbered files, NNNN_what.sql, and describes them with
// a Schema. The composition root (floe serve, the CLI) hands every owner's
// Schema to one Migrate call when it opens the database; constructors never
// migrate. Applied versions are recorded per owner in persist_migrations; a
// version is the file name without .sql, so gaps in the numbering are fine
// and two owners may use the same number, but within one owner's root
// folder a number names one file.
//
// A dialect's sub-folder (postgres/) overrides by name: a file there
// replaces the root file of the same name on that backend, and a file with
// a name of its own is a step only that backend runs. Every other root file
// runs as it is, so a migration written once in portable SQL reaches both
// backends, and one that is not portable fails loudly on the backend it does
// not suit instead of being skipped while Migrate reports success. (The
// other safe rule, "refuse a root version the dialect lacks", would make
// every portable migration a copy in each folder: two files to keep equal.)
// A dialect step that stands for several root files (a consolidated
// schema) says so with an override per root file whose body is only a
// comment: it is recorded as applied and runs nothing.
//
// Databases created before the owners had folders recorded every version in
// one table, schema_migrations, from one shared folder whose names were
// unique. A version found there counts as applied for whichever owner now
// ships a file of that name, so an old catalog.db opens and only the newer
// files run.

var (
	ownerName     = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	migrationName = regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)
	versionName   = regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+$`)
)

// legacyTable is where versions were recorded before per-owner folders.
const legacyTable = "schema_migrations"

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS persist_migrations (
	owner      TEXT NOT NULL,
	version    TEXT NOT NULL,
	applied_at BIGINT NOT NULL, -- Unix microseconds
	PRIMARY KEY (owner, version)
)`

// Schema is one owner's migrations.
type Schema struct {
	// Owner names the owner its versions are recorded under: a short
	// lower-case name.
	Owner string
	// Files holds the NNNN_name.sql files at its root and, for a backend
	// whose SQL differs, a sub-folder named for its dialect (postgres/)
	// whose files override root files by name or add steps of their own.
	Files fs.FS
	// Renamed maps a version to the name it was applied under before its
	// file was renamed: a database that recorded the old name has run the
	// file, so the new name is recorded for it without running anything.
	Renamed map[string]string
}

// migration is one step of a schema as this database's dialect sees it.
type migration struct {
	version string // the file name without .sql
	fsys    fs.FS  // where the file is: the root or the dialect's folder
	file    string
}

// Migrate applies every schema in the order given (an owner whose tables
// refer to another's comes after it): for each, in lexical order, every
// version not yet recorded for its owner, each in its own write transaction
// that also records it. Every schema is checked before anything runs. A
// second process starting at the same moment waits for the migration lock
// and then finds the versions recorded, so nothing runs twice. A failing
// file rolls back whole and the error names it.
func (db *DB) Migrate(ctx context.Context, schemas ...Schema) error {
	plans := make([][]migration, len(schemas))
	owners := map[string]bool{}
	for i, sc := range schemas {
		if !ownerName.MatchString(sc.Owner) {
			return fmt.Errorf("persist: migration owner %q must be a short lower-case name", sc.Owner)
		}
		if owners[sc.Owner] {
			return fmt.Errorf("persist: migration owner %q is given twice", sc.Owner)
		}
		owners[sc.Owner] = true
		plan, err := db.plan(sc)
		if err != nil {
			return fmt.Errorf("persist: %s migrations: %w", sc.Owner, err)
		}
		plans[i] = plan
	}
	unlock, err := db.lockMigrations(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := db.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("persist: create persist_migrations: %w", err)
	}
	legacy, err := db.tableExists(ctx, legacyTable)
	if err != nil {
		return err
	}
	for i, sc := range schemas {
		if err := db.migrateOwner(ctx, sc, plans[i], legacy); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) migrateOwner(ctx context.Context, sc Schema, plan []migration, legacy bool) error {
	applied, err := db.Applied(ctx, sc.Owner)
	if err != nil {
		return err
	}
	done := make(map[string]bool, len(applied))
	for _, v := range applied {
		done[v] = true
	}
	for _, m := range plan {
		if done[m.version] {
			continue
		}
		body, err := fs.ReadFile(m.fsys, m.file)
		if err != nil {
			return fmt.Errorf("persist: %s migration %s: %w", sc.Owner, m.version, err)
		}
		if err := db.apply(ctx, sc.Owner, m.version, sc.Renamed[m.version], string(body), legacy); err != nil {
			return err
		}
	}
	return nil
}

// plan lists a schema's steps on this database's dialect, in lexical
// order: the root files, each replaced by the dialect folder's file of the
// same name if there is one, plus the dialect folder's own steps.
func (db *DB) plan(sc Schema) ([]migration, error) {
	if sc.Files == nil {
		return nil, errors.New("no migration files given")
	}
	root, err := migrationFiles(sc.Files, true)
	if err != nil {
		return nil, err
	}
	steps := map[string]migration{}
	for _, f := range root {
		v := strings.TrimSuffix(f, ".sql")
		steps[v] = migration{version: v, fsys: sc.Files, file: f}
	}
	if dir := db.dialect.MigrationDir; dir != "" {
		if st, err := fs.Stat(sc.Files, dir); err == nil && st.IsDir() {
			sub, err := fs.Sub(sc.Files, dir)
			if err != nil {
				return nil, err
			}
			own, err := migrationFiles(sub, false)
			if err != nil {
				return nil, fmt.Errorf("%s/: %w", dir, err)
			}
			for _, f := range own {
				v := strings.TrimSuffix(f, ".sql")
				steps[v] = migration{version: v, fsys: sub, file: f}
			}
		}
	}
	for v, old := range sc.Renamed {
		if _, ok := steps[v]; !ok {
			return nil, fmt.Errorf("renamed version %s has no file", v)
		}
		if !versionName.MatchString(old) || old == v {
			return nil, fmt.Errorf("version %s: %q is not an earlier NNNN_name version", v, old)
		}
	}
	out := make([]migration, 0, len(steps))
	for _, m := range steps {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
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

// migrationFiles lists the NNNN_name.sql files at the root of fsys in
// lexical order. In an owner's root folder (unique) a number names one file;
// a dialect folder may give several files one number, as its placeholders
// and the consolidated step they point to do.
func migrationFiles(fsys fs.FS, unique bool) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	numbered := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		if !migrationName.MatchString(e.Name()) {
			return nil, fmt.Errorf("file %s is not named NNNN_name.sql (four digits, lower-case words)", e.Name())
		}
		if n := e.Name()[:4]; unique {
			if other, ok := numbered[n]; ok {
				return nil, fmt.Errorf("files %s and %s share the number %s: give the newer one the next free number (and list its old name in Schema.Renamed if a database has applied it)", other, e.Name(), n)
			}
			numbered[n] = e.Name()
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// onlyComments reports whether an SQL body holds nothing but "--" comments
// and blank lines: a placeholder that records its version and runs nothing.
func onlyComments(body string) bool {
	for line := range strings.Lines(body) {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
}

// apply runs one version's body and records it, unless it counts as run
// already: recorded by another process meanwhile, under its former name
// (renamed), or in the legacy table.
func (db *DB) apply(ctx context.Context, owner, version, renamedFrom, body string, legacy bool) error {
	err := db.Write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM persist_migrations WHERE owner = ? AND version = ?`,
			owner, version).Scan(&n); err != nil {
			return err
		}
		if n > 0 { // another process applied it while we waited for the lock
			return nil
		}
		if renamedFrom != "" {
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM persist_migrations WHERE owner = ? AND version = ?`,
				owner, renamedFrom).Scan(&n); err != nil {
				return err
			}
		}
		for _, v := range []string{version, renamedFrom} {
			if n > 0 || !legacy || v == "" {
				continue
			}
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+legacyTable+` WHERE version = ?`,
				v).Scan(&n); err != nil {
				return err
			}
		}
		if n == 0 && !onlyComments(body) {
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
