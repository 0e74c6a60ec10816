package catalog

import (
	"embed"
	"io/fs"
)

// migrations holds the catalog's own schema (buckets, namespaces, tables,
// users, API keys, worker tokens); persist applies them as owner "catalog".
// Other services keep their schemas in their own packages.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// MigrationOwner is the name the catalog's migrations are recorded under.
const MigrationOwner = "catalog"

// Migrations returns the catalog's migration files, rooted at the folder.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic("catalog: embedded migrations: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}
