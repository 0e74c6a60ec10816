// Package throttle slows down repeated failures by key (an account name, a
// client address): after a few free failures each further one locks the key
// for a delay that doubles, up to a ceiling. It knows nothing of HTTP; the
// clock is injected so tests never sleep.
package throttle

import (
	"sync"
	"time"
)

// maxKeys caps how many keys one Limiter remembers, so a client spraying
// made-up account names cannot grow memory without bound; past it the key
// idle the longest is forgotten first.
const maxKeys = 10_000

// Policy says how forgiving a Limiter is.
type Policy struct {
	Free   int           // failures allowed before any lock (typing mistakes)
	Base   time.Duration // the first lock; each further failure doubles it
	Max    time.Duration // the longest lock, so a victim account is never shut out for long
	Forget time.Duration // a key idle this long starts again from zero
}

// Limiter counts failures per key. Safe for concurrent use.
type Limiter struct {
	p   Policy
	now func() time.Time

	mu   sync.Mutex
	keys map[string]*entry
}

type entry struct {
	failures    int
	lockedUntil time.Time
	last        time.Time
}

// New builds a Limiter; now may be nil for the wall clock.
func New(p Policy, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{p: p, now: now, keys: make(map[string]*entry)}
}

// Wait is how long key stays locked from now; 0 means it may try.
func (l *Limiter) Wait(key string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	e := l.live(key, now)
	if e == nil || !e.lockedUntil.After(now) {
		return 0
	}
	return e.lockedUntil.Sub(now)
}

// Fail records one failure for key and returns the lock it now carries (0
// while the failure was still free).
func (l *Limiter) Fail(key string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	e := l.live(key, now)
	if e == nil {
		if len(l.keys) >= maxKeys {
			l.evict(now)
		}
		e = &entry{}
		l.keys[key] = e
	}
	e.failures++
	e.last = now
	over := e.failures - l.p.Free
	if over <= 0 {
		return 0
	}
	d := l.p.Base
	for i := 1; i < over && d < l.p.Max; i++ {
		d *= 2
	}
	d = min(d, l.p.Max)
	e.lockedUntil = now.Add(d)
	return d
}

// Succeed forgets key's failures.
func (l *Limiter) Succeed(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, key)
}

// live returns key's entry unless it has been idle past Forget (then it is
// dropped). Called with mu held.
func (l *Limiter) live(key string, now time.Time) *entry {
	e := l.keys[key]
	if e == nil {
		return nil
	}
	if now.Sub(e.last) > l.p.Forget && !e.lockedUntil.After(now) {
		delete(l.keys, key)
		return nil
	}
	return e
}

// evict drops every forgotten key and, if none was, the one idle longest.
// Called with mu held.
func (l *Limiter) evict(now time.Time) {
	var oldest string
	var oldestAt time.Time
	dropped := false
	for k, e := range l.keys {
		if now.Sub(e.last) > l.p.Forget && !e.lockedUntil.After(now) {
			delete(l.keys, k)
			dropped = true
			continue
		}
		if oldest == "" || e.last.Before(oldestAt) {
			oldest, oldestAt = k, e.last
		}
	}
	if !dropped && oldest != "" {
		delete(l.keys, oldest)
	}
}
