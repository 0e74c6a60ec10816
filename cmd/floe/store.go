package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
	"github.com/spf13/cobra"
)

// dataPaths resolves the catalog database and warehouse directory from flags.
type dataPaths struct {
	Data string
	// Catalog is the SQLite file or the PostgreSQL URL (--catalog).
	Catalog   string
	Warehouse string
	// S3 are the store settings recorded with an s3:// Warehouse (CLI
	// commands; serve has its own flags).
	S3 s3Flags
}

// shownCatalog is the catalog as messages and logs may show it: a
// PostgreSQL URL without its password.
func (p dataPaths) shownCatalog() string { return persist.Redact(p.Catalog) }

func resolvePaths(cmd *cobra.Command) (dataPaths, error) {
	data, _ := cmd.Flags().GetString("data")
	if data == "" {
		return dataPaths{}, errors.New("--data must name a directory")
	}
	cat, _ := cmd.Flags().GetString("catalog")
	if cat == "" {
		cat = filepath.Join(data, "catalog.db")
	}
	wh := ""
	if f := cmd.Flags().Lookup("warehouse"); f != nil {
		wh = f.Value.String()
	} else {
		// A CLI command: the warehouse serve recorded for this data
		// directory, so both reach the same store.
		r, ok, err := readWarehouseRecord(data)
		if err != nil {
			return dataPaths{}, err
		}
		if ok {
			wh = r.Warehouse
			if isS3Warehouse(wh) {
				return dataPaths{Data: data, Catalog: cat, Warehouse: wh,
					S3: s3Flags{Endpoint: r.S3Endpoint, Region: r.S3Region, PathStyle: r.S3PathStyle}}, nil
			}
		}
	}
	if wh == "" {
		wh = filepath.Join(data, "warehouse")
	}
	if isS3Warehouse(wh) {
		return dataPaths{Data: data, Catalog: cat, Warehouse: wh}, nil
	}
	abs, err := filepath.Abs(wh)
	if err != nil {
		return dataPaths{}, err
	}
	return dataPaths{Data: data, Catalog: cat, Warehouse: abs}, nil
}

// openStore opens the database in the data directory (creating it if
// needed) and the catalog over it. Close the database after the catalog.
func openStore(ctx context.Context, cmd *cobra.Command) (*persist.DB, *catalog.Store, dataPaths, error) {
	return openStoreOn(ctx, cmd, nil)
}

// openStoreOn is openStore with the warehouse stored by backend (an s3://
// warehouse's); nil is the local directory.
func openStoreOn(ctx context.Context, cmd *cobra.Command, backend warehouse.Backend) (*persist.DB, *catalog.Store, dataPaths, error) {
	p, err := resolvePaths(cmd)
	if err != nil {
		return nil, nil, p, err
	}
	if backend == nil && isS3Warehouse(p.Warehouse) {
		b, err := openRecordedS3(ctx, p)
		if err != nil {
			return nil, nil, p, err
		}
		backend = b
	}
	db, st, err := openStoreAt(ctx, p, backend)
	return db, st, p, err
}

// openStoreAt opens the database at resolved paths, applies every owner's
// migrations and opens the catalog, creating the data and warehouse
// directories if needed.
func openStoreAt(ctx context.Context, p dataPaths, backend warehouse.Backend) (*persist.DB, *catalog.Store, error) {
	if err := os.MkdirAll(p.Data, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create data directory: %w", err)
	}
	// An object store has no directories to make; serve checks it instead.
	if !isS3Warehouse(p.Warehouse) {
		if err := os.MkdirAll(p.Warehouse, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create warehouse directory: %w", err)
		}
	}
	db, err := persist.Open(ctx, persist.Options{Path: p.Catalog})
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err) // persist names it, without a password
	}
	// Every owner's migrations run here, once, for serve and for every CLI
	// command alike; the constructors below never migrate.
	if err := dbschema.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open catalog %s: %w", p.shownCatalog(), err)
	}
	// Drops are held for floe serve's recorded --soft-delete-hold; before
	// any serve recorded one, for the default.
	st, err := catalog.New(db, catalog.Options{Warehouse: p.Warehouse, Backend: backend, SoftDeleteHold: catalog.DefaultSoftDeleteHold})
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open catalog %s: %w", p.shownCatalog(), err)
	}
	return db, st, nil
}

// withStore opens the catalog for one CLI command, runs fn and closes it;
// a command that changes state is recorded in the audit trail.
func withStore(cmd *cobra.Command, fn func(st *catalog.Store) error) error {
	db, st, _, err := openStore(cmd.Context(), cmd)
	if err != nil {
		return err
	}
	defer db.Close()
	defer st.Close()
	rec := watchCLI(cmd, st)
	err = fn(st)
	rec.finish(cmd.Context(), db, cmd.Flags().Args(), err)
	return err
}

// exitCode maps errors to exit statuses: 2 for a user's mistake, 1 otherwise.
func exitCode(err error) int {
	var ce *fault.Error
	if errors.As(err, &ce) {
		return 2
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
