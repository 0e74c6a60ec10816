package apikey

import (
	"context"
	"time"

	"github.com/floe/floe/catalog"
)

// AccessKeyStore is what looking up SigV4 access keys needs of the catalog:
// the lookup itself and the revocation generation (see Keys).
type AccessKeyStore interface {
	LookupAccessKey(ctx context.Context, accessKeyID string) (catalog.APIKey, error)
	KeyGeneration() uint64
}

// AccessKeys remembers access key lookups for CacheTTL, so a SigV4-signed
// request costs its hashing rather than a catalog query as well: engines
// sign every request of a session with the same pair. It has the key
// cache's rules — a revocation in this process (a new KeyGeneration) drops
// everything at once, a key past its expiry is asked again, failures are
// never remembered — and its bound. It holds the secret access keys it
// remembers, as the verifier must have them to re-sign; they never leave
// it but through LookupAccessKey. Safe for concurrent use; the
// sigv4.Verifier's Keys.
type AccessKeys struct {
	keys  AccessKeyStore
	cache *keyCache[string]
}

// NewAccessKeys builds the cache over keys; now nil means time.Now.
func NewAccessKeys(keys AccessKeyStore, now func() time.Time) *AccessKeys {
	if now == nil {
		now = time.Now
	}
	return &AccessKeys{keys: keys, cache: newKeyCache[string](keys.KeyGeneration, CacheTTL, now)}
}

// LookupAccessKey answers the key owning accessKeyID, with its secret
// access key, from the cache or the catalog.
func (a *AccessKeys) LookupAccessKey(ctx context.Context, accessKeyID string) (catalog.APIKey, error) {
	return a.cache.get(accessKeyID, func() (catalog.APIKey, error) {
		return a.keys.LookupAccessKey(ctx, accessKeyID)
	})
}
