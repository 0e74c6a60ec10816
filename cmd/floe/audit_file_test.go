package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/floe/floe/persist"
)

// TestAuditTrailHasItsOwnSQLiteFile: on SQLite the entries a CLI command
// records go to <data>/audit.db, the file floe audit export (and serve)
// reads; the catalog file holds no audit table, so the trail's inserts
// never take its writer lock from catalog commits.
func TestAuditTrailHasItsOwnSQLiteFile(t *testing.T) {
	dir := t.TempDir()
	data := "--data=" + dir
	for _, c := range [][]string{{"init"}, {"bucket", "create", "own", "--format", "lance"}} {
		if out, code := run(t, append(c, data)...); code != 0 {
			t.Fatalf("%q: %d\n%s", c, code, out)
		}
	}
	ctx := context.Background()
	count := func(file, q string) int {
		t.Helper()
		db, err := persist.Open(ctx, persist.Options{Path: filepath.Join(dir, file)})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %s: %v", file, q, err)
		}
		return n
	}
	if n := count("catalog.db", `SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'audit%'`); n != 0 {
		t.Errorf("the catalog file has %d audit tables or indexes", n)
	}
	if n := count("audit.db", `SELECT COUNT(*) FROM audit_events WHERE operation = 'bucket create' AND bucket = 'own'`); n != 1 {
		t.Errorf("audit.db holds %d entries of bucket create own, want 1", n)
	}
	if n := count("audit.db", `SELECT COUNT(*) FROM sqlite_master WHERE name = 'buckets'`); n != 0 {
		t.Errorf("audit.db has the catalog's tables")
	}
	es := exported(t, data)
	if len(es) != 1 || es[0].Operation != "bucket create" || es[0].Bucket != "own" {
		t.Fatalf("export read %+v, want the one bucket create", es)
	}
}
