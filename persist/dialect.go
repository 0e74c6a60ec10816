package persist

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect is what differs between database backends. Callers write portable
// SQL with '?' placeholders; upserts as INSERT … ON CONFLICT … DO UPDATE or
// DO NOTHING and RETURNING need no entry here, because SQLite (3.35+) and
// PostgreSQL spell them the same. The dialect rewrites placeholders,
// supplies the few expressions that differ (now, table lookup) and
// classifies driver errors. A PostgreSQL dialect is a second value of this
// type, not a change to any caller.
type Dialect struct {
	// Name identifies the backend in logs and errors ("sqlite", "postgres").
	Name string
	// Driver is the database/sql driver name.
	Driver string
	// DSN turns the operator's path or URL into the driver's connection string.
	DSN func(path string) string
	// Placeholder renders the n-th (1-based) bind parameter: "?" or "$n".
	Placeholder func(n int) string
	// NowMicros is an SQL expression for the current time in Unix
	// microseconds, the one time encoding (see Micros).
	NowMicros string
	// TableExists counts the tables named by its one parameter (0 or 1).
	TableExists string
	// Contains is a case-sensitive substring test, a format string whose %s
	// is the column and whose one parameter is the needle.
	Contains string
	// MigrationDir names the sub-folder of an owner's migrations holding
	// this dialect's files where its SQL differs ("" = the root files).
	MigrationDir string
	// MigrationLock and MigrationUnlock take and release a lock across
	// processes around migrations, with the key as their one parameter;
	// empty where the write lock already serialises them (SQLite).
	MigrationLock, MigrationUnlock string
	// BeginSerializable asks for SERIALIZABLE write transactions, so
	// replicas writing at once behave as SQLite's single writer does; a
	// transaction that loses is retried whole (see Write).
	BeginSerializable bool
	// IsBusy reports a failure to get a lock that is worth retrying
	// (SQLite busy, PostgreSQL serialization failure or deadlock).
	IsBusy func(error) bool
	// IsUniqueViolation reports a UNIQUE or PRIMARY KEY conflict.
	IsUniqueViolation func(error) bool
	// IsUnavailable reports that the database server cannot be reached or
	// is shutting down; nil where the database is a local file.
	IsUnavailable func(error) bool
}

// Rebind rewrites '?' placeholders into the dialect's form. Queries never
// hold '?' inside string literals (values are always bound), so a plain scan
// is enough.
func (d Dialect) Rebind(query string) string {
	if d.Placeholder == nil || !strings.Contains(query, "?") {
		return query
	}
	if d.Placeholder(1) == "?" {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString(d.Placeholder(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// busyTimeoutMillis is how long a connection waits for another process's
// writer (the CLI beside floe serve) before giving up; writes are short, so
// ten seconds only runs out when something is stuck.
const busyTimeoutMillis = 10000

// SQLite is the embedded default: modernc's pure-Go SQLite in WAL mode.
func SQLite() Dialect {
	return Dialect{
		Name:        "sqlite",
		Driver:      "sqlite",
		DSN:         sqliteDSN,
		Placeholder: func(int) string { return "?" },
		NowMicros:   `CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)`,
		TableExists: `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`,
		Contains:    `instr(%s, ?) > 0`,
		IsBusy:      sqliteBusy,
		IsUniqueViolation: func(err error) bool {
			c, ok := sqliteCode(err)
			return ok && (c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
		},
	}
}

// sqliteDSN: WAL so readers never block the writer, a busy timeout so
// concurrent processes wait instead of failing, foreign keys on, and BEGIN
// IMMEDIATE so a transaction takes the write lock up front (a deferred
// read-then-write upgrade fails at once with SQLITE_BUSY).
func sqliteDSN(path string) string {
	// SQLite URIs give '%', '?' and '#' meaning; escape them in the path.
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)"+
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		path, busyTimeoutMillis)
}

func sqliteCode(err error) (int, bool) {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code(), true
	}
	return 0, false
}

func sqliteBusy(err error) bool {
	c, ok := sqliteCode(err)
	return ok && (c&0xff == sqlite3.SQLITE_BUSY || c&0xff == sqlite3.SQLITE_LOCKED)
}
