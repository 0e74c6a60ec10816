package persist

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// PostgreSQL error codes (SQLSTATE) that persist classifies.
const (
	pgUniqueViolation      = "23505"
	pgSerializationFailure = "40001"
	pgDeadlockDetected     = "40P01"
	pgLockNotAvailable     = "55P03"
)

// migrationLockKey is the advisory lock every floe process takes around
// its migrations on PostgreSQL, so one replica migrates while the others
// wait and then find the versions recorded. The value is arbitrary but
// fixed: "floe" in ASCII.
const migrationLockKey = 0x666c6f65

// IsPostgresURL reports whether a --catalog value names a PostgreSQL
// database rather than a SQLite file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Postgres is the scale-out backend, through pgx's database/sql driver.
// Times stay Unix microseconds in BIGINT columns, the same encoding as
// SQLite, so no caller converts anything.
func Postgres() Dialect {
	return Dialect{
		Name:              "postgres",
		Driver:            "pgx",
		DSN:               func(url string) string { return url },
		Placeholder:       pgPlaceholder,
		NowMicros:         `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT`,
		TableExists:       `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`,
		Contains:          `strpos(%s, ?) > 0`,
		MigrationDir:      "postgres",
		MigrationLock:     `SELECT pg_advisory_lock(?)`,
		MigrationUnlock:   `SELECT pg_advisory_unlock(?)`,
		BeginSerializable: true,
		IsBusy: func(err error) bool {
			c := pgCode(err)
			return c == pgSerializationFailure || c == pgDeadlockDetected || c == pgLockNotAvailable
		},
		IsUniqueViolation: func(err error) bool { return pgCode(err) == pgUniqueViolation },
		IsUnavailable:     pgUnavailable,
	}
}

// pgUnavailable: no connection could be made or kept (refused, reset,
// closed under us), or the server says it is shutting down or starting.
func pgUnavailable(err error) bool {
	if c := pgCode(err); c != "" {
		return strings.HasPrefix(c, "08") || // connection exception
			c == "57P01" || c == "57P02" || c == "57P03" // admin/crash shutdown, cannot connect now
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(err.Error(), "conn closed")
}

func pgPlaceholder(n int) string {
	var b [12]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = '$'
	return string(b[i:])
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
