package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in an immediate write transaction and commits when fn
// returns nil. Inside fn only tx may touch the database: a second
// connection wanting the write lock would wait on ourselves.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	select {
	case s.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writeSlot }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return dbErr("begin transaction", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return dbErr("commit", err)
	}
	return nil
}

// dbErr wraps a database failure that is not the caller's fault; client
// mistakes are caught earlier and reported as *Error.
func dbErr(what string, err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &dbError{what: what, err: err}
}

type dbError struct {
	what string
	err  error
}

func (e *dbError) Error() string { return "catalog: " + e.what + ": " + e.err.Error() }
func (e *dbError) Unwrap() error { return e.err }

// isUniqueViolation reports a UNIQUE or PRIMARY KEY constraint failure.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

func toNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func encodeMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

func decodeMap(s string) map[string]string {
	m := map[string]string{}
	if s == "" {
		return m
	}
	_ = json.Unmarshal([]byte(s), &m) // written by encodeMap; a damaged row reads as empty
	return m
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// newVersionToken returns a fresh compare-and-swap token.
func newVersionToken() string { return randomHex(16) }

// pageLimit clamps a requested page size.
func pageLimit(n int) int {
	if n <= 0 {
		return DefaultPageSize
	}
	if n > MaxPageSize {
		return MaxPageSize
	}
	return n
}
