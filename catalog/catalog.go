// Package catalog owns table buckets, namespaces, tables, views, users, API
// keys, worker tokens and maintenance settings, and their invariants. Rows
// live in floe's database through persist (a SQLite file by default,
// PostgreSQL shared by replicas) and table data in the warehouse. Every rule
// of the data model lives here, not in the HTTP layers above it.
package catalog

import (
	"time"

	"github.com/floe/floe/fault"
)

// Format is the table format a bucket declares or a table has.
type Format string

const (
	FormatUnset   Format = ""
	FormatLance   Format = "LANCE"
	FormatIceberg Format = "ICEBERG"
)

// ParseFormat accepts "lance", "LANCE", "iceberg", "ICEBERG" and "" (unset).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "":
		return FormatUnset, nil
	case "lance", "LANCE", "Lance":
		return FormatLance, nil
	case "iceberg", "ICEBERG", "Iceberg":
		return FormatIceberg, nil
	}
	return "", Invalid("format", "format must be lance or iceberg")
}

// LanceState is the lifecycle of a Lance table entry.
type LanceState string

const (
	StateNone         LanceState = "" // Iceberg tables have no Lance state
	StateDeclared     LanceState = "declared"
	StateCreated      LanceState = "created"
	StateDeregistered LanceState = "deregistered"
)

// Role of a console user or API key.
type Role string

const (
	RoleAdmin     Role = "admin"     // console users: every action
	RoleReadonly  Role = "readonly"  // console users and API keys: reads only
	RoleReadWrite Role = "readwrite" // API keys: reads, writes and maintenance
	// RoleNone: an API key whose rights are only the grants given to it
	// later (floe grant add, a console Access tab, an S3 Tables policy).
	RoleNone Role = "none"
)

// Bucket is a table bucket.
type Bucket struct {
	Name       string
	Format     Format // unset: created before formats existed; accepts both
	ARN        string
	Owner      string
	Tags       map[string]string
	CreatedAt  time.Time
	TableCount int // filled by ListBuckets and GetBucket
	// ManagedVersioning makes floe the commit authority of the bucket's
	// Lance tables: DescribeTable answers managed_versioning true, clients
	// commit each version through CreateTableVersion and the catalog keeps
	// the version list (lance_versions.go). Off unless asked for, except
	// on a store that ignores conditional writes, where it is always on.
	ManagedVersioning bool
	// Protected makes the bucket refuse delete (and its cascade) unless
	// forced; see ProtectedProperty.
	Protected bool
	// SoftDeleteHold is how long a table dropped in this bucket stays
	// recently deleted before its data is deleted; negative means the
	// server's default (see Store.EffectiveHold), 0 deletes at once.
	SoftDeleteHold time.Duration
	// DeletedAt is zero for a live bucket. A deleted bucket that still
	// holds recently deleted tables is listed only among the recently
	// deleted (ListDeletedBuckets) until its last table is purged.
	DeletedAt time.Time
}

// Namespace is one namespace level path inside a bucket.
type Namespace struct {
	Bucket     string
	Levels     []string // e.g. ["sales", "eu"]
	Properties map[string]string
	CreatedAt  time.Time
	// TableCount is how many visible (not deregistered) tables lie
	// directly in the namespace as it was read: CountTables without
	// filters, at no extra query.
	TableCount int
}

// Name joins the levels with "." as the console URL and warehouse do.
func (n Namespace) Name() string { return JoinNamespace(n.Levels) }

// Table is a catalog entry for a Lance dataset or an Iceberg table.
type Table struct {
	ID               string // UUID; a re-created table gets a new one
	Bucket           string
	Namespace        []string
	Name             string
	Format           Format
	ARN              string
	Location         string // local directory path for the local warehouse
	MetadataLocation string // Iceberg: current metadata JSON; empty for Lance
	VersionToken     string // compare-and-swap token, changes on every update
	State            LanceState
	Properties       map[string]string
	CreatedAt        time.Time
	ModifiedAt       time.Time
}

// ListOptions pages through a sorted list. After is the last name of the
// previous page ("" for the first); Limit <= 0 means DefaultPageSize.
type ListOptions struct {
	After string
	Limit int
}

// DefaultPageSize is used when a caller asks for no particular page size;
// MaxPageSize bounds one page so a single request cannot read a whole catalog.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
)

// Invalid builds an fault.Invalid error naming the field and the rule.
func Invalid(field, rule string) error {
	return fault.New(fault.Invalid, field, "%s", rule)
}

func newErr(kind fault.Kind, field, format string, args ...any) error {
	return fault.New(kind, field, format, args...)
}
