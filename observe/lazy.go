package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
)

// Start-up reads no attributes: Load reads each observation's key, time
// and worker (a few dozen bytes a table), and an entry it made reads its
// attributes JSON from the database the first time a page asks for them,
// then holds them packed like a Put's. A catalog of 200,000 observed tables
// so loads in a fraction of the time parsing every blob took, and memory
// holds the attributes only of the tables someone looked at (at most the
// cap's worth, as before).
//
// Load also runs while the store already serves (floe serve starts it in
// the background, so readiness does not wait for it): until it has
// finished, a key not held is read from the database, so every answer is
// the one the loaded store would give.

// lazyReadTimeout bounds one read of a table's attributes or observation.
const lazyReadTimeout = 5 * time.Second

// Loaded is closed once Load has read the persisted observations.
func (s *Store) Loaded() <-chan struct{} { return s.loaded }

// lookup returns the entry of k: the one held, or while Load has not
// finished, the database's row (not kept: Load keeps it in order).
func (s *Store) lookup(k key) (*entry, bool) {
	s.mu.RLock()
	e, ok := s.entries[k]
	s.mu.RUnlock()
	if ok {
		return e, true
	}
	select {
	case <-s.loaded:
		return nil, false
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), lazyReadTimeout)
	defer cancel()
	var o Observation
	var at int64
	var attrs string
	err := s.db.QueryRowContext(ctx, `SELECT observed_at, worker_id, attributes_json
		FROM observations WHERE object_id = ? AND format = ?`, k.objectID, string(k.format)).Scan(&at, &o.WorkerID, &attrs)
	if err != nil {
		return nil, false // none, or the database is away: not observed, as far as this page can tell
	}
	o.ObjectID, o.Format, o.ObservedAt, o.Attributes = k.objectID, k.format, persist.FromMicros(at), json.RawMessage(attrs)
	s.mu.RLock()
	held, ok := s.entries[k] // put or loaded while the row was read: at least as new
	s.mu.RUnlock()
	if ok {
		return held, true
	}
	return newEntry(o), true
}

// raw returns an entry's attributes JSON, reading a loaded entry's from
// the database the first time. A failed read answers an empty object and
// ok false, and is tried again on the next ask.
func (s *Store) raw(e *entry) (_ json.RawMessage, ok bool) {
	if !e.stored {
		return unpack(e.packed), true
	}
	if p := e.fetched.Load(); p != nil {
		return unpack(*p), true
	}
	ctx, cancel := context.WithTimeout(context.Background(), lazyReadTimeout)
	defer cancel()
	var attrs string
	// A newer row (another replica's) has its note on the way, which
	// replaces this entry; until then its attributes are the better answer.
	err := s.db.QueryRowContext(ctx, `SELECT attributes_json FROM observations WHERE object_id = ? AND format = ?`,
		e.meta.ObjectID, string(e.meta.Format)).Scan(&attrs)
	if err != nil {
		return json.RawMessage("{}"), false
	}
	packed := pack(json.RawMessage(attrs))
	e.fetched.Store(&packed)
	return json.RawMessage(attrs), true
}

// storedEntry is an entry Load made: its attributes stay in the database
// until asked for.
func storedEntry(objectID string, format catalog.Format, at time.Time, workerID string) *entry {
	return &entry{meta: Observation{ObjectID: objectID, Format: format, ObservedAt: at, WorkerID: workerID}, stored: true}
}

// warmBatch is how many observations' attributes one warm-up read takes.
const warmBatch = 1_000

// Warm reads the loaded entries' attributes in batches of warmBatch, in key
// order; floe serve calls it after Load, in the background: a page that sums every table (the buckets
// page) then finds them in memory instead of reading each on its own —
// one query a table, seconds at 100,000 tables on PostgreSQL. An entry
// replaced since the load (a Put, another replica's note) is left alone.
func (s *Store) Warm(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	var after key
	for {
		rows, err := s.db.QueryContext(ctx, `SELECT object_id, format, attributes_json FROM observations
			WHERE object_id > ? OR (object_id = ? AND format > ?) ORDER BY object_id, format LIMIT ?`,
			after.objectID, after.objectID, string(after.format), warmBatch)
		if err != nil {
			return fmt.Errorf("observe: read attributes: %w", err)
		}
		n := 0
		for rows.Next() {
			var id, format, attrs string
			if err := rows.Scan(&id, &format, &attrs); err != nil {
				rows.Close()
				return fmt.Errorf("observe: read attributes: %w", err)
			}
			n++
			after = key{id, catalog.Format(format)}
			s.mu.RLock()
			e, ok := s.entries[after]
			s.mu.RUnlock()
			if ok && e.stored && e.fetched.Load() == nil {
				packed := pack(json.RawMessage(attrs))
				e.fetched.CompareAndSwap(nil, &packed)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("observe: read attributes: %w", err)
		}
		if n < warmBatch {
			return nil
		}
	}
}
