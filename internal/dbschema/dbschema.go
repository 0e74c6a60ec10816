// Package dbschema names every owner of floe's databases and migrates them
// in one call per database. On PostgreSQL there is one database and
// Migrate applies every owner to it. On SQLite the audit trail has its own
// file beside the catalog's (its batched inserts would otherwise take the
// one writer lock from catalog commits and invalidate the catalog's read
// caches): MigrateCatalog applies the catalog file's owners, MigrateAudit
// the audit file's. The composition roots (floe serve, every CLI command
// that opens a database, and test harnesses standing in for them) migrate
// once, right after persist.Open; constructors never migrate.
package dbschema

import (
	"context"
	"fmt"

	"github.com/floe/floe/audit"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web/sessions"
)

// Catalog returns the migrations of the catalog database's owners in the
// order they apply: the catalog first, since the others refer to its
// tables and ids. The audit trail is not among them.
func Catalog() []persist.Schema {
	return []persist.Schema{
		catalog.Migrations(),
		sessions.Migrations(),
		observe.Migrations(),
		plugin.Migrations(),
		tasks.Migrations(),
	}
}

// Audit returns the migrations of the audit trail's database: on SQLite
// its own file, on PostgreSQL the one database. It refers to no table of
// the catalog's.
func Audit() []persist.Schema {
	return []persist.Schema{audit.Migrations()}
}

// All returns every owner's migrations, Catalog's then Audit's: what one
// database holding everything (PostgreSQL, or a test's single file) needs.
func All() []persist.Schema {
	return append(Catalog(), Audit()...)
}

// Migrate applies every owner's migrations to db, the one database of a
// PostgreSQL deployment.
func Migrate(ctx context.Context, db *persist.DB) error {
	if err := db.Migrate(ctx, All()...); err != nil {
		return fmt.Errorf("migrate the database: %w", err)
	}
	return nil
}

// MigrateCatalog applies Catalog's migrations to a SQLite catalog file.
func MigrateCatalog(ctx context.Context, db *persist.DB) error {
	if err := db.Migrate(ctx, Catalog()...); err != nil {
		return fmt.Errorf("migrate the catalog database: %w", err)
	}
	return nil
}

// MigrateAudit applies Audit's migrations to the audit trail's SQLite file.
func MigrateAudit(ctx context.Context, db *persist.DB) error {
	if err := db.Migrate(ctx, Audit()...); err != nil {
		return fmt.Errorf("migrate the audit database: %w", err)
	}
	return nil
}
