package tasks

import (
	"embed"
	"io/fs"

	"github.com/floe/floe/persist"
)

// migrations holds the lance_tasks table.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the task migrations are recorded under.
const MigrationOwner = "tasks"

// Migrations returns tasks's migrations for persist.Migrate, which the
// composition root runs for every owner when it opens the database.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("tasks: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub}
}
