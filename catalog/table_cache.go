package catalog

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floe/floe/persist/notify"
)

// Caps of the table-entry read cache.
const (
	// maxCachedTables bounds the entries: a Table is a few hundred bytes,
	// so the cache stays a few MB, and a console's working set of tables
	// being described fits.
	maxCachedTables = 10_000
	// maxCachedTableAge is a last line of defence: even if an invalidation
	// were somehow missed, no entry is served older than this.
	maxCachedTableAge = 30 * time.Second
)

// busTopicTables is the topic of the tables trigger's notification (see
// migrations/postgres/0012_tables_notify.sql).
const busTopicTables = "catalog.tables"

// tableCache remembers table entries by name so a describe on PostgreSQL
// costs no round trip. It is on only with a bus whose listener hears every
// change (CacheReads on PostgreSQL); on SQLite a read is already local and
// another process (the CLI) may write the file unheard, so it stays off.
//
// An entry is served only while nothing could have changed it since its
// read began: the epoch moves on every local commit (persist.OnCommit,
// before the writer's call returns) and on every other process's change
// (the tables trigger's NOTIFY, handled on the listener's goroutine), and
// the bus session must be the one the read began in (a reconnect may have
// missed notifications). So the bound on a stale read is the notification's
// delivery: once it has arrived on this replica, no read returns the old
// entry.
type tableCache struct {
	bus   *notify.Bus // nil: off
	epoch atomic.Uint64

	mu    sync.Mutex
	m     map[tableKey]cachedTable
	flags map[string]cachedFlag // bucket → managed versioning, stamped like m
}

// cachedFlag is a bucket's managed-versioning setting as read at an epoch.
type cachedFlag struct {
	on             bool
	epoch, session uint64
	at             time.Time
}

type tableKey struct{ bucket, namespace, name string }

type cachedTable struct {
	t       Table
	epoch   uint64
	session uint64
	at      time.Time
}

// CacheReads turns on the table-entry cache behind GetTable when bus
// carries other replicas' changes (PostgreSQL); with a SQLite bus or nil it
// does nothing. Call it once, before serving.
func (s *Store) CacheReads(bus *notify.Bus) {
	if !bus.Remote() {
		return
	}
	c := &s.tables
	c.bus = bus
	s.db.OnCommit(c.invalidate)
	bus.Handle(busTopicTables, func(notify.Message) { c.invalidate() })
}

func (c *tableCache) invalidate() { c.epoch.Add(1) }

// begin returns the stamp a read must carry to be cached; ok is false
// while the cache is off or the listener is not listening.
func (c *tableCache) begin() (epoch, session uint64, ok bool) {
	if c.bus == nil {
		return 0, 0, false
	}
	session = c.bus.Session()
	return c.epoch.Load(), session, session != 0
}

func (c *tableCache) get(k tableKey, now time.Time) (Table, bool) {
	epoch, session, ok := c.begin()
	if !ok {
		return Table{}, false
	}
	c.mu.Lock()
	e, hit := c.m[k]
	c.mu.Unlock()
	if !hit || e.epoch != epoch || e.session != session || now.Sub(e.at) > maxCachedTableAge {
		return Table{}, false
	}
	return e.t.clone(), true
}

// clone copies what a caller could change in place, so no caller edits the
// cached entry.
func (t Table) clone() Table {
	t.Namespace = slices.Clone(t.Namespace)
	t.Properties = maps.Clone(t.Properties)
	return t
}

// put stores t read under the stamp begin gave before the read; an entry
// whose epoch has already moved on is never served (get compares).
func (c *tableCache) put(k tableKey, t Table, epoch, session uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedTables {
		c.m = make(map[tableKey]cachedTable) // drop all: cheap, and rare
	}
	c.m[k] = cachedTable{t: t.clone(), epoch: epoch, session: session, at: now}
}

func (c *tableCache) getFlag(bucket string, now time.Time) (on, ok bool) {
	epoch, session, live := c.begin()
	if !live {
		return false, false
	}
	c.mu.Lock()
	e, hit := c.flags[bucket]
	c.mu.Unlock()
	if !hit || e.epoch != epoch || e.session != session || now.Sub(e.at) > maxCachedTableAge {
		return false, false
	}
	return e.on, true
}

func (c *tableCache) putFlag(bucket string, on bool, epoch, session uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flags == nil || len(c.flags) >= maxCachedTables {
		c.flags = make(map[string]cachedFlag)
	}
	c.flags[bucket] = cachedFlag{on: on, epoch: epoch, session: session, at: now}
}
