package apikey

import (
	"context"
	"crypto/sha256"
	"sync"
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
	keys Keys
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	gen     uint64
	entries map[[sha256.Size]byte]cachedKey
}

type cachedKey struct {
	key     catalog.APIKey
	expires time.Time
}

func newVerifier(keys Keys, ttl time.Duration) *verifier {
	return &verifier{keys: keys, ttl: ttl, now: time.Now, gen: keys.KeyGeneration(), entries: make(map[[sha256.Size]byte]cachedKey)}
}

func (v *verifier) verify(ctx context.Context, secret string) (catalog.APIKey, error) {
	if v.ttl <= 0 {
		return v.keys.VerifyAPIKey(ctx, secret)
	}
	h := sha256.Sum256([]byte(secret))
	now := v.now()
	gen := v.keys.KeyGeneration()
	v.mu.Lock()
	if gen != v.gen {
		clear(v.entries)
		v.gen = gen
	}
	c, ok := v.entries[h]
	v.mu.Unlock()
	if ok && now.Before(c.expires) && (c.key.ExpiresAt.IsZero() || now.Before(c.key.ExpiresAt)) {
		return c.key, nil
	}
	key, err := v.keys.VerifyAPIKey(ctx, secret)
	if err != nil {
		return key, err
	}
	v.mu.Lock()
	// A revoke that landed while we asked the catalog bumps the generation:
	// this answer may predate it, so it is used once and not remembered.
	if v.keys.KeyGeneration() == v.gen {
		if len(v.entries) >= maxCachedKeys {
			clear(v.entries)
		}
		v.entries[h] = cachedKey{key: key, expires: now.Add(v.ttl)}
	}
	v.mu.Unlock()
	return key, nil
}
