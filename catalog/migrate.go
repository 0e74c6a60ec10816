package catalog

import (
	"embed"
	"io/fs"

	"github.com/floe/floe/persist"
)

// migrations holds the catalog's own schema (buckets, namespaces, tables,
// users, API keys, worker tokens); persist applies them as owner "catalog".
// Other services keep their schemas in their own packages.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the catalog's migrations are recorded under.
const MigrationOwner = "catalog"

// Migrations returns catalog's migrations for persist.Migrate, which the
// composition root runs for every owner when it opens the database.
func Migrations() persist.Schema {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("catalog: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return persist.Schema{Owner: MigrationOwner, Files: sub,
		// Two files once shared the number 0007; the later one moved to
		// 0009 (the next free number) under its old name's record.
		Renamed: map[string]string{"0009_sigv4_maintenance": "0007_sigv4_maintenance"},
	}
}
