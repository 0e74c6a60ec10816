package catalog

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// migrations holds every package's schema: 0001–0009 are the catalog's own,
// the other services drop their numbered files into the same folder.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrationFiles lists the embedded migrations in lexical order.
func migrationFiles() ([]string, error) { return migrationNames(migrations) }

func migrationNames(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// migrate applies, in lexical order, every embedded migration not yet
// recorded in schema_migrations, each in its own immediate transaction. A
// second process starting at the same moment waits for the write lock and
// then finds the version recorded, so nothing runs twice. Gaps in the
// numbering are fine: a version is the file name, not a counter.
func (s *Store) migrate(ctx context.Context) error { return s.migrateFS(ctx, migrations) }

func (s *Store) migrateFS(ctx context.Context, fsys fs.FS) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("catalog: create schema_migrations: %w", err)
	}
	files, err := migrationNames(fsys)
	if err != nil {
		return fmt.Errorf("catalog: list migrations: %w", err)
	}
	applied := map[string]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("catalog: read schema_migrations: %w", err)
	}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range files {
		version := strings.TrimSuffix(strings.TrimPrefix(f, "migrations/"), ".sql")
		if applied[version] {
			continue
		}
		if err := s.applyMigration(ctx, fsys, f, version); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, fsys fs.FS, file, version string) error {
	body, err := fs.ReadFile(fsys, file)
	if err != nil {
		return fmt.Errorf("catalog: read %s: %w", file, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("catalog: migration %s: %w", version, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return fmt.Errorf("catalog: migration %s: %w", version, err)
	}
	if n > 0 { // another process applied it while we waited for the lock
		return nil
	}
	if strings.TrimSpace(string(body)) != "" {
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("catalog: migration %s: %w", version, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`,
		version, s.now().UnixNano()); err != nil {
		return fmt.Errorf("catalog: record migration %s: %w", version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("catalog: commit migration %s: %w", version, err)
	}
	return nil
}

// MigrationVersions returns the applied migration versions in order.
func (s *Store) MigrationVersions(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, err
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
