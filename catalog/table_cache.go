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
// change no table entry and no bucket (observations, console sessions,
// maintenance jobs): an entry whose stamp has moved is served once its
// generations are found where they were when the entry was read — the
// table generation for a table entry (table_generation, bumped by every
// change to a table row, from any process), and for a bucket row or flag
// that and the bucket generation (bucket_generation, bumped by every
// other change to a bucket row: a table change rewrites its bucket's
// counters) — and is stamped anew. That costs one query per stamp, reading
// both, shared by every entry, instead of one per entry.
type tableCache struct {
	bus   *notify.Bus                         // PostgreSQL: invalidated by notifications
	stamp func() (persist.ChangeStamp, bool)  // SQLite: validated by the change stamp
	gens  func(context.Context) (gens, error) // reads both generations
	epoch atomic.Uint64

	mu    sync.Mutex
	m     map[tableKey]*cachedTable
	flags map[string]cachedFlag // bucket → managed versioning, stamped like m
	// buckets are live bucket rows by name (GetBucket: every Iceberg
	// request resolves its bucket), stamped like m; a bucket's row changes
	// with its tables, and on PostgreSQL notifies (migration 0032).
	buckets map[string]cachedBucket
	// checked is when a declared table (by id) was last found without
	// data on storage; see declaredRecheck.
	checked map[string]time.Time
	// conf is the generations last read and the stamp taken before the
	// read: while the stamp holds, so do they.
	conf confirmedGens
}

// gens are the table and the bucket generation.
type gens struct{ tables, buckets int64 }

// confirmedGens are generations read under a stamp.
type confirmedGens struct {
	st cacheStamp
	g  gens
	ok bool
}

// mark is what a cached entry was read under: the stamp and the
// generations as of it, both taken before the read, and when.
type mark struct {
	st cacheStamp
	g  gens
	at time.Time
}

// cachedFlag is a bucket's managed-versioning setting.
type cachedFlag struct {
	on bool
	mark
}

type tableKey struct{ bucket, namespace, name string }

// cachedTable is a table entry; once in the map only used changes (a
// restamp replaces the entry).
type cachedTable struct {
	t Table
	mark
	used atomic.Bool // served since the last eviction (see evict)
}

// cachedBucket is a bucket row.
type cachedBucket struct {
	b Bucket
	mark
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
	c.gens = s.generations
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

// get returns the entry of k if it still holds (see holds); a table entry
// depends on the table generation only.
func (c *tableCache) get(ctx context.Context, k tableKey, now time.Time) (Table, bool) {
	c.mu.Lock()
	e := c.m[k]
	c.mu.Unlock()
	if e == nil || e.t.declared() && now.Sub(e.at) > declaredRecheck {
		return Table{}, false // declared: storage may have data by now
	}
	st, ok := c.holds(ctx, e.mark, now, false)
	if !ok {
		return Table{}, false
	}
	if !e.used.Load() { // read first: a hot entry's line stays shared between cores
		e.used.Store(true)
	}
	if st != e.st {
		c.mu.Lock()
		if c.m[k] == e {
			n := &cachedTable{t: e.t, mark: e.mark}
			n.st = st
			n.used.Store(true)
			c.m[k] = n
		}
		c.mu.Unlock()
	}
	return e.t.clone(), true
}

// holds reports whether an entry read under was still holds, and the
// stamp it holds under now: read under the current stamp, or under an
// older one with the generations it depends on unchanged since (one query
// per stamp, see generations), when the caller stamps it anew (restamp)
// so the next lookup reads nothing. A table entry depends on the table
// generation; what comes from a bucket row (bucketRow) on both, since a
// table change rewrites its bucket's counters and on PostgreSQL moves
// only the table generation.
func (c *tableCache) holds(ctx context.Context, was mark, now time.Time, bucketRow bool) (cacheStamp, bool) {
	if now.Sub(was.at) > maxCachedTableAge {
		return cacheStamp{}, false
	}
	st, ok := c.begin()
	if !ok || st == was.st {
		return st, ok
	}
	g, ok := c.generations(ctx, st)
	return st, ok && g.tables == was.g.tables && (!bucketRow || g.buckets == was.g.buckets)
}

// restamp moves the entry of k in one of the cache's maps (*m, guarded
// by c.mu: a full map is replaced) to the stamp st, unless it was
// replaced since it was found under was.
func restamp[K comparable, V any](c *tableCache, m *map[K]V, k K, was mark, st cacheStamp, mk func(*V) *mark) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := (*m)[k]; ok && *mk(&cur) == was {
		mk(&cur).st = st
		(*m)[k] = cur
	}
}

// generations returns the generations as of st (a stamp begin gave): the
// ones confirmed under st, or read now. ok is false when they cannot be
// read; nothing is then served or cached.
func (c *tableCache) generations(ctx context.Context, st cacheStamp) (g gens, ok bool) {
	c.mu.Lock()
	conf := c.conf
	c.mu.Unlock()
	if conf.ok && conf.st == st {
		return conf.g, true
	}
	g, err := c.gens(ctx)
	if err != nil {
		return gens{}, false
	}
	c.mu.Lock()
	c.conf = confirmedGens{st: st, g: g, ok: true}
	c.mu.Unlock()
	return g, true
}

// stamped is begin followed by generations: what a read must carry to be
// cached, taken before the read.
func (c *tableCache) stamped(ctx context.Context) (cacheStamp, gens, bool) {
	st, ok := c.begin()
	if !ok {
		return st, gens{}, false
	}
	g, ok := c.generations(ctx, st)
	return st, g, ok
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
func (c *tableCache) put(k tableKey, t Table, st cacheStamp, g gens, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[tableKey]*cachedTable)
	}
	if len(c.m) >= maxCachedTables {
		c.evict()
	}
	c.m[k] = &cachedTable{t: t.clone(), mark: mark{st: st, g: g, at: now}}
}

// evict makes room in a full cache (c.mu held): the entries served since
// the last eviction stay, their mark cleared, and the rest go, so a pass
// over more tables than the cache holds (a crawler describing every
// table, a sweep) costs the entries it read once, not the hot set. When
// more than three quarters were served, entries go at random until half
// remain.
func (c *tableCache) evict() {
	for k, e := range c.m {
		if !e.used.Swap(false) {
			delete(c.m, k)
		}
	}
	if len(c.m) > maxCachedTables*3/4 {
		for k := range c.m {
			if len(c.m) <= maxCachedTables/2 {
				break
			}
			delete(c.m, k)
		}
	}
}

// getFlag returns bucket's managed-versioning setting if it still holds;
// it depends on the bucket row, so on both generations.
func (c *tableCache) getFlag(ctx context.Context, bucket string, now time.Time) (on, ok bool) {
	c.mu.Lock()
	e, hit := c.flags[bucket]
	c.mu.Unlock()
	if !hit {
		return false, false
	}
	st, ok := c.holds(ctx, e.mark, now, true)
	if ok && st != e.st {
		restamp(c, &c.flags, bucket, e.mark, st, func(e *cachedFlag) *mark { return &e.mark })
	}
	return e.on, ok
}

func (c *tableCache) putFlag(bucket string, on bool, st cacheStamp, g gens, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flags == nil || len(c.flags) >= maxCachedTables {
		c.flags = make(map[string]cachedFlag)
	}
	c.flags[bucket] = cachedFlag{on: on, mark: mark{st: st, g: g, at: now}}
}

// getBucket returns the live bucket row of name if it still holds.
func (c *tableCache) getBucket(ctx context.Context, name string, now time.Time) (Bucket, bool) {
	c.mu.Lock()
	e, hit := c.buckets[name]
	c.mu.Unlock()
	if !hit {
		return Bucket{}, false
	}
	st, ok := c.holds(ctx, e.mark, now, true)
	if !ok {
		return Bucket{}, false
	}
	if st != e.st {
		restamp(c, &c.buckets, name, e.mark, st, func(e *cachedBucket) *mark { return &e.mark })
	}
	b := e.b
	b.Tags = maps.Clone(b.Tags)
	return b, true
}

func (c *tableCache) putBucket(b Bucket, st cacheStamp, g gens, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buckets == nil || len(c.buckets) >= maxCachedTables {
		c.buckets = make(map[string]cachedBucket)
	}
	b.Tags = maps.Clone(b.Tags)
	c.buckets[b.Name] = cachedBucket{b: b, mark: mark{st: st, g: g, at: now}}
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
