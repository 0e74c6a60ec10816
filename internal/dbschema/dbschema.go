// Package dbschema names every owner of floe's database and migrates them
// all in one call. The composition roots (floe serve, every CLI command
// that opens the database, and test harnesses standing in for them) call
// Migrate once, right after persist.Open; constructors never migrate.
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

// All returns every owner's migrations in the order they apply: the
// catalog first, since the others refer to its tables and ids.
func All() []persist.Schema {
	return []persist.Schema{
		catalog.Migrations(),
		sessions.Migrations(),
		observe.Migrations(),
		plugin.Migrations(),
		tasks.Migrations(),
		audit.Migrations(),
	}
}

// Migrate applies every owner's migrations to db.
func Migrate(ctx context.Context, db *persist.DB) error {
	if err := db.Migrate(ctx, All()...); err != nil {
		return fmt.Errorf("migrate the database: %w", err)
	}
	return nil
}
