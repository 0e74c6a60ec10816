package tasks

import (
	"embed"
	"io/fs"
)

// migrations holds the lance_tasks table.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the task migrations are recorded under.
const MigrationOwner = "tasks"

// Migrations returns the task migration files, rooted at the folder.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("tasks: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}
