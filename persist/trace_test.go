package persist

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// A DB opened under WithTrace reports every statement its callers run, in
// order, with the arguments; one opened without it reports nothing to a
// trace on a later context.
func TestTraceSeesEveryStatement(t *testing.T) {
	var mu sync.Mutex
	var got []Statement
	ctx := WithTrace(context.Background(), func(s Statement) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
	})
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO kv(k, v) VALUES (?, ?)`, "a", 1); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO kv(k, v) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		_, err = st.ExecContext(ctx, "b", 2)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv WHERE v > ?`, 0).Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v", n, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT k FROM kv`)
	if err != nil {
		t.Fatal(err)
	}
	rows.Close()
	want := []Statement{
		{Query: `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)`},
		{Query: `INSERT INTO kv(k, v) VALUES (?, ?)`, Args: []any{"a", 1}},
		{Query: `INSERT INTO kv(k, v) VALUES (?, ?)`}, // prepared: once, without arguments
		{Query: `SELECT COUNT(*) FROM kv WHERE v > ?`, Args: []any{0}},
		{Query: `SELECT k FROM kv`},
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.EqualFunc(got, want, func(a, b Statement) bool { return a.Query == b.Query && slices.Equal(a.Args, b.Args) }) {
		t.Fatalf("traced\n%q\nwant\n%q", got, want)
	}

	untraced, err := Open(context.Background(), Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer untraced.Close()
	got = nil
	if err := untraced.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("a DB opened without a trace reported %q", got)
	}
}
