package catalog

import (
	"encoding/json"
	"sync"

	"github.com/floe/floe/persist/notify"
)

// Bus topics of the credential triggers (migrations/postgres/
// 0015_credentials_notify.sql): some API keys were deleted; one worker
// token was deleted, its id in the message.
const (
	busTopicAPIKeys = "catalog.api_keys"
	// BusTopicWorkerTokens carries {"id": "<worker token id>"} for every
	// worker token deleted by any process on the shared database.
	BusTopicWorkerTokens = "catalog.worker_tokens"
)

// revocations is how this process hears that a credential it may be
// trusting was revoked, here or elsewhere.
type revocations struct {
	bus *notify.Bus // nil: only this process revokes (SQLite)

	mu            sync.Mutex
	onWorkerToken []func(id string) // guarded by mu
}

// FollowRevocations makes revocations by any process on a shared
// PostgreSQL reach this one through bus, as they happen: every key cache
// and OAuth bearer check starts over (KeyGeneration moves) when API keys
// are deleted anywhere, and the OnWorkerTokenRevoked functions hear each
// worker token deleted anywhere. While the bus's listener is not listening
// a revocation could go unheard, so KeyGeneration then moves on every call
// and nothing is trusted from a cache. With a SQLite bus it does nothing:
// one process revokes, in its own memory too. Call it once, before serving.
func (s *Store) FollowRevocations(bus *notify.Bus) {
	if !bus.Remote() {
		return
	}
	s.revoked.bus = bus
	// Inline on the listener's goroutine (Handle), before the next
	// notification is read; a reconnect (Resync) may have missed some.
	bus.Handle(busTopicAPIKeys, func(notify.Message) { s.keyGen.Add(1) })
	bus.Handle(BusTopicWorkerTokens, func(m notify.Message) {
		s.keyGen.Add(1) // its minted keys went in the same transaction
		if m.Resync {
			s.workerTokenRevoked("")
			return
		}
		var note struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(m.Data, &note) == nil && note.ID != "" {
			s.workerTokenRevoked(note.ID)
		}
	})
}

// OnWorkerTokenRevoked registers fn to hear the id of every worker token
// revoked through this Store and, with FollowRevocations, by any other
// process. An empty id means "some may have been revoked unheard" (the
// bus reconnected): fn should check the tokens it relies on. fn must be
// quick and must not block: it may run on the bus listener's goroutine.
func (s *Store) OnWorkerTokenRevoked(fn func(id string)) {
	s.revoked.mu.Lock()
	defer s.revoked.mu.Unlock()
	s.revoked.onWorkerToken = append(s.revoked.onWorkerToken, fn)
}

func (s *Store) workerTokenRevoked(id string) {
	s.revoked.mu.Lock()
	fns := append([]func(string){}, s.revoked.onWorkerToken...)
	s.revoked.mu.Unlock()
	for _, fn := range fns {
		fn(id)
	}
}

// KeyGeneration changes whenever an API key is revoked: by this process
// at once, and with FollowRevocations by any process on the shared
// database as soon as its notification arrives. Caches of verified keys
// compare it and start over when it moved, so a revoked key stops working
// on the next request. While revocations could go unheard (the bus's
// listener is reconnecting) it changes on every call.
func (s *Store) KeyGeneration() uint64 {
	if b := s.revoked.bus; b != nil && b.Session() == 0 {
		return s.keyGen.Add(1)
	}
	return s.keyGen.Load()
}
