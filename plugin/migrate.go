package plugin

import (
	"embed"
	"io/fs"
)

// migrations holds the plugin channel's schema: job types, settings, jobs
// and their activity log.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the plugin's migrations are recorded under.
const MigrationOwner = "plugin"

// Migrations returns the plugin's migration files, rooted at the folder.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("plugin: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}
