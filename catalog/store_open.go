package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/floe/floe/warehouse"
	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// busyTimeoutMillis is how long a connection waits for another writer (in
// this process or another, such as the CLI beside floe serve) before giving
// up; writes are short, so ten seconds only runs out when something is stuck.
const busyTimeoutMillis = 10000

// dsn builds the connection string: WAL so readers never block the writer,
// a busy timeout so concurrent processes wait instead of failing, foreign
// keys on, and BEGIN IMMEDIATE so a transaction takes the write lock up
// front (a deferred read-then-write upgrade fails at once with SQLITE_BUSY).
func dsn(path string) string {
	// SQLite URIs give '%', '?' and '#' meaning; escape them in the path.
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)"+
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		path, busyTimeoutMillis)
}

// Open opens (creating if needed) the catalog file, applies migrations and
// returns a Store.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Path == "" {
		return nil, Invalid("path", "catalog path is required: pass the SQLite file, e.g. ./floe-data/catalog.db")
	}
	if opts.Warehouse == "" {
		return nil, Invalid("warehouse", "warehouse directory is required")
	}
	if opts.Region == "" {
		opts.Region = "local"
	}
	if opts.Account == "" {
		opts.Account = "000000000000"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BcryptCost != 0 && (opts.BcryptCost < bcrypt.MinCost || opts.BcryptCost > bcrypt.MaxCost) {
		return nil, Invalid("bcrypt_cost", fmt.Sprintf("bcrypt cost must be %d–%d (0 for the default)", bcrypt.MinCost, bcrypt.MaxCost))
	}
	if dir := filepath.Dir(opts.Path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("catalog: create directory for %s: %w", opts.Path, err)
		}
	}
	wh, local, err := openWarehouse(&opts)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(opts.Path))
	if err != nil {
		closeLocal(local)
		return nil, fmt.Errorf("catalog: open %s: %w", opts.Path, err)
	}
	// Keep enough idle connections for a burst of concurrent readers; the
	// default of two makes bursts reopen connections and re-read the schema.
	db.SetMaxIdleConns(maxIdleConns)
	s := &Store{db: db, ro: newStmtCache(db), opts: opts, wh: wh, local: local, writeSlot: make(chan struct{}, 1)}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		closeLocal(local)
		return nil, err
	}
	return s, nil
}

// Close releases the database.
func (s *Store) Close() error {
	s.ro.close()
	closeLocal(s.local)
	return s.db.Close()
}

// openWarehouse makes the Warehouse: the configured Backend at the
// Warehouse URI, or the local disk under the Warehouse directory.
func openWarehouse(opts *Options) (*warehouse.Warehouse, *warehouse.Local, error) {
	if opts.Backend != nil {
		root, err := warehouse.Parse(opts.Warehouse)
		if err != nil {
			return nil, nil, Invalid("warehouse", err.Error())
		}
		return warehouse.New(root, opts.Backend), nil, nil
	}
	dir := opts.Warehouse
	if loc, err := warehouse.Parse(dir); err == nil {
		dir = loc.Path() // file:// URI or absolute path
	} else if abs, aerr := filepath.Abs(dir); aerr == nil {
		dir = abs // a relative directory, as the CLI's --data gives
	}
	wh, local, err := warehouse.NewLocal(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: warehouse %s: %w", opts.Warehouse, err)
	}
	opts.Warehouse = local.Root().Path()
	return wh, local, nil
}

func closeLocal(l *warehouse.Local) {
	if l != nil {
		l.Close()
	}
}

// maxIdleConns is the idle pool size: about the number of concurrent API
// clients a single floe serves comfortably on a small machine.
const maxIdleConns = 16

func (s *Store) now() time.Time { return s.opts.Now() }
