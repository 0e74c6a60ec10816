package observe

import (
	"embed"
	"io/fs"

	"github.com/floe/floe/persist"
)

// migrations holds the observation table.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name observe's migrations are recorded under.
const MigrationOwner = "observe"

// Migrations returns observe's migrations for persist.Migrate, which the
// composition root runs for every owner when it opens the database.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("observe: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub}
}
