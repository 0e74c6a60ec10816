package observe

import (
	"embed"
	"io/fs"
	"time"
)

// migrations holds the observation table.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name observe's migrations are recorded under.
const MigrationOwner = "observe"

// startupTimeout bounds the migrations and the load New runs.
const startupTimeout = 30 * time.Second

// Migrations returns observe's migration files, rooted at the folder.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("observe: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}
