package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/floe/floe/warehouse"
	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/persist"
)

// Open opens (creating if needed) the database at opts.Path, applies the
// catalog's migrations and returns a Store that closes the database with
// itself: a composition root for tools and tests that need only the
// catalog. floe serve and the CLI open persist once, migrate every owner
// (internal/dbschema) and hand the handle to New and to the other services.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.Path == "" {
		return nil, Invalid("path", "catalog path is required: pass the SQLite file, e.g. ./floe-data/catalog.db")
	}
	db, err := persist.Open(ctx, persist.Options{Path: opts.Path, Now: opts.Now})
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if err := db.Migrate(ctx, Migrations()); err != nil {
		db.Close()
		return nil, fmt.Errorf("catalog: %w", err)
	}
	s, err := New(db, opts)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.ownsDB = true
	return s, nil
}

// New returns the catalog over an open database its migrations (Migrations)
// have been applied to. opts.Path is ignored; the caller keeps the database
// and closes it after the Store.
func New(db *persist.DB, opts Options) (*Store, error) {
	if db == nil {
		return nil, Invalid("db", "catalog needs an open database")
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
	wh, local, err := openWarehouse(&opts)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, ro: db, opts: opts, wh: wh, local: local, holder: randomHex(8)}, nil
}

// Close releases the database when Open opened it; a Store made by New
// leaves the database to its caller.
func (s *Store) Close() error {
	closeLocal(s.local)
	if s.ownsDB {
		return s.db.Close()
	}
	return nil
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

func (s *Store) now() time.Time { return s.opts.Now() }
