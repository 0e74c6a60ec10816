package catalog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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

// maxKeyLifetime bounds an API key's lifetime: ten years is "never" in
// practice, and a bound keeps the expiry far from overflowing.
const maxKeyLifetime = 10 * 365 * 24 * time.Hour

// ParseKeyLifetime reads how long a new key should live, as the console and
// the CLI take it: "" (never expires), or a whole number with a unit, s, m,
// h, d (24 h) or w (7 d): "90s", "12h", "30d". Between 1 s and 10 years.
func ParseKeyLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "never" {
		return 0, nil
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	unit, ok := units[s[len(s)-1]]
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if !ok || err != nil || n < 1 {
		return 0, Invalid("expires_in", fmt.Sprintf("%q is not a lifetime: give a whole number and a unit, e.g. 90s, 45m, 12h, 30d or 2w (empty: never expires)", s))
	}
	if n > int64(maxKeyLifetime/unit) {
		return 0, Invalid("expires_in", fmt.Sprintf("%q is longer than a key may live (10 years); leave it empty for a key that never expires", s))
	}
	return time.Duration(n) * unit, nil
}
