// Package persisttest opens databases for tests of the packages that store
// rows through persist.
package persisttest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/floe/floe/persist"
)

// Open opens a fresh database in a temporary directory, closed when the
// test ends (after every cleanup registered later, such as a store's Close).
func Open(t testing.TB) *persist.DB {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "catalog.db"))
}

// OpenAt opens (creating if needed) the database at path, closed when the
// test ends.
func OpenAt(t testing.TB, path string) *persist.DB {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: path})
	if err != nil {
		t.Fatalf("open database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
