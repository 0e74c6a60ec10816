package catalog

// This file is the catalog's public surface, written first so that every layer
// above it could be built against it. Implementations live beside it.

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

var errTODO = errors.New("catalog: not implemented yet")

// Options configure a Store.
type Options struct {
	// Path of the SQLite file, e.g. "./floe-data/catalog.db".
	Path string
	// Warehouse is the local directory under which table data lives.
	Warehouse string
	// Region and Account appear in ARNs: arn:floe:s3tables:<region>:<account>:bucket/<name>.
	Region  string // default "local"
	Account string // default "000000000000"
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Store is the catalog on SQLite. It is safe for concurrent use, and several
// processes (floe serve and the CLI) may open the same file at once.
type Store struct {
	db   *sql.DB
	opts Options
}

// Open opens (creating if needed) the catalog file, applies migrations and
// returns a Store.
func Open(ctx context.Context, opts Options) (*Store, error) { return nil, errTODO }

// Close releases the database.
func (s *Store) Close() error { return nil }

// DB exposes the database to sibling services (observe, plugin, tasks) that
// keep their own tables in the same file; their tables come from the same
// embedded migrations.
func (s *Store) DB() *sql.DB { return s.db }

// Warehouse returns the warehouse root directory.
func (s *Store) Warehouse() string { return s.opts.Warehouse }

// JoinNamespace joins levels with "." (URL and warehouse form).
func JoinNamespace(levels []string) string { return strings.Join(levels, ".") }

// SplitNamespace splits "a.b" into levels; "" gives nil.
func SplitNamespace(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ".")
}

// ---- names -------------------------------------------------------------

// ValidateBucketName returns an ErrInvalid error naming the rule that failed.
func ValidateBucketName(name string) error { return nil }

// ValidateNamespaceLevel checks one namespace level.
func ValidateNamespaceLevel(level string) error { return nil }

// ValidateTableName checks a table name.
func ValidateTableName(name string) error { return nil }

// ---- buckets -----------------------------------------------------------

// CreateBucketInput describes a new bucket.
type CreateBucketInput struct {
	Name   string
	Format Format
	Owner  string
	Tags   map[string]string
}

// CreateBucket creates a bucket and its warehouse directory.
// ErrAlreadyExists if the name is taken (whatever the format).
func (s *Store) CreateBucket(ctx context.Context, in CreateBucketInput) (Bucket, error) {
	return Bucket{}, errTODO
}

// GetBucket returns one bucket with its TableCount.
func (s *Store) GetBucket(ctx context.Context, name string) (Bucket, error) {
	return Bucket{}, errTODO
}

// ListBuckets lists buckets by name with TableCount filled. next is "" on the
// last page, else the After value for the next page.
func (s *Store) ListBuckets(ctx context.Context, opt ListOptions) (items []Bucket, next string, err error) {
	return nil, "", errTODO
}

// DeleteBucket deletes an empty bucket (ErrNotEmpty otherwise) unless cascade,
// which drops every namespace and table in it, deleting their data.
func (s *Store) DeleteBucket(ctx context.Context, name string, cascade bool) error { return errTODO }

// ---- namespaces --------------------------------------------------------

// CreateNamespace creates one namespace; its parent must exist (ErrNotFound,
// Field "namespace"). ErrAlreadyExists when present.
func (s *Store) CreateNamespace(ctx context.Context, bucket string, levels []string, props map[string]string) (Namespace, error) {
	return Namespace{}, errTODO
}

// GetNamespace returns one namespace.
func (s *Store) GetNamespace(ctx context.Context, bucket string, levels []string) (Namespace, error) {
	return Namespace{}, errTODO
}

// ListNamespaces lists direct children of parent (nil = top level of the bucket).
func (s *Store) ListNamespaces(ctx context.Context, bucket string, parent []string, opt ListOptions) (items []Namespace, next string, err error) {
	return nil, "", errTODO
}

// ListAllNamespaces lists every namespace of a bucket at every depth, sorted.
func (s *Store) ListAllNamespaces(ctx context.Context, bucket string) ([]Namespace, error) {
	return nil, errTODO
}

// UpdateNamespaceProperties removes then sets properties; returns the result.
func (s *Store) UpdateNamespaceProperties(ctx context.Context, bucket string, levels []string, removals []string, updates map[string]string) (Namespace, error) {
	return Namespace{}, errTODO
}

// DropNamespace deletes a namespace. Non-empty (child namespaces or tables)
// gives ErrNotEmpty unless cascade, which drops children and tables with data.
func (s *Store) DropNamespace(ctx context.Context, bucket string, levels []string, cascade bool) error {
	return errTODO
}

// ---- tables ------------------------------------------------------------

// TableRef names a table.
type TableRef struct {
	Bucket    string
	Namespace []string
	Name      string
}

// CreateTableInput describes a table to create or declare.
type CreateTableInput struct {
	TableRef
	Format Format
	// Location overrides the default warehouse location (register).
	Location string
	// MetadataLocation is the Iceberg metadata JSON, if any.
	MetadataLocation string
	Properties       map[string]string
}

// DefaultLocation is where a table's data lives in the local warehouse:
// <warehouse>/<bucket>/<ns joined by .>/<table>[.lance].
func (s *Store) DefaultLocation(ref TableRef, f Format) string { return "" }

// CreateTable creates a table entry (Lance: state declared, marker
// .lance-reserved written, directory made). Re-creating an existing table of
// the same format is idempotent (created=false); another format is ErrConflict;
// a bucket declared for the other format is ErrConflict; missing namespace is
// ErrNotFound. A deregistered Lance table comes back as declared/created.
func (s *Store) CreateTable(ctx context.Context, in CreateTableInput) (t Table, created bool, err error) {
	return Table{}, false, errTODO
}

// RegisterTable records an existing Lance dataset at a location. overwrite
// repoints an existing entry (never deleting data); without it an existing
// visible entry is ErrAlreadyExists.
func (s *Store) RegisterTable(ctx context.Context, ref TableRef, location string, overwrite bool) (Table, error) {
	return Table{}, errTODO
}

// GetTable returns a table, deregistered ones included (check State).
func (s *Store) GetTable(ctx context.Context, ref TableRef) (Table, error) { return Table{}, errTODO }

// GetTableByID returns a table by its table id.
func (s *Store) GetTableByID(ctx context.Context, id string) (Table, error) { return Table{}, errTODO }

// ListTablesOptions filter a table listing.
type ListTablesOptions struct {
	ListOptions
	Format              Format // "" = all formats
	NameContains        string // case-sensitive substring filter
	IncludeDeregistered bool
	IncludeDeclared     bool // Lance tables still only declared; default listing includes them when true
}

// ListTables lists the tables directly in a namespace.
func (s *Store) ListTables(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (items []Table, next string, err error) {
	return nil, "", errTODO
}

// CountTables counts tables in a namespace matching the options (for pagination).
func (s *Store) CountTables(ctx context.Context, bucket string, ns []string, opt ListTablesOptions) (int, error) {
	return 0, errTODO
}

// ListAllTables lists tables of one format across every bucket in buckets
// (nil = all), sorted by bucket, namespace, name; paginated by an opaque cursor.
func (s *Store) ListAllTables(ctx context.Context, f Format, buckets []string, cursor string, limit int) (items []Table, next string, err error) {
	return nil, "", errTODO
}

// DropTable removes the entry and deletes the table's data directory.
func (s *Store) DropTable(ctx context.Context, ref TableRef) (Table, error) { return Table{}, errTODO }

// DeregisterTable hides a Lance table (state deregistered, marker
// .lance-deregistered written); the data stays.
func (s *Store) DeregisterTable(ctx context.Context, ref TableRef) (Table, error) {
	return Table{}, errTODO
}

// RenameTable moves the entry to another name and/or namespace of the same
// bucket; the data stays where it is.
func (s *Store) RenameTable(ctx context.Context, from TableRef, toNamespace []string, toName string) (Table, error) {
	return Table{}, errTODO
}

// SetLanceState records the observed state (declared → created once a
// _versions/ directory exists).
func (s *Store) SetLanceState(ctx context.Context, id string, st LanceState) error { return errTODO }

// CommitTable swaps an Iceberg table's metadata location if the version token
// still matches (ErrConflict otherwise) and returns the updated table.
func (s *Store) CommitTable(ctx context.Context, id, expectedToken, newMetadataLocation string, props map[string]string) (Table, error) {
	return Table{}, errTODO
}

// ---- users -------------------------------------------------------------

// User is a console user.
type User struct {
	Name      string
	Role      Role
	CreatedAt time.Time
}

// CreateUser adds a user with a bcrypt-hashed password.
func (s *Store) CreateUser(ctx context.Context, name, password string, role Role) (User, error) {
	return User{}, errTODO
}

// SetUserPassword replaces a user's password.
func (s *Store) SetUserPassword(ctx context.Context, name, password string) error { return errTODO }

// Authenticate checks a password in constant time against the stored hash.
// Unknown user or wrong password both give ErrNotFound.
func (s *Store) Authenticate(ctx context.Context, name, password string) (User, error) {
	return User{}, errTODO
}

// GetUser returns a user.
func (s *Store) GetUser(ctx context.Context, name string) (User, error) { return User{}, errTODO }

// CountUsers counts users (0 on first start).
func (s *Store) CountUsers(ctx context.Context) (int, error) { return 0, errTODO }

// ---- sessions (scs.Store shape, without importing scs) ------------------

// Find returns session data for a token (scs.Store).
func (s *Store) Find(token string) ([]byte, bool, error) { return nil, false, errTODO }

// Commit stores session data until expiry (scs.Store).
func (s *Store) Commit(token string, b []byte, expiry time.Time) error { return errTODO }

// Delete removes a session (scs.Store).
func (s *Store) Delete(token string) error { return errTODO }
