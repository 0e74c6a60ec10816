package catalog

// This file is the catalog's public surface: options, the Store and the
// input/option types. The methods live beside it, one file per noun
// (bucket.go, namespace.go, table_*.go, user.go, apikey.go).

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/warehouse"
)

// Options configure a Store.
type Options struct {
	// Path of the SQLite file, e.g. "./floe-data/catalog.db"; used by Open
	// only (New takes an open database).
	Path string
	// Warehouse is the root under which table data lives: a local
	// directory (absolute, relative to the working directory, or file://)
	// or, with a Backend, the backend's root URI (s3://bucket/prefix).
	Warehouse string
	// Region and Account appear in ARNs: arn:floe:s3tables:<region>:<account>:bucket/<name>.
	Region  string // default "local"
	Account string // default "000000000000"
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Backend stores the warehouse; nil means the local disk under
	// Warehouse, confined to it with os.Root.
	Backend warehouse.Backend
	// BcryptCost hashes console passwords; 0 means bcrypt.DefaultCost.
	// Tests lower it (bcrypt.MinCost): under -race one default-cost hash
	// takes seconds.
	BcryptCost int
	// SoftDeleteHold is how long a dropped table stays recently deleted
	// when neither its bucket nor the catalog's recorded default
	// (SetDefaultHold) says otherwise. 0, the zero value, deletes at once
	// as drops always did; floe serve passes --soft-delete-hold (7 days by
	// default).
	SoftDeleteHold time.Duration
}

// Store is the catalog on SQLite. It is safe for concurrent use, and several
// processes (floe serve and the CLI) may open the same file at once.
type Store struct {
	// db is the one database handle: its writes queue in persist, its
	// reads run through cached prepared statements.
	db     *persist.DB
	ro     querier    // reads outside transactions; the same handle as db
	ownsDB bool       // Open made db, so Close closes it
	lists  listCache  // name listings, valid while the table generation holds
	ways   wayCache   // name filters' ways (table_filter.go), the same
	tables tableCache // table entries by name, on PostgreSQL with a bus (CacheReads)
	opts   Options
	wh     *warehouse.Warehouse
	local  *warehouse.Local // the local backend New made, closed by Close

	dummyOnce sync.Once // guards dummy
	dummy     []byte    // bcrypt hash compared against for unknown users

	// keyGen counts API-key revocations heard of (here, and from other
	// replicas with FollowRevocations); key caches compare it to drop what
	// they hold (see KeyGeneration).
	keyGen  atomic.Uint64
	revoked revocations // see FollowRevocations
	grants  grantWatch  // see FollowGrants and GrantStamp

	onChange atomic.Pointer[func(tableID string)] // see OnTableChange
	onEvent  atomic.Pointer[func(TableEvent)]     // see OnTableEvent

	// holder names this Store in the purge claims it writes, so its claim
	// is told from another replica's.
	holder string
}

// Warehouse returns the warehouse root as configured (for the local
// warehouse, its absolute directory).
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

// CreateBucketInput describes a new bucket.
type CreateBucketInput struct {
	Name   string
	Format Format
	Owner  string
	Tags   map[string]string
	// ManagedVersioning: see Bucket.ManagedVersioning (LANCE or unset
	// buckets only).
	ManagedVersioning bool
	// Protected: see Bucket.Protected.
	Protected bool
}

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
	// FirstMetadata, when set, writes an Iceberg table's first metadata
	// file under the location the catalog settled on and returns where it
	// is. It runs inside the create's write transaction, just before the
	// row is inserted with that metadata location, so the entry and its
	// metadata commit together or not at all: a crash or a database outage
	// can leave an unreferenced file, never an entry without metadata. A
	// transaction retried whole calls it again; the caller removes the
	// files it wrote that CreateTable did not keep.
	FirstMetadata func(ctx context.Context, location string) (metadataLocation string, err error)
	Properties    map[string]string
	// Tags label a new table (S3 Tables' CreateTable tags); an existing
	// table's tags are not touched.
	Tags map[string]string
}

// ListTablesOptions filter a table listing.
type ListTablesOptions struct {
	ListOptions
	Format Format // "" = all formats
	// NameFilter is the console's name filter: three or more characters
	// match anywhere in the name, one or two its start; case-sensitive
	// (NameFilterMatches). It is answered from an index (table_filter.go).
	NameFilter          string
	IncludeDeregistered bool
	// IncludeDeclared keeps Lance tables still only declared. Without it,
	// ListTables and ListTableNames check the declared tables their page
	// needs on storage (at most a page's worth), so one that got data shows
	// as written (with the read cache on, within declaredRecheck: each is
	// checked at most once in that time); CountTables and SkipTables go by
	// the recorded state, which those listings, describes and the Lance
	// REST keep up to date.
	IncludeDeclared bool
}

// Unfiltered reports whether the options keep every visible table, so the
// count is the namespace's TableCount.
func (o ListTablesOptions) Unfiltered() bool {
	return o.Format == FormatUnset && o.NameFilter == "" && o.IncludeDeclared && !o.IncludeDeregistered
}

// User is a console user: local (a password) or from the identity
// provider (Issuer and Subject set, no password).
type User struct {
	Name      string
	Role      Role // "" for an identity-provider user whose groups give no role
	CreatedAt time.Time
	// DisabledAt is when an admin disabled the user (zero = enabled): a
	// disabled user cannot sign in and every session of theirs is refused.
	DisabledAt time.Time
	// SessionsAfter refuses every session signed in before it (a password
	// reset or a disable sets it); zero refuses none.
	SessionsAfter time.Time
	// Issuer and Subject name an identity-provider user at its provider;
	// both "" for a local user.
	Issuer, Subject string
	// Groups are the groups the provider's groups claim named at the
	// user's last sign-in (never set for local users).
	Groups []string
	// LastSignInAt is an identity-provider user's last sign-in; zero for
	// local users.
	LastSignInAt time.Time
}

// Disabled reports whether the user may not sign in.
func (u User) Disabled() bool { return !u.DisabledAt.IsZero() }

// FromIdP reports whether the user signs in through the identity provider.
func (u User) FromIdP() bool { return u.Subject != "" }
