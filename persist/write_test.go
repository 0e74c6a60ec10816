package persist

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Many writers, in this process and in a second handle on the same file
// (standing in for the CLI beside floe serve), each reading and then
// writing in one transaction: none may see a busy error, and no increment
// may be lost.
func TestConcurrentWritersNeverBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	open := func() *DB {
		db, err := Open(ctx, Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	if _, err := a.ExecContext(ctx, `CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, `INSERT INTO counter(id, n) VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		handles []*DB
		writers int
		each    int
	}{
		{"one handle", []*DB{a}, 32, 20},
		{"two handles on one file", []*DB{a, b}, 16, 20},
	}
	want := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan error, tc.writers*len(tc.handles))
			for _, db := range tc.handles {
				for range tc.writers {
					wg.Go(func() {
						for range tc.each {
							err := db.Write(ctx, func(tx *Tx) error {
								var n int
								if err := tx.QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
									return err
								}
								_, err := tx.ExecContext(ctx, `UPDATE counter SET n = ? WHERE id = 1`, n+1)
								return err
							})
							if err != nil {
								errs <- err
								return
							}
						}
					})
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("writer failed (busy=%v): %v", a.IsBusy(err), err)
			}
			want += tc.writers * tc.each * len(tc.handles)
			var n int
			if err := b.QueryRowContext(ctx, `SELECT n FROM counter WHERE id = 1`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("counter = %d, want %d: an increment was lost", n, want)
			}
		})
	}
}

// An error from fn rolls the transaction back and comes back unchanged; a
// waiting writer gives up when its context ends.
func TestWriteRollbackAndCancel(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (k TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	sentinel := errors.New("caller's own error")
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO t(k) VALUES ('x')`); err != nil {
			return err
		}
		return sentinel
	})
	if !errors.Is(err, sentinel) {
		t.Fatalf("Write = %v, want the caller's error", err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after rollback = %d, %v", n, err)
	}

	// Hold the queue, then ask with a cancelled context.
	inside, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- db.Write(ctx, func(*Tx) error { close(inside); <-release; return nil })
	}()
	<-inside
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Write(cctx, func(*Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("queued Write with a cancelled context = %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A unique violation is classified by the dialect.
	if _, err := db.ExecContext(ctx, `INSERT INTO t(k) VALUES ('y')`); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO t(k) VALUES ('y')`)
	if !db.IsUniqueViolation(err) || db.IsBusy(err) {
		t.Errorf("duplicate key: unique=%v busy=%v (%v)", db.IsUniqueViolation(err), db.IsBusy(err), err)
	}
	if db.IsUniqueViolation(fmt.Errorf("plain")) || db.IsUniqueViolation(nil) {
		t.Error("a plain error is not a unique violation")
	}
}
