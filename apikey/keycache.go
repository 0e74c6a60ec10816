package apikey

import (
	"sync"
	"time"

	"github.com/floe/floe/catalog"
)

// keyCache remembers keys the catalog answered for, under the rules both
// the API-key verifier and the access-key lookup keep: an entry is trusted
// for ttl and never past the key's own expiry; a new KeyGeneration (a
// revocation) drops everything at once; an answer that may predate a
// revocation that landed while the catalog was asked is used once and not
// remembered; failures are never remembered; more than maxCachedKeys
// distinct keys within a ttl clear it rather than let it grow.
type keyCache[K comparable] struct {
	generation func() uint64
	ttl        time.Duration
	now        func() time.Time

	mu      sync.Mutex
	gen     uint64
	entries map[K]cachedKey
}

type cachedKey struct {
	key     catalog.APIKey
	expires time.Time
}

func newKeyCache[K comparable](generation func() uint64, ttl time.Duration, now func() time.Time) *keyCache[K] {
	return &keyCache[K]{generation: generation, ttl: ttl, now: now, gen: generation(), entries: map[K]cachedKey{}}
}

// get answers k's key from memory or, failing that, from load.
func (c *keyCache[K]) get(k K, load func() (catalog.APIKey, error)) (catalog.APIKey, error) {
	now := c.now()
	gen := c.generation()
	c.mu.Lock()
	if gen != c.gen {
		clear(c.entries)
		c.gen = gen
	}
	e, ok := c.entries[k]
	c.mu.Unlock()
	if ok && now.Before(e.expires) && (e.key.ExpiresAt.IsZero() || now.Before(e.key.ExpiresAt)) {
		return e.key, nil
	}
	key, err := load()
	if err != nil {
		return key, err
	}
	c.mu.Lock()
	if c.generation() == c.gen {
		if len(c.entries) >= maxCachedKeys {
			clear(c.entries)
		}
		c.entries[k] = cachedKey{key: key, expires: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	return key, nil
}
