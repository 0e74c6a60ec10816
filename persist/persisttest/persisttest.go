// Package persisttest opens databases for tests of the packages that store
// rows through persist.
//
// A package runs chosen tests on PostgreSQL too by listing them in a
// TestPostgres of its own (see Run) and calling pgtest.Main from its
// TestMain. Under TestPostgres every path a test opens stands for a
// PostgreSQL database instead of a SQLite file: one database per path, so
// handles opened on one path share it, as replicas sharing a database do.
package persisttest

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/pgtest"
)

// postgresPrefix starts the name of every test running under a package's
// TestPostgres.
const postgresPrefix = "TestPostgres/"

// Test is one test function to run again on PostgreSQL.
type Test struct {
	Name string
	Fn   func(*testing.T)
}

// Run runs each test as a subtest of t, which must be the package's
// TestPostgres, so every database those tests open is PostgreSQL.
func Run(t *testing.T, tests []Test) {
	if t.Name() != strings.TrimSuffix(postgresPrefix, "/") {
		t.Fatalf("persisttest.Run must be called from TestPostgres, not %s", t.Name())
	}
	t.Run("handles open PostgreSQL", func(t *testing.T) {
		if got := Open(t).Dialect().Name; got != "postgres" {
			t.Fatalf("a database under TestPostgres opened %s", got)
		}
	})
	for _, tc := range tests {
		t.Run(tc.Name, tc.Fn)
	}
}

// OnPostgres reports whether t runs under the package's TestPostgres.
func OnPostgres(t testing.TB) bool { return strings.HasPrefix(t.Name(), postgresPrefix) }

// databases maps a path to its PostgreSQL database under TestPostgres.
var databases sync.Map

// Path returns path, or under TestPostgres the URL of the PostgreSQL
// database standing for it (created on first use, dropped when the test
// that first asked ends).
func Path(t testing.TB, path string) string {
	t.Helper()
	if !OnPostgres(t) {
		return path
	}
	if v, ok := databases.Load(path); ok {
		return v.(string)
	}
	v, _ := databases.LoadOrStore(path, pgtest.DSN(t))
	return v.(string)
}

// Open opens a fresh database in a temporary directory and applies the
// given owners' migrations, as a composition root does (constructors never
// migrate); the database is closed when the test ends (after every cleanup
// registered later, such as a store's Close).
func Open(t testing.TB, schemas ...persist.Schema) *persist.DB {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "catalog.db"), schemas...)
}

// OpenAt opens (creating if needed) the database at path and applies the
// given owners' migrations; it is closed when the test ends.
func OpenAt(t testing.TB, path string, schemas ...persist.Schema) *persist.DB {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: Path(t, path)})
	if err != nil {
		t.Fatalf("open database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if len(schemas) > 0 {
		if err := db.Migrate(context.Background(), schemas...); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	return db
}
