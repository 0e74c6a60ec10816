package catalog

import "time"

// APIKey is a catalog/task API credential. The secret is shown once at
// creation and stored only as a hash.
type APIKey struct {
	ID         string // short public id, e.g. "k_3f9a..."
	Name       string
	Role       Role   // RoleReadWrite or RoleReadonly
	Bucket     string // "" = every bucket
	CreatedAt  time.Time
	LastUsedAt time.Time // zero if never used
	ExpiresAt  time.Time // zero = never (worker keys minted by the plugin channel expire)
	// AccessKeyID names the key's SigV4 pair on the S3 Tables surface; ""
	// for a key made before SigV4 existed.
	AccessKeyID string
	// SecretAccessKey is filled only by CreateAPIKey (to be shown once) and
	// by LookupAccessKey (to verify a signature); listings leave it empty.
	SecretAccessKey string
	// System is what floe itself made the key for; "" for keys people made.
	System SystemRole
}

// CanRead reports whether the key may read the bucket.
func (k APIKey) CanRead(bucket string) bool { return k.Bucket == "" || k.Bucket == bucket }

// CanWrite reports whether the key may change the bucket.
func (k APIKey) CanWrite(bucket string) bool { return k.Role == RoleReadWrite && k.CanRead(bucket) }

// WorkerToken authenticates a worker on the plugin channel.
type WorkerToken struct {
	ID         string
	Name       string
	CreatedAt  time.Time
	LastUsedAt time.Time
	System     SystemRole // what floe itself made the token for; "" for tokens people made
}
