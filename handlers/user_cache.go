package handlers

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// userCacheTTL is how long a user's row is trusted for their sessions
// without reading it again: one read per second per user instead of one per
// request. A change made through this console drops the entry at once; one
// made elsewhere (the CLI, another replica) applies within this long.
const userCacheTTL = time.Second

// maxCachedUsers bounds the cache; more distinct users within one TTL
// clears it rather than letting it grow.
const maxCachedUsers = 1024

// userCache checks password sessions against the users table.
type userCache struct {
	store *catalog.Store

	mu      sync.Mutex
	entries map[string]cachedUser
}

type cachedUser struct {
	user    catalog.User
	err     error // the refusal the row gives (disabled; a deleted user)
	fetched time.Time
}

func newUserCache(st *catalog.Store) *userCache {
	if st == nil {
		return nil
	}
	return &userCache{store: st, entries: map[string]cachedUser{}}
}

// check answers the user a session signed in at signedIn belongs to, or
// why it no longer counts (catalog.Store.SessionUser's refusals: NotFound,
// Forbidden); any other error is the database's.
func (c *userCache) check(ctx context.Context, name string, signedIn time.Time) (catalog.User, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.entries[name]
	c.mu.Unlock()
	if !ok || now.Sub(e.fetched) >= userCacheTTL {
		u, err := c.store.GetUser(ctx, name)
		if err != nil && !errors.Is(err, fault.NotFound) {
			return catalog.User{}, err // not remembered: the next request asks again
		}
		e = cachedUser{user: u, err: err, fetched: now}
		c.mu.Lock()
		if len(c.entries) >= maxCachedUsers {
			clear(c.entries)
		}
		c.entries[name] = e
		c.mu.Unlock()
	}
	if e.err != nil {
		return catalog.User{}, e.err
	}
	return e.user, catalog.CheckSession(e.user, signedIn)
}

// forget drops a user's entry after this console changed them.
func (c *userCache) forget(name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.entries, name)
	c.mu.Unlock()
}
