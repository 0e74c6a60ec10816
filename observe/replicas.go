package observe

// Observations across replicas: each replica keeps its observations in
// memory and flushes them to the shared database; Follow makes a flush
// announce the keys it wrote through the bus, and the other replicas re-read
// those rows into memory, so a table page on replica B shows what a worker
// connected to replica A observed (and preview asks that worker).

import (
	"context"
	"encoding/json"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
)

// busTopic is the topic of flushed observation keys.
const busTopic = "observe.flushed"

// announceKeys bounds the keys in one bus note: a key is a table id (36
// bytes) and a format, so 50 keep a note near 3 KB, well inside
// PostgreSQL's 8000-byte NOTIFY payload; a bigger flush sends several.
const announceKeys = 50

// remoteReadTimeout bounds re-reading one note's rows.
const remoteReadTimeout = 10 * time.Second

// flushNote names flushed rows as [object id, format] pairs.
type flushNote struct {
	Keys [][2]string `json:"k"`
}

// Follow joins the store to the other replicas on bus (PostgreSQL; with a
// SQLite bus it does nothing): flushes announce their keys, and Run keeps
// what other replicas flushed in memory. Call it before Run.
func (s *Store) Follow(bus *notify.Bus) {
	if !bus.Remote() {
		return
	}
	s.bus.Store(bus)
}

// announce tells the other replicas which keys a flush wrote.
func (s *Store) announce(keys []key) {
	bus := s.bus.Load()
	if bus == nil {
		return
	}
	for len(keys) > 0 {
		n := min(len(keys), announceKeys)
		note := flushNote{Keys: make([][2]string, n)}
		for i, k := range keys[:n] {
			note.Keys[i] = [2]string{k.objectID, string(k.format)}
		}
		_ = bus.Publish(busTopic, note) // a lost note leaves the older observation shown until the next
		keys = keys[n:]
	}
}

// applyRemote re-reads the rows a note names and keeps the newer ones in
// memory (not dirty: they are already in the database).
func (s *Store) applyRemote(m notify.Message) {
	if m.Resync {
		return // a missed note only delays a figure until the table's next observation
	}
	var note flushNote
	if json.Unmarshal(m.Data, &note) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteReadTimeout)
	defer cancel()
	for _, k := range note.Keys {
		var o Observation
		var at int64
		var attrs string
		err := s.db.QueryRowContext(ctx, `SELECT object_id, format, observed_at, worker_id, attributes_json
			FROM observations WHERE object_id = ? AND format = ?`, k[0], k[1]).Scan(&o.ObjectID, new(string), &at, &o.WorkerID, &attrs)
		if err != nil {
			continue // deleted since, or the database is away: the next note or restart catches up
		}
		o.Format = catalog.Format(k[1])
		o.ObservedAt = persist.FromMicros(at)
		o.Attributes = json.RawMessage(attrs)
		e := newEntry(o)
		s.mu.Lock()
		wasDirty := s.dirty[key{o.ObjectID, o.Format}]
		if s.putLocked(e) && !wasDirty {
			delete(s.dirty, key{o.ObjectID, o.Format}) // it came from the database
		}
		s.mu.Unlock()
	}
}
