package lancerest

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
)

// keyCacheTTL is how long a verified API key is trusted without asking the
// catalog again: it removes one SQLite query from every request on the hot
// path, and bounds how long a revoked key keeps working (one second).
const keyCacheTTL = time.Second

// maxCachedKeys bounds the cache; more distinct keys than this within one TTL
// clears it rather than letting it grow.
const maxCachedKeys = 1024

// keyVerifier checks API keys against the catalog, remembering successes for
// ttl. Only the SHA-256 of a secret is kept; failures are never cached.
type keyVerifier struct {
	store *catalog.Store
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cachedKey
}

type cachedKey struct {
	key     catalog.APIKey
	expires time.Time
}

func newKeyVerifier(store *catalog.Store, ttl time.Duration) *keyVerifier {
	return &keyVerifier{store: store, ttl: ttl, now: time.Now, entries: make(map[[sha256.Size]byte]cachedKey)}
}

func (v *keyVerifier) verify(ctx context.Context, secret string) (catalog.APIKey, error) {
	if v.ttl <= 0 {
		return v.store.VerifyAPIKey(ctx, secret)
	}
	h := sha256.Sum256([]byte(secret))
	now := v.now()
	v.mu.Lock()
	c, ok := v.entries[h]
	v.mu.Unlock()
	if ok && now.Before(c.expires) && (c.key.ExpiresAt.IsZero() || now.Before(c.key.ExpiresAt)) {
		return c.key, nil
	}
	key, err := v.store.VerifyAPIKey(ctx, secret)
	if err != nil {
		return key, err
	}
	v.mu.Lock()
	if len(v.entries) >= maxCachedKeys {
		clear(v.entries)
	}
	v.entries[h] = cachedKey{key: key, expires: now.Add(v.ttl)}
	v.mu.Unlock()
	return key, nil
}
