// Package observe keeps the last description of each object that a worker
// looked at (rows, fragments, versions, schema…), scoped by format so a Lance
// observation never answers for an Iceberg table with the same id. It is
// bounded, newest-wins, and persisted in the catalog database so pages stay
// filled after a restart.
package observe

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
)

// DefaultCap bounds the observations kept; a console rarely shows more than a
// few thousand tables, and each entry asked for holds its attributes JSON.
const DefaultCap = 100_000

// maxAttributesBytes refuses attribute blobs larger than this: a worker that
// sends megabytes of history per table would fill memory, not inform anyone.
const maxAttributesBytes = 256 << 10

// flushInterval is how often pending writes reach SQLite; observations arrive
// in bursts and one transaction per burst keeps ingest far above per-row
// commits.
const flushInterval = 500 * time.Millisecond

// loadTimeout bounds Load's read of the persisted observations.
const loadTimeout = 30 * time.Second

// finalFlushTimeout bounds the flush Run makes as it stops, so a database
// that went away cannot hold up shutdown.
const finalFlushTimeout = 10 * time.Second

// flushBatch flushes early once this many writes wait, bounding the work (and
// the loss on a crash) of one flush.
const flushBatch = 2000

// Observation is one object's last description.
type Observation struct {
	ObjectID   string
	Format     catalog.Format
	ObservedAt time.Time
	WorkerID   string
	// Attributes is a JSON object (see Attributes for the known keys).
	Attributes json.RawMessage
}

type key struct {
	objectID string
	format   catalog.Format
}

// entry is immutable once stored except for the attributes read and
// parsed lazily.
type entry struct {
	meta   Observation // Attributes nil: they live in packed
	packed []byte      // deflated attributes JSON (see packed.go)
	// stored marks an entry Load made: packed is nil and the attributes,
	// until fetched holds them, are only in the database (lazy.go).
	stored  bool
	fetched atomic.Pointer[[]byte]
	elem    *list.Element
	parsed  atomic.Pointer[Attributes]
}

// Store is the observation store. Safe for concurrent use.
type Store struct {
	db  *persist.DB
	cap int

	mu      sync.RWMutex
	entries map[key]*entry
	order   *list.List   // of key, oldest update first; the front is evicted
	dirty   map[key]bool // written or deleted since the last flush

	bus  atomic.Pointer[notify.Bus] // set by Follow: flushes announce their keys to other replicas
	kick chan struct{}              // cap 1: a flush is wanted soon

	changes atomic.Uint64 // see Changes

	metrics atomic.Pointer[metrics] // set by Instrument; nil records nothing

	// Kept observations (history.go).
	histMu    sync.Mutex
	retention time.Duration   // 0: history off
	lastFig   map[key]figures // each object's last point's figures
	prunedAt  time.Time       // the last prune of old points

	totals totalsCache // the bucket page's sums (totals_cache.go)

	loaded     chan struct{} // closed when Load has finished (lazy.go)
	loadedOnce sync.Once
}

// ErrTooLarge is returned for attribute blobs over the size cap.
var ErrTooLarge = errors.New("observe: attributes too large")

// New returns an empty store over db, which the observation migrations
// (Migrations) have been applied to; it starts nothing, and until Load has
// run it reads what it does not hold from the database. Load reads the
// persisted observations, Run flushes new ones, Close flushes what is
// left. cap <= 0 means DefaultCap.
func New(db *persist.DB, cap int) (*Store, error) {
	if db == nil {
		return nil, errors.New("observe: an open database is required")
	}
	if cap <= 0 {
		cap = DefaultCap
	}
	return &Store{
		db:      db,
		cap:     cap,
		entries: make(map[key]*entry),
		order:   list.New(),
		dirty:   make(map[key]bool),
		kick:    make(chan struct{}, 1),
		loaded:  make(chan struct{}),

		retention: DefaultHistoryRetention,
		lastFig:   map[key]figures{},
	}, nil
}

// Load reads the persisted observations' keys, newest first up to the
// cap, and leaves their attributes in the database until asked for
// (lazy.go). It may run while the store serves, as floe serve has it: the
// answers before it finished are those after. Call it once.
func (s *Store) Load(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	if err := s.load(ctx); err != nil {
		return err
	}
	s.loadedOnce.Do(func() { close(s.loaded) })
	s.changes.Add(1) // aggregates made from rows read through see the loaded store
	return nil
}

// Run flushes pending writes every flushInterval (sooner once flushBatch
// wait) and, after Follow on a PostgreSQL bus, keeps other replicas'
// observations in memory, until ctx ends; it flushes once more and returns.
func (s *Store) Run(ctx context.Context) error {
	var remote <-chan notify.Message
	if bus := s.bus.Load(); bus.Remote() {
		msgs, stop := bus.Subscribe(busTopic)
		defer stop()
		remote = msgs
	}
	t := time.NewTicker(flushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalFlushTimeout)
			defer cancel()
			return s.Flush(fctx)
		case m, ok := <-remote:
			if !ok {
				remote = nil // the bus closed; keep flushing
				continue
			}
			s.applyRemote(m)
			continue
		case <-t.C:
		case <-s.kick:
		}
		_ = s.Flush(ctx) // a failed flush keeps its keys dirty and retries
	}
}

func (s *Store) load(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT object_id, format, observed_at, worker_id
		FROM observations ORDER BY observed_at DESC LIMIT ?`, s.cap)
	if err != nil {
		return fmt.Errorf("observe: load: %w", err)
	}
	defer rows.Close()
	var loaded []*entry
	for rows.Next() {
		var id, format, worker string
		var at int64
		if err := rows.Scan(&id, &format, &at, &worker); err != nil {
			return fmt.Errorf("observe: load: %w", err)
		}
		loaded = append(loaded, storedEntry(id, catalog.Format(format), persist.FromMicros(at), worker))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("observe: load: %w", err)
	}
	// In front of whatever was put since New (newer), oldest at the front,
	// so the newest are evicted last.
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range loaded {
		k := key{e.meta.ObjectID, e.meta.Format}
		if _, held := s.entries[k]; held {
			continue // put since New: at least as new as the stored row
		}
		e.elem = s.order.PushFront(k)
		s.entries[k] = e
	}
	for s.order.Len() > s.cap {
		front := s.order.Front()
		k := front.Value.(key)
		s.order.Remove(front)
		delete(s.entries, k)
		s.dirty[k] = true // absent from entries: the flush deletes the row
	}
	return nil
}

// Put records an observation unless a newer one for the same object and
// format is already held; it reports whether it was stored.
func (s *Store) Put(o Observation) (bool, error) {
	if len(o.Attributes) > maxAttributesBytes {
		s.count(o.Format, outcomeRefused)
		return false, ErrTooLarge
	}
	if len(o.Attributes) == 0 {
		o.Attributes = json.RawMessage("{}")
	}
	if !json.Valid(o.Attributes) {
		s.count(o.Format, outcomeRefused)
		return false, fmt.Errorf("observe: attributes of %s are not valid JSON", o.ObjectID)
	}
	e := newEntry(o) // deflate outside the lock
	s.mu.Lock()
	stored := s.putLocked(e)
	n := len(s.dirty)
	s.mu.Unlock()
	if stored {
		s.count(o.Format, outcomeStored)
	} else {
		s.count(o.Format, outcomeStale)
	}
	if n >= flushBatch {
		s.wake()
	}
	return stored, nil
}

// PutBatch records many observations from one worker; invalid ones are
// skipped and counted.
func (s *Store) PutBatch(obs []Observation) (stored, skipped int) {
	for _, o := range obs {
		ok, err := s.Put(o)
		switch {
		case err != nil:
			skipped++
		case ok:
			stored++
		}
	}
	return stored, skipped
}

func (s *Store) putLocked(e *entry) bool {
	o := e.meta
	k := key{o.ObjectID, o.Format}
	if old, ok := s.entries[k]; ok {
		if o.ObservedAt.Before(old.meta.ObservedAt) {
			return false
		}
		s.order.Remove(old.elem)
	}
	e.elem = s.order.PushBack(k)
	s.entries[k] = e
	s.dirty[k] = true
	s.changes.Add(1)
	for s.order.Len() > s.cap {
		front := s.order.Front()
		ek := front.Value.(key)
		s.order.Remove(front)
		delete(s.entries, ek)
		s.dirty[ek] = true // absent from entries: the flush deletes the row
	}
	return true
}

// Get returns the last observation of an object in a format.
func (s *Store) Get(objectID string, format catalog.Format) (Observation, bool) {
	e, ok := s.lookup(key{objectID, format})
	if !ok {
		return Observation{}, false
	}
	o := e.meta
	o.Attributes, _ = s.raw(e) // an unread one is empty, as a worker that sent none
	return o, true
}

// Len is the number of observations held (before Load has finished, only
// those put since New).
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

// Flush writes pending changes now.
func (s *Store) Flush(ctx context.Context) error {
	s.mu.Lock()
	if len(s.dirty) == 0 {
		s.mu.Unlock()
		return nil
	}
	type write struct {
		k key
		e *entry // nil: delete; entries are immutable, so reading it unlocked is safe
	}
	writes := make([]write, 0, len(s.dirty))
	for k := range s.dirty {
		if e, ok := s.entries[k]; ok {
			writes = append(writes, write{k, e})
		} else {
			writes = append(writes, write{k, nil})
		}
	}
	clear(s.dirty)
	s.mu.Unlock()

	var seen map[key]figures // the points' figures, remembered once committed
	err := s.db.Write(ctx, func(tx *persist.Tx) error {
		seen = map[key]figures{}
		up, err := tx.PrepareContext(ctx, `INSERT INTO observations(object_id, format, observed_at, worker_id, attributes_json)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(object_id, format) DO UPDATE SET observed_at = excluded.observed_at,
				worker_id = excluded.worker_id, attributes_json = excluded.attributes_json
			WHERE excluded.observed_at >= observations.observed_at`)
		if err != nil {
			return err
		}
		defer up.Close()
		del, err := tx.PrepareContext(ctx, `DELETE FROM observations WHERE object_id = ? AND format = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		kept := make([]Observation, 0, len(writes))
		for _, w := range writes {
			if w.e == nil {
				_, err = del.ExecContext(ctx, w.k.objectID, string(w.k.format))
			} else {
				// Written entries come from Put or another replica, never
				// from Load, so their attributes are held: nothing here
				// reads the database beside tx.
				o := w.e.meta
				o.Attributes = unpack(w.e.packed)
				_, err = up.ExecContext(ctx, o.ObjectID, string(o.Format), persist.Micros(o.ObservedAt),
					o.WorkerID, string(o.Attributes))
				kept = append(kept, o)
			}
			if err != nil {
				return err
			}
		}
		if err := s.recordPoints(ctx, tx, kept, seen); err != nil {
			return err
		}
		return s.prunePoints(ctx, tx, time.Now())
	})
	if err != nil {
		// Put the keys back so the next flush retries them.
		s.mu.Lock()
		for _, w := range writes {
			s.dirty[w.k] = true
		}
		s.mu.Unlock()
		return fmt.Errorf("observe: flush: %w", err)
	}
	s.rememberFigures(seen)
	if s.bus.Load() != nil {
		keys := make([]key, len(writes))
		for i, w := range writes {
			keys[i] = w.k
		}
		s.announce(keys)
	}
	return nil
}

func (s *Store) wake() {
	select {
	case s.kick <- struct{}{}:
	default: // a flush is already wanted
	}
}

// Close writes what is pending; floe serve calls it after the plugin
// channel has stopped, so the last observations its workers sent are kept.
func (s *Store) Close() error {
	return s.Flush(context.Background())
}
