package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Session keys of the post-redirect-get pattern: a write stores what the
// next page should say, then redirects; the next full page pops it.
const (
	sessionFlash  = "flash"  // one confirmation sentence
	sessionReveal = "reveal" // id of a secret held in memory until shown once
)

// flash records the confirmation sentence the next full page shows once.
func (h *Handlers) flash(r *http.Request, msg string) {
	if h.sessions != nil {
		h.sessions.Put(r.Context(), sessionFlash, msg)
	}
}

// popFlash takes the pending confirmation, if any. htmx fragments leave it
// for the page the browser navigates to next.
func (h *Handlers) popFlash(r *http.Request) string {
	if h.sessions == nil || isHTMX(r) || !h.SessionLoaded(r.Context()) {
		return ""
	}
	return h.sessions.PopString(r.Context(), sessionFlash)
}

// revealed is a new credential waiting to be shown once after the redirect.
type revealed struct {
	Name            string // key or token name
	Secret          string
	AccessKeyID     string // API keys only: the SigV4 pair
	SecretAccessKey string
	For             string    // the page that shows it when not the list's own ("" = that list)
	ExpiresAt       time.Time // API keys: when it stops working (zero: never)
	held            time.Time
}

// Caps of the one-time secrets: a redirect is followed in milliseconds, so
// a secret not fetched within revealTTL belongs to a tab that was closed;
// revealCap bounds memory if someone creates keys in a loop without
// following the redirects.
const (
	revealTTL = 5 * time.Minute
	revealCap = 256
)

// reveals holds new secrets in process memory, keyed by a random id the
// session carries. The session store is the database; keeping a plaintext
// secret out of it keeps "stored hashed" true.
type reveals struct {
	mu sync.Mutex
	m  map[string]revealed
}

func (s *reveals) put(v revealed, now time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	v.held = now
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]revealed{}
	}
	for k, old := range s.m {
		if now.Sub(old.held) > revealTTL {
			delete(s.m, k)
		}
	}
	if len(s.m) >= revealCap {
		var oldest string
		for k, old := range s.m {
			if oldest == "" || old.held.Before(s.m[oldest].held) {
				oldest = k
			}
		}
		delete(s.m, oldest)
	}
	s.m[id] = v
	return id
}

// take returns the secret once and forgets it.
func (s *reveals) take(id string, now time.Time) (revealed, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	delete(s.m, id)
	if !ok || now.Sub(v.held) > revealTTL {
		return revealed{}, false
	}
	return v, true
}

// holdSecret keeps a new credential for the page after the redirect.
func (h *Handlers) holdSecret(r *http.Request, v revealed) {
	if h.sessions != nil {
		h.sessions.Put(r.Context(), sessionReveal, h.reveals.put(v, time.Now()))
	}
}

// takeSecret returns the credential this session just created, once.
func (h *Handlers) takeSecret(r *http.Request) (revealed, bool) {
	if h.sessions == nil || isHTMX(r) {
		return revealed{}, false
	}
	id := h.sessions.PopString(r.Context(), sessionReveal)
	if id == "" {
		return revealed{}, false
	}
	return h.reveals.take(id, time.Now())
}
