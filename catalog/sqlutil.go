package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// querier is what both the persist handle (reads) and a persist.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in a write transaction through persist's one write queue and
// commits when fn returns nil. Inside fn only tx may touch the database: a
// second connection wanting the write lock would wait on ourselves.
func (s *Store) inTx(ctx context.Context, fn func(tx *persist.Tx) error) error {
	err := s.db.Write(ctx, fn)
	if s.db.IsUnavailable(err) {
		return unavailable(err)
	}
	var pe *persist.Error
	if errors.As(err, &pe) { // begin or commit failed, not a statement of fn
		return dbErr("write", err)
	}
	return err
}

func unavailable(cause error) error {
	return &fault.Error{Kind: fault.Unavailable, Field: "database",
		Message: "The catalog database cannot be reached right now; nothing was changed. Try again in a moment.", Err: cause}
}

// dbErr wraps a database failure that is not the caller's fault; client
// mistakes are caught earlier and reported as *fault.Error.
func dbErr(what string, err error) error {
	var ce *fault.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || persist.IsUnreachable(err) {
		return unavailable(err)
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
func (s *Store) isUniqueViolation(err error) bool { return s.db.IsUniqueViolation(err) }

// micros and fromMicros are persist's one time encoding.
func micros(t time.Time) int64 { return persist.Micros(t) }

func fromMicros(n int64) time.Time { return persist.FromMicros(n) }

func encodeMap(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}

func decodeMap(s string) map[string]string {
	m := map[string]string{}
	if s == "" || s == "{}" { // most rows: no parse
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

// namedNumbers reads a query's rows of (name, number) into a map; what
// names the read in its error.
func namedNumbers[N int | int64](ctx context.Context, q querier, what, query string, args ...any) (map[string]N, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr(what, err)
	}
	defer rows.Close()
	out := map[string]N{}
	for rows.Next() {
		var name string
		var n N
		if err := rows.Scan(&name, &n); err != nil {
			return nil, dbErr(what, err)
		}
		out[name] = n
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr(what, err)
	}
	return out, nil
}
