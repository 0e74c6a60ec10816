package persist

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/floe/floe/persist/pgtest"
)

// changeHelperEnv makes this test binary, run again, a second process that
// commits one row into the SQLite file it names (as the CLI does beside
// floe serve), then exits; see TestMain.
const changeHelperEnv = "PERSIST_CHANGE_HELPER_DB"

// changeHelper is the second process's whole life.
func changeHelper(path string) int {
	ctx := context.Background()
	db, err := Open(ctx, Options{Path: path})
	if err == nil {
		_, err = db.ExecContext(ctx, `INSERT INTO t (x) VALUES (2)`)
		db.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "change helper:", err)
		return 1
	}
	return 0
}

// TestChangeStampMovesOnEveryCommit: the stamp stays while nobody writes
// (reads included) and moves on a commit of this process and on one of
// another process, which no commit hook of this one hears.
func TestChangeStampMovesOnEveryCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	db := openPath(t, path)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	stamp := func(what string) ChangeStamp {
		t.Helper()
		s, ok := db.ChangeStamp()
		if !ok {
			t.Fatalf("%s: no change stamp on a SQLite database in WAL mode", what)
		}
		return s
	}
	s0 := stamp("after create")
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if s := stamp("after a read"); s != s0 {
		t.Fatal("a read moved the stamp")
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO t (x) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	s1 := stamp("after this process's insert")
	if s1 == s0 {
		t.Fatal("this process's commit left the stamp where it was")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), changeHelperEnv+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the second process failed: %v\n%s", err, out)
	}
	if s := stamp("after the other process's insert"); s == s1 {
		t.Fatal("another process's commit left the stamp where it was")
	}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows %d, %v: the other process's row is not there", n, err)
	}
	db.Close()
	if _, ok := db.ChangeStamp(); ok {
		t.Error("a closed database still gives stamps")
	}
}

// TestChangeStampNotOnPostgres: PostgreSQL has no such header; its caches
// hear changes through the bus instead.
func TestChangeStampNotOnPostgres(t *testing.T) {
	db := openPath(t, pgtest.DSN(t))
	if _, ok := db.ChangeStamp(); ok {
		t.Fatal("a PostgreSQL database gave a change stamp")
	}
}
