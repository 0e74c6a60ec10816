package catalog

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floe/floe/persist"
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
	// declaredRecheck is how long a declared Lance table's "no data yet"
	// is believed: its data arrives on storage, which no database change
	// announces, so a cached declared entry is served, and a listing row
	// skips its storage check, only this long after the last check. Any
	// database change drops the entry sooner, like every other entry (the
	// Lance REST records declared → created as soon as it sees data).
	declaredRecheck = 2 * time.Second
)

// busTopicTables is the topic of the tables trigger's notification (see
// migrations/postgres/0012_tables_notify.sql).
const busTopicTables = "catalog.tables"

// tableCache remembers table entries by name so a describe costs no query.
// An entry is served only while nothing could have changed it since its
// read began, and what "nothing changed" means depends on the database:
//
//   - PostgreSQL (CacheReads with a bus that hears other replicas): the
//     epoch moves on every local commit (persist.OnCommit, before the
//     writer's call returns) and on every other process's change (the
//     tables trigger's NOTIFY, handled on the listener's goroutine), and
//     the bus session must be the one the read began in (a reconnect may
//     have missed notifications). So the bound on a stale read is the
//     notification's delivery: once it has arrived on this replica, no read
//     returns the old entry.
//   - SQLite (CacheReads with the local bus): the database's change stamp
//     (persist.ChangeStamp, SQLite's WAL-index header) must be the one
//     taken before the read. Any commit by any process on the file — the
//     CLI beside floe serve included — changes it, so a read after that
//     commit never returns the old entry; the epoch moves on local commits
//     too.
//
// Either way a write to the database moves the stamp, and most writes
// change no table entry (observations, console sessions, maintenance jobs,
// a bucket's tags): an entry whose stamp has moved is served once the
// table generation (table_generation, bumped by every change to a table
// row, from any process) is found where it was when the entry was read,
// and is stamped anew. That costs one query per stamp, shared by every
// entry, instead of one per entry.
type tableCache struct {
	bus   *notify.Bus                          // PostgreSQL: invalidated by notifications
	stamp func() (persist.ChangeStamp, bool)   // SQLite: validated by the change stamp
	gen   func(context.Context) (int64, error) // reads the table generation
	epoch atomic.Uint64

	mu    sync.Mutex
	m     map[tableKey]cachedTable
	flags map[string]cachedFlag // bucket → managed versioning, stamped like m
	// buckets are live bucket rows by name (GetBucket: every Iceberg
	// request resolves its bucket), stamped like m; a bucket's row changes
	// with its tables, and on PostgreSQL notifies (migration 0032).
	buckets map[string]cachedBucket
	// checked is when a declared table (by id) was last found without
	// data on storage; see declaredRecheck.
	checked map[string]time.Time
	// conf is the table generation last read and the stamp taken before
	// the read: while the stamp holds, so does the generation.
	conf confirmedGen
}

// confirmedGen is a table generation read under a stamp.
type confirmedGen struct {
	st  cacheStamp
	gen int64
	ok  bool
}

// cachedFlag is a bucket's managed-versioning setting as read at an epoch.
type cachedFlag struct {
	on bool
	st cacheStamp
	at time.Time
}

type tableKey struct{ bucket, namespace, name string }

type cachedTable struct {
	t   Table
	st  cacheStamp // taken before gen was read
	gen int64      // the table generation before the row was read
	at  time.Time  // when the row was read
}

// cachedBucket is a bucket row as read under a stamp.
type cachedBucket struct {
	b  Bucket
	st cacheStamp
	at time.Time
}

// cacheStamp is what a read must carry to be cached and an entry must
// still match to be served.
type cacheStamp struct {
	epoch, session uint64
	change         persist.ChangeStamp
}

// CacheReads turns on the table-entry cache behind GetTable: with a bus
// that carries other replicas' changes (PostgreSQL), or on SQLite, whose
// change stamp every process's commit moves. Call it once, before serving.
func (s *Store) CacheReads(bus *notify.Bus) {
	c := &s.tables
	c.gen = s.tableGeneration
	switch {
	case bus.Remote():
		c.bus = bus
		bus.Handle(busTopicTables, func(notify.Message) { c.invalidate() })
	case s.db.Dialect().Name == "sqlite":
		if _, ok := s.db.ChangeStamp(); !ok {
			return // not in WAL mode: nothing says when another process wrote
		}
		c.stamp = s.db.ChangeStamp
	default:
		return
	}
	s.db.OnCommit(c.invalidate)
}

func (c *tableCache) invalidate() { c.epoch.Add(1) }

// begin returns the stamp a read must carry to be cached; ok is false
// while the cache is off, the listener is not listening or SQLite's header
// is being rewritten.
func (c *tableCache) begin() (cacheStamp, bool) {
	switch {
	case c.bus != nil:
		session := c.bus.Session()
		return cacheStamp{epoch: c.epoch.Load(), session: session}, session != 0
	case c.stamp != nil:
		epoch := c.epoch.Load()
		change, ok := c.stamp()
		return cacheStamp{epoch: epoch, change: change}, ok
	}
	return cacheStamp{}, false
}

// get returns the entry of k if it is still true: read under the current
// stamp, or under an older one with the table generation unchanged since
// (one query per stamp, see generation), in which case the entry is
// stamped anew so the next get reads nothing.
func (c *tableCache) get(ctx context.Context, k tableKey, now time.Time) (Table, bool) {
	st, ok := c.begin()
	if !ok {
		return Table{}, false
	}
	c.mu.Lock()
	e, hit := c.m[k]
	c.mu.Unlock()
	if !hit || now.Sub(e.at) > maxCachedTableAge {
		return Table{}, false
	}
	if e.t.declared() && now.Sub(e.at) > declaredRecheck {
		return Table{}, false // storage may have data by now
	}
	if e.st != st {
		gen, ok := c.generation(ctx, st)
		if !ok || gen != e.gen {
			return Table{}, false
		}
		c.mu.Lock()
		if cur, ok := c.m[k]; ok && cur.gen == e.gen && cur.at == e.at {
			cur.st = st
			c.m[k] = cur
		}
		c.mu.Unlock()
	}
	return e.t.clone(), true
}

// generation returns the table generation as of st (a stamp begin gave):
// the one confirmed under st, or read now. ok is false when it cannot be
// read; nothing is then served or cached.
func (c *tableCache) generation(ctx context.Context, st cacheStamp) (gen int64, ok bool) {
	c.mu.Lock()
	conf := c.conf
	c.mu.Unlock()
	if conf.ok && conf.st == st {
		return conf.gen, true
	}
	gen, err := c.gen(ctx)
	if err != nil {
		return 0, false
	}
	c.mu.Lock()
	c.conf = confirmedGen{st: st, gen: gen, ok: true}
	c.mu.Unlock()
	return gen, true
}

// clone copies what a caller could change in place, so no caller edits the
// cached entry.
func (t Table) clone() Table {
	t.Namespace = slices.Clone(t.Namespace)
	t.Properties = maps.Clone(t.Properties)
	return t
}

// put stores t read under the stamp begin gave and the generation as of
// that stamp, both taken before the read; an entry whose stamp has moved
// on is served only while the generation has not (get compares).
func (c *tableCache) put(k tableKey, t Table, st cacheStamp, gen int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedTables {
		c.m = make(map[tableKey]cachedTable) // drop all: cheap, and rare
	}
	c.m[k] = cachedTable{t: t.clone(), st: st, gen: gen, at: now}
}

func (c *tableCache) getFlag(bucket string, now time.Time) (on, ok bool) {
	st, live := c.begin()
	if !live {
		return false, false
	}
	c.mu.Lock()
	e, hit := c.flags[bucket]
	c.mu.Unlock()
	if !hit || e.st != st || now.Sub(e.at) > maxCachedTableAge {
		return false, false
	}
	return e.on, true
}

func (c *tableCache) putFlag(bucket string, on bool, st cacheStamp, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flags == nil || len(c.flags) >= maxCachedTables {
		c.flags = make(map[string]cachedFlag)
	}
	c.flags[bucket] = cachedFlag{on: on, st: st, at: now}
}

func (c *tableCache) getBucket(name string, now time.Time) (Bucket, bool) {
	st, live := c.begin()
	if !live {
		return Bucket{}, false
	}
	c.mu.Lock()
	e, hit := c.buckets[name]
	c.mu.Unlock()
	if !hit || e.st != st || now.Sub(e.at) > maxCachedTableAge {
		return Bucket{}, false
	}
	b := e.b
	b.Tags = maps.Clone(b.Tags)
	return b, true
}

func (c *tableCache) putBucket(b Bucket, st cacheStamp, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buckets == nil || len(c.buckets) >= maxCachedTables {
		c.buckets = make(map[string]cachedBucket)
	}
	b.Tags = maps.Clone(b.Tags)
	c.buckets[b.Name] = cachedBucket{b: b, st: st, at: now}
}

func (t Table) declared() bool { return t.Format == FormatLance && t.State == StateDeclared }

// on reports whether the cache is turned on (CacheReads).
func (c *tableCache) on() bool { return c.bus != nil || c.stamp != nil }

// checkedRecently reports whether the declared table id was found without
// data less than declaredRecheck ago.
func (c *tableCache) checkedRecently(id string, now time.Time) bool {
	c.mu.Lock()
	at, ok := c.checked[id]
	c.mu.Unlock()
	return ok && now.Sub(at) >= 0 && now.Sub(at) < declaredRecheck
}

func (c *tableCache) markChecked(id string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked == nil || len(c.checked) >= maxCachedTables {
		c.checked = make(map[string]time.Time)
	}
	c.checked[id] = now
}
