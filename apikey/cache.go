package apikey

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/floe/floe/catalog"
)

// CacheTTL is how long a verified API key is trusted without asking the
// catalog again: it removes one SQLite query from every request on the hot
// path. Revocation in this process does not wait for it (see Keys).
const CacheTTL = time.Second

// maxCachedKeys bounds the cache; more distinct keys than this within one TTL
// clears it rather than letting it grow.
const maxCachedKeys = 1024

// Keys is what verification needs of the catalog. KeyGeneration changes
// whenever a key is revoked; the cache drops everything it holds when it
// sees a new generation, so a revoked key is refused on the next request.
// (A multi-replica catalog bumps the generation on a notification from
// its peers; nothing here changes.)
type Keys interface {
	VerifyAPIKey(ctx context.Context, secret string) (catalog.APIKey, error)
	KeyGeneration() uint64
}

// verifier checks API keys against the catalog, remembering successes for
// ttl. Only the SHA-256 of a secret is kept; failures are never cached.
type verifier struct {
	keys  Keys
	ttl   time.Duration
	cache *keyCache[[sha256.Size]byte]
}

func newVerifier(keys Keys, ttl time.Duration, now func() time.Time) *verifier {
	if now == nil {
		now = time.Now
	}
	return &verifier{keys: keys, ttl: ttl, cache: newKeyCache[[sha256.Size]byte](keys.KeyGeneration, ttl, now)}
}

func (v *verifier) verify(ctx context.Context, secret string) (catalog.APIKey, error) {
	if v.ttl <= 0 {
		return v.keys.VerifyAPIKey(ctx, secret)
	}
	return v.cache.get(sha256.Sum256([]byte(secret)), func() (catalog.APIKey, error) {
		return v.keys.VerifyAPIKey(ctx, secret)
	})
}
