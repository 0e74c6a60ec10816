package pgtest

import (
	"context"
	"database/sql"
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// Each DSN is its own database: a table made in one is absent in the other,
// and the database is gone once its test ends.
func TestDSNGivesSeparateDatabases(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("first", func(t *testing.T) {
		first = DSN(t)
		db := open(t, first)
		if _, err := db.ExecContext(ctx, "CREATE TABLE marker (id int)"); err != nil {
			t.Fatal(err)
		}
	})
	second := DSN(t)
	if second == first {
		t.Fatalf("two tests got the same database %s", first)
	}
	db := open(t, second)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'marker'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("a fresh database holds the other test's table")
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = current_database()").Scan(&n); err != nil || n != 1 {
		t.Fatalf("current database count = %d, %v", n, err)
	}
	var gone int
	if err := server.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE $1 LIKE '%/' || datname || '?%'", first).Scan(&gone); err != nil {
		t.Fatal(err)
	}
	if gone != 0 {
		t.Fatalf("the first test's database was not dropped when it ended")
	}
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("ping %s: %v", dsn, err)
	}
	return db
}

// The server binds no TCP port: clients reach it through the socket in
// its own directory, so no port is picked and none can be taken.
func TestNoTCPListener(t *testing.T) {
	db := open(t, DSN(t))
	var addrs string
	if err := db.QueryRowContext(context.Background(), "SHOW listen_addresses").Scan(&addrs); err != nil {
		t.Fatal(err)
	}
	if addrs != "" {
		t.Fatalf("listen_addresses = %q, want none", addrs)
	}
}
