// Package persist owns floe's database: it opens it, applies each owner's
// migrations, serialises every write through one queue, encodes times one
// way and hides the SQL dialect behind a small value, so a second backend
// (PostgreSQL) plugs in without touching the services that store rows.
//
// The services (catalog, plugin, observe, tasks, sessions) receive a *DB from
// their constructors; none of them opens a database or sees *sql.DB.
package persist

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure Open.
type Options struct {
	// Path of the SQLite file, e.g. "./floe-data/catalog.db", or the URL
	// of a PostgreSQL database, postgres://user:pass@host:5432/floe.
	Path string
	// Now is the clock used to stamp applied migrations; nil means time.Now.
	Now func() time.Time
}

// DB is the one database handle. Reads run on a pool of connections through
// prepared statements; writes run one at a time through Write. It is safe for
// concurrent use, and several processes may open the same file.
type DB struct {
	sql     *sql.DB
	url     string // as given to Open; carries a password: never shown
	dialect Dialect
	reads   *stmtCache
	now     func() time.Time

	// writeSlot (capacity 1) queues this process's write transactions in
	// Go, so they wait on each other without the database's busy handler
	// (left for waits on other processes, such as the CLI beside the server)
	// and a waiting caller can still give up on its context.
	writeSlot chan struct{}

	hooksMu sync.Mutex
	hooks   []func() // OnCommit

	change changeWatch // ChangeStamp's -shm file

	trace func(Statement) // WithTrace's hook given to Open; nil traces nothing
}

// ErrPathRequired is returned by Open without a path.
var ErrPathRequired = errors.New("persist: a database path is required, e.g. ./floe-data/catalog.db")

// maxIdleConns is the idle pool size: about the number of concurrent API
// clients a single floe serves comfortably on a small machine; the default
// of two makes bursts reopen connections and re-read the schema.
const maxIdleConns = 16

// maxOpenPostgres caps one process's connections to PostgreSQL: reads
// beyond it wait for a free connection instead of exhausting the server's
// max_connections (100 by default) when several replicas share it.
const maxOpenPostgres = 32

// Open opens the database named by opts.Path: a postgres:// URL opens
// PostgreSQL, anything else is a SQLite file, created if needed. Owners
// then call Migrate with their own migrations.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.Path == "" {
		return nil, ErrPathRequired
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := SQLite()
	shown := opts.Path
	if IsPostgresURL(opts.Path) {
		d = Postgres()
		shown = Redact(opts.Path)
	} else if dir := filepath.Dir(opts.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("persist: create directory for %s: %w", opts.Path, err)
		}
	}
	sdb, err := sql.Open(d.Driver, d.DSN(opts.Path))
	if err != nil {
		return nil, fmt.Errorf("persist: open %s: %w", shown, err)
	}
	sdb.SetMaxIdleConns(maxIdleConns)
	if d.Name == "postgres" {
		sdb.SetMaxOpenConns(maxOpenPostgres)
	}
	db := &DB{sql: sdb, url: opts.Path, dialect: d, now: opts.Now, writeSlot: make(chan struct{}, 1), trace: traceFrom(ctx)}
	db.reads = newStmtCache(sdb, d)
	if err := db.firstPing(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("persist: open %s: %w", shown, err)
	}
	return db, nil
}

// firstPing opens the first connection. Several processes opening a new
// SQLite file at once race to switch it to WAL, and that switch answers
// SQLITE_BUSY without waiting on the busy timeout; it is retried for as
// long as the busy timeout would have waited.
func (db *DB) firstPing(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeoutMillis * time.Millisecond)
	for attempt := 1; ; attempt++ {
		err := db.Ping(ctx)
		if err == nil || db.dialect.IsBusy == nil || !db.dialect.IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(busyBackoff * time.Duration(min(attempt, 10))):
		}
	}
}

// Redact hides the password of a PostgreSQL URL before it reaches an
// error message or a log; a SQLite path comes back as it is.
func Redact(s string) string {
	if !IsPostgresURL(s) {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "the PostgreSQL URL (unparsable)"
	}
	return u.Redacted()
}

// Close releases the prepared statements and the connections.
func (db *DB) Close() error {
	db.change.close()
	db.reads.close()
	return db.sql.Close()
}

// Ping reports whether the database answers (readiness checks).
func (db *DB) Ping(ctx context.Context) error { return db.sql.PingContext(ctx) }

// PostgresURL returns the URL the database was opened with when it is
// PostgreSQL ("" for SQLite), for the one caller that needs a connection
// of its own (persist/notify's listener). It may carry a password: never
// log it; Redact it first.
func (db *DB) PostgresURL() string {
	if db.dialect.Name != "postgres" {
		return ""
	}
	return db.url
}

// Dialect returns the SQL dialect of the open database.
func (db *DB) Dialect() Dialect { return db.dialect }
