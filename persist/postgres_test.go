package persist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(changeHelperEnv); path != "" {
		os.Exit(changeHelper(path))
	}
	os.Exit(pgtest.Main(m))
}

// backends lists where a test may open a database: a SQLite file and a
// fresh PostgreSQL database. Each returns a path for Options.Path.
var backends = []struct {
	name string
	path func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "t.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }},
}

func openPath(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenPicksDialect(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if got := openPath(t, b.path(t)).Dialect().Name; got != b.name {
				t.Errorf("dialect %s, want %s", got, b.name)
			}
		})
	}
}

// A PostgreSQL URL with a password never shows it in Open's error.
func TestOpenErrorHidesPassword(t *testing.T) {
	_, err := Open(context.Background(), Options{Path: "postgres://floe:s3cret@127.0.0.1:1/floe?sslmode=disable&connect_timeout=2"})
	if err == nil {
		t.Fatal("open of a closed port succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret") {
		t.Errorf("error shows the password: %s", msg)
	}
}

// An owner's postgres/ folder overrides root files by name on PostgreSQL
// and is ignored on SQLite: a root file it does not override runs on both
// (written once, in portable SQL), a file of its own runs only there, and a
// placeholder holding only comments records its version and runs nothing.
func TestMigrateDialectFolder(t *testing.T) {
	fsys := fstest.MapFS{
		"0001_a.sql":          {Data: []byte("CREATE TABLE which (v TEXT); INSERT INTO which VALUES ('root');")},
		"postgres/0001_a.sql": {Data: []byte("CREATE TABLE which (v TEXT); INSERT INTO which VALUES ('postgres');")},
		// Added later at the root only: it must reach PostgreSQL too.
		"0002_b.sql": {Data: []byte("CREATE TABLE b (id INTEGER PRIMARY KEY); INSERT INTO b VALUES (2);")},
		// PostgreSQL's own step, and a placeholder standing for a root file.
		"postgres/0003_pg_only.sql": {Data: []byte("INSERT INTO which VALUES ('postgres only');")},
		"0004_c.sql":                {Data: []byte("INSERT INTO which VALUES ('sqlite only');")},
		"postgres/0004_c.sql":       {Data: []byte("-- PostgreSQL reaches this state in 0003_pg_only.sql.\n\n")},
	}
	want := map[string]struct {
		which   string
		applied string
	}{
		"sqlite":   {"root,sqlite only", "0001_a,0002_b,0004_c"},
		"postgres": {"postgres,postgres only", "0001_a,0002_b,0003_pg_only,0004_c"},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			db := openPath(t, b.path(t))
			if err := db.Migrate(ctx, Schema{Owner: "dialect", Files: fsys}); err != nil {
				t.Fatal(err)
			}
			var which []string
			rows, err := db.QueryContext(ctx, `SELECT v FROM which ORDER BY v`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				which = append(which, v)
			}
			rows.Close()
			if got := strings.Join(which, ","); got != want[b.name].which {
				t.Errorf("which holds %s, want %s", got, want[b.name].which)
			}
			var n int
			if err := db.QueryRowContext(ctx, `SELECT id FROM b`).Scan(&n); err != nil || n != 2 {
				t.Errorf("the root-only migration did not run on %s: %v", b.name, err)
			}
			applied, err := db.Applied(ctx, "dialect")
			if err != nil || strings.Join(applied, ",") != want[b.name].applied {
				t.Errorf("applied %v (%v), want %s", applied, err, want[b.name].applied)
			}
		})
	}
}

// A root-only migration in SQL PostgreSQL does not accept fails Migrate on
// PostgreSQL with the file named; it is never skipped with success.
func TestMigrateRootOnlyNeverSkipped(t *testing.T) {
	fsys := fstest.MapFS{
		"0001_a.sql":          {Data: []byte("CREATE TABLE a (id INTEGER);")},
		"postgres/0001_a.sql": {Data: []byte("CREATE TABLE a (id BIGINT);")},
		// Added later at the root only, in SQLite's spelling.
		"0002_b.sql": {Data: []byte("CREATE TABLE b (id INTEGER PRIMARY KEY AUTOINCREMENT);")},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			err := openPath(t, b.path(t)).Migrate(context.Background(), Schema{Owner: "rootonly", Files: fsys})
			switch {
			case b.name == "sqlite" && err != nil:
				t.Fatal(err)
			case b.name == "postgres" && (err == nil || !strings.Contains(err.Error(), "rootonly migration 0002_b")):
				t.Fatalf("Migrate on PostgreSQL: %v, want a failure naming 0002_b", err)
			}
		})
	}
}

// Every backend tells a unique violation from other failures, and times
// written as micros come back unchanged.
func TestUniqueViolationAndMicros(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			db := openPath(t, b.path(t))
			if _, err := db.ExecContext(ctx, `CREATE TABLE u (k TEXT PRIMARY KEY, at BIGINT NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			const at = int64(1_790_000_000_123_456) // beyond 32 bits: INTEGER would not hold it on PostgreSQL
			if _, err := db.ExecContext(ctx, `INSERT INTO u(k, at) VALUES (?, ?)`, "a", at); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(ctx, `INSERT INTO u(k, at) VALUES (?, ?)`, "a", at)
			if !db.IsUniqueViolation(err) {
				t.Errorf("duplicate key: IsUniqueViolation(%v) = false", err)
			}
			_, err = db.ExecContext(ctx, `INSERT INTO missing(k) VALUES (?)`, "a")
			if err == nil || db.IsUniqueViolation(err) || db.IsBusy(err) {
				t.Errorf("missing table: %v classified as unique violation or busy", err)
			}
			var got int64
			if err := db.QueryRowContext(ctx, `SELECT at FROM u WHERE k = ?`, "a").Scan(&got); err != nil || got != at {
				t.Errorf("at = %d, %v; want %d", got, err, at)
			}
		})
	}
}

// Two handles on one PostgreSQL database stand for two replicas: each
// write reads a counter and writes it back plus one. SERIALIZABLE makes one
// of two overlapping transactions fail, and Write retries it whole, so no
// increment is lost.
func TestReplicasReadModifyWriteLoseNothing(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a, b := openPath(t, dsn), openPath(t, dsn)
	if _, err := a.ExecContext(ctx, `CREATE TABLE counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0);`); err != nil {
		t.Fatal(err)
	}
	const perReplica = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*perReplica)
	for _, db := range []*DB{a, b} {
		for range perReplica {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- db.Write(ctx, func(tx *Tx) error {
					var n int64
					if err := tx.QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, `UPDATE counter SET n = ? WHERE id = 1`, n+1)
					return err
				})
			}()
		}
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if !a.IsBusy(err) {
				t.Errorf("write failed with something other than contention: %v", err)
			}
		}
	}
	var n int
	if err := a.QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2*perReplica-failed {
		t.Errorf("counter %d after %d acknowledged increments: an increment was lost", n, 2*perReplica-failed)
	}
	if failed > perReplica/4 {
		t.Errorf("%d of %d writes gave up on contention; retries should absorb nearly all", failed, 2*perReplica)
	}
}

// Replicas starting at once on a fresh PostgreSQL migrate under the
// advisory lock: every one opens, and each file runs once.
func TestMigrateConcurrentReplicasPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	fsys := fstest.MapFS{
		"0001_a.sql": {Data: []byte("CREATE TABLE runs (n INTEGER); INSERT INTO runs VALUES (1);")},
		"0002_b.sql": {Data: []byte("INSERT INTO runs VALUES (2);")},
	}
	const replicas = 4
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(context.Background(), Options{Path: dsn})
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			errs[i] = db.Migrate(context.Background(), Schema{Owner: "race", Files: fsys})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	db := openPath(t, dsn)
	var n, sum int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*), SUM(n) FROM runs`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 2 || sum != 3 {
		t.Errorf("runs holds %d rows summing %d; each file must run exactly once", n, sum)
	}
}
