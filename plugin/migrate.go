package plugin

import (
	"embed"
	"io/fs"

	"github.com/floe/floe/persist"
)

// migrations holds the plugin channel's schema: job types, settings, jobs
// and their activity log.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the plugin's migrations are recorded under.
const MigrationOwner = "plugin"

// Migrations returns plugin's migrations for persist.Migrate, which the
// composition root runs for every owner when it opens the database.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("plugin: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub}
}
