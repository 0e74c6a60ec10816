package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/s3tables"
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
	// ARNRegion and ARNAccount are what serve last put in S3 Tables ARNs
	// for this data directory (its defaults before it ever ran).
	ARNRegion, ARNAccount string
}

// shownARN is a catalog ARN as the console and the S3 Tables API show it.
func (p dataPaths) shownARN(arn string) string {
	return catalog.DisplayARN(arn, p.ARNRegion, p.ARNAccount)
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
	p := dataPaths{Data: data, Catalog: cat, ARNRegion: s3tables.DefaultRegion, ARNAccount: s3tables.DefaultAccount}
	if f := cmd.Flags().Lookup("warehouse"); f != nil {
		p.Warehouse = f.Value.String()
	} else {
		// A CLI command: the warehouse serve recorded for this data
		// directory, so both reach the same store.
		r, ok, err := readWarehouseRecord(data)
		if err != nil {
			return dataPaths{}, err
		}
		if ok {
			p.Warehouse = r.Warehouse
			if r.S3TablesRegion != "" && r.S3TablesAccount != "" {
				p.ARNRegion, p.ARNAccount = r.S3TablesRegion, r.S3TablesAccount
			}
			if isS3Warehouse(p.Warehouse) {
				p.S3 = s3Flags{Endpoint: r.S3Endpoint, Region: r.S3Region, PathStyle: r.S3PathStyle}
				if r.S3NoConditionalPut {
					p.S3.ConditionalPut = conditionalPutAbsent
				}
				return p, nil
			}
		}
	}
	if p.Warehouse == "" {
		p.Warehouse = filepath.Join(data, "warehouse")
	}
	if isS3Warehouse(p.Warehouse) {
		return p, nil
	}
	abs, err := filepath.Abs(p.Warehouse)
	if err != nil {
		return dataPaths{}, err
	}
	p.Warehouse = abs
	return p, nil
}

// openStore opens the database in the data directory (creating it if
// needed) and the catalog over it. Close the database after the catalog.
func openStore(ctx context.Context, cmd *cobra.Command) (*persist.DB, *catalog.Store, dataPaths, error) {
	return openStoreOn(ctx, cmd, nil)
}

// openStoreOn is openStore with the warehouse stored by backend (an s3://
// warehouse's); nil is the local directory. It opens only a catalog that
// exists: serve and init make new ones, every other command refuses a data
// directory floe has not used (see requireCatalog).
func openStoreOn(ctx context.Context, cmd *cobra.Command, backend warehouse.Backend) (*persist.DB, *catalog.Store, dataPaths, error) {
	p, err := resolvePaths(cmd)
	if err != nil {
		return nil, nil, p, err
	}
	if err := requireCatalog(p); err != nil {
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

// requireCatalog refuses a SQLite catalog file that does not exist yet: a
// mistyped --data would otherwise get a fresh, empty catalog that no server
// reads, and a command such as bucket create would answer success into it.
// A PostgreSQL catalog is named explicitly (the database must exist), so it
// is opened as given.
func requireCatalog(p dataPaths) error {
	if persist.IsPostgresURL(p.Catalog) {
		return nil
	}
	if _, err := os.Stat(p.Catalog); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("catalog %s: %w", p.Catalog, err)
	}
	return usageError{fmt.Sprintf("no floe catalog at %s: --data %s is not a directory floe has used (mistyped?). "+
		"Point --data at the directory floe serve uses, or make a new one with floe init --data %s (floe serve --data %s also makes it)",
		p.Catalog, p.Data, p.Data, p.Data)}
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
	// command alike; the constructors below never migrate. A SQLite catalog
	// file holds everything but the audit trail, which has its own file
	// (openAuditDB); PostgreSQL holds both.
	migrate := dbschema.MigrateCatalog
	if isPostgres(db) {
		migrate = dbschema.Migrate
	}
	if err := migrate(ctx, db); err != nil {
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

func isPostgres(db *persist.DB) bool { return db.Dialect().Name == persist.Postgres().Name }

// auditDBPath is the audit trail's own SQLite file, beside the catalog's in
// the data directory.
func auditDBPath(p dataPaths) string { return filepath.Join(p.Data, "audit.db") }

// openAuditDB opens the database the audit trail lives in for a catalog
// opened on catalogDB at p, and returns it with the function that closes
// it. On PostgreSQL that is catalogDB itself (replicas share the one
// database; openStoreAt migrated it) and closing it is left to its owner.
// On SQLite it is the trail's own file (auditDBPath), opened and migrated
// here: the trail's batched inserts then neither take the catalog file's
// one writer lock from catalog commits nor invalidate the catalog's read
// caches, which are checked against that file's change stamp. Serve, the
// CLI commands that record entries and floe audit export all reach the
// trail through here, so all use the same place.
func openAuditDB(ctx context.Context, p dataPaths, catalogDB *persist.DB) (*persist.DB, func() error, error) {
	if isPostgres(catalogDB) {
		return catalogDB, func() error { return nil }, nil
	}
	path := auditDBPath(p)
	db, err := persist.Open(ctx, persist.Options{Path: path})
	if err != nil {
		return nil, nil, fmt.Errorf("open the audit database: %w", err)
	}
	if err := dbschema.MigrateAudit(ctx, db); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("open the audit database %s: %w", path, err)
	}
	return db, db.Close, nil
}

// withStore opens the catalog for one CLI command, runs fn and closes it;
// a command that changes state is recorded in the audit trail.
func withStore(cmd *cobra.Command, fn func(st *catalog.Store) error) error {
	return withStorePaths(cmd, func(st *catalog.Store, _ dataPaths) error { return fn(st) })
}

// withStorePaths is withStore for a command that also needs the paths
// (the ARN form serve uses, the warehouse).
func withStorePaths(cmd *cobra.Command, fn func(st *catalog.Store, p dataPaths) error) error {
	db, st, p, err := openStore(cmd.Context(), cmd)
	if err != nil {
		return err
	}
	defer db.Close()
	defer st.Close()
	rec := watchCLI(cmd, st)
	err = fn(st, p)
	rec.finish(cmd.Context(), p, db, cmd.Flags().Args(), err)
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
