package health

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// Observations is the part of observe.Store health reads.
type Observations interface {
	ObservedAt(objectID string, f catalog.Format) (time.Time, bool)
	Stats(objectID string, f catalog.Format) (observe.Stats, bool)
	Get(objectID string, f catalog.Format) (observe.Observation, bool)
	Changes() uint64
}

// Tables is the part of catalog.Store the bucket summaries read.
type Tables interface {
	TableGeneration(ctx context.Context) (int64, error)
	BucketTableGenerations(ctx context.Context) (map[string]int64, error)
	TableKeys(ctx context.Context, bucket string, ns []string) ([]catalog.TableKey, error)
}

const (
	// cacheCap bounds the per-table cache; observe keeps at most this many
	// observations, so one entry each is enough. Past it the cache restarts.
	cacheCap = observe.DefaultCap
	// cacheTTL re-judges a cached table this often even when nothing new
	// was observed: version retention depends on the clock.
	cacheTTL = time.Minute
	// thresholdsTTL is how long thresholds read from the settings are
	// reused; a saved setting shows in health within it.
	thresholdsTTL = 2 * time.Second
	// summaryMinInterval is the least time between two recomputations of
	// the bucket summaries while observations stream in (a detection sweep
	// sends them in batches of 50): the buckets page may trail the newest
	// observation by this much, never a catalog change.
	summaryMinInterval = 2 * time.Second
)

// Overview is what the lists show of one table: its health and the figures
// its latest observation carries.
type Overview struct {
	Report
	Rows, Bytes       int64
	HasRows, HasBytes bool
	// Version is the Lance version or the Iceberg current snapshot id; ""
	// when not observed.
	Version string
	// LastChange is the newest of the catalog's modification time and the
	// observed latest version's time.
	LastChange time.Time
}

// Service judges tables and sums them per bucket. Safe for concurrent use.
type Service struct {
	obs      Observations
	tables   Tables
	settings SettingsFunc
	now      func() time.Time

	mu    sync.Mutex
	th    Thresholds
	thAt  time.Time
	cache map[cacheKey]cached
	sums  *bucketSums
	sumMu sync.Mutex // one recomputation at a time

	attention map[string]attentionEntry // by bucket + NUL + namespace
	listings  map[string]*listing       // by bucket + NUL + namespace (listing.go)
}

type cacheKey struct {
	id     string
	format catalog.Format
}

type cached struct {
	observedAt time.Time
	th         Thresholds
	at         time.Time
	ov         Overview
}

type summaryKey struct {
	gen     int64
	changes uint64
	th      Thresholds
}

// Config are a Service's dependencies; Tables may be nil (no bucket
// summaries), Settings nil (the workers' defaults), Now nil (wall clock).
type Config struct {
	Observations Observations
	Tables       Tables
	Settings     SettingsFunc
	Now          func() time.Time
}

// New builds the service.
func New(c Config) *Service {
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Service{obs: c.Observations, tables: c.Tables, settings: c.Settings, now: now, cache: map[cacheKey]cached{},
		attention: map[string]attentionEntry{}}
}

// Thresholds are the current thresholds (from the settings, reread every
// thresholdsTTL).
func (s *Service) Thresholds() Thresholds {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thAt.IsZero() || now.Sub(s.thAt) >= thresholdsTTL {
		s.th, s.thAt = FromSettings(s.settings), now
	}
	return s.th
}

// Table is one table's overview. modifiedAt is the catalog's modification
// time (for LastChange).
func (s *Service) Table(id string, f catalog.Format, modifiedAt time.Time) Overview {
	if s == nil || s.obs == nil {
		return Overview{Report: NotObserved(), LastChange: modifiedAt}
	}
	return s.table(id, f, modifiedAt, s.Thresholds(), s.now())
}

// table is Table with the thresholds and the clock read once by a caller
// that judges many tables.
func (s *Service) table(id string, f catalog.Format, modifiedAt time.Time, th Thresholds, now time.Time) Overview {
	if s.obs == nil {
		return Overview{Report: NotObserved(), LastChange: modifiedAt}
	}
	at, ok := s.obs.ObservedAt(id, f)
	if !ok {
		return Overview{Report: NotObserved(), LastChange: modifiedAt}
	}
	k := cacheKey{id, f}
	s.mu.Lock()
	c, hit := s.cache[k]
	s.mu.Unlock()
	if !hit || !c.observedAt.Equal(at) || c.th != th || now.Sub(c.at) >= cacheTTL {
		c = cached{observedAt: at, th: th, at: now, ov: s.judge(id, f, th, now)}
		s.mu.Lock()
		if len(s.cache) >= cacheCap {
			clear(s.cache)
		}
		s.cache[k] = c
		s.mu.Unlock()
	}
	ov := c.ov
	if modifiedAt.After(ov.LastChange) {
		ov.LastChange = modifiedAt
	}
	return ov
}

// judge reads and judges one observation (no cache).
func (s *Service) judge(id string, f catalog.Format, th Thresholds, now time.Time) Overview {
	switch f {
	case catalog.FormatLance:
		st, ok := s.obs.Stats(id, f)
		if !ok {
			return Overview{Report: NotObserved()}
		}
		ov := Overview{Report: Lance(st.Attributes, st.ObservedAt, now, th)}
		if st.Rows != nil {
			ov.Rows, ov.HasRows = *st.Rows, true
		}
		if st.Bytes != nil {
			ov.Bytes, ov.HasBytes = *st.Bytes, true
		}
		if st.Version != nil {
			ov.Version = strconv.FormatInt(*st.Version, 10)
		}
		if n := len(st.History); n > 0 {
			ov.LastChange = st.History[n-1].Timestamp
		}
		return ov
	case catalog.FormatIceberg:
		o, ok := s.obs.Get(id, f)
		if !ok {
			return Overview{Report: NotObserved()}
		}
		fig, err := ParseIceberg(o.Attributes)
		if err != nil {
			return Overview{Report: unknown(o.ObservedAt, "unknown: the observation could not be read")}
		}
		ov := Overview{Report: Iceberg(fig, o.ObservedAt, th), Rows: fig.Rows, HasRows: true, Bytes: fig.DataBytes, HasBytes: true}
		if fig.Unreadable != "" {
			ov.HasRows, ov.HasBytes = false, false // nothing was counted
		}
		if fig.CurrentSnapshotID != 0 {
			ov.Version = strconv.FormatInt(fig.CurrentSnapshotID, 10)
		}
		return ov
	}
	return Overview{Report: NotObserved()}
}

// BucketSummary sums a bucket's tables.
type BucketSummary struct {
	Tables           int
	Observed         int   // tables with an observation
	Rows, Bytes      int64 // over the observed tables
	Attention        int   // tables in attention
	NeedsMaintenance int   // tables needing maintenance
}

// NeedingAttention is the tables in attention or needing maintenance.
func (b BucketSummary) NeedingAttention() int { return b.Attention + b.NeedsMaintenance }

// Buckets sums every bucket's tables. The sums are kept per bucket with
// the bucket's table generation: a table change rereads only its bucket's
// tables, an observation or threshold change recomputes them all (and,
// while observations stream in, at most every summaryMinInterval), so the
// buckets page costs one read of the buckets' generations, not one read of
// every table in the catalog.
func (s *Service) Buckets(ctx context.Context) (map[string]BucketSummary, error) {
	if s == nil || s.tables == nil {
		return nil, nil
	}
	// Generations before the keys: a change landing in between leaves the
	// sums stale at once rather than wrongly fresh.
	gens, err := s.tables.BucketTableGenerations(ctx)
	if err != nil {
		return nil, err
	}
	var changes uint64
	if s.obs != nil {
		changes = s.obs.Changes()
	}
	th := s.Thresholds()
	if cur := s.currentSums(); cur.fresh(gens, changes, th, s.now()) {
		return cur.sum, nil
	}
	s.sumMu.Lock()
	defer s.sumMu.Unlock()
	cur := s.currentSums()
	now := s.now()
	if cur.fresh(gens, changes, th, now) { // another caller just did it
		return cur.sum, nil
	}
	next := &bucketSums{gens: gens, changes: changes, th: th, at: now, sum: map[string]BucketSummary{}}
	if cur == nil || cur.th != th || (cur.changes != changes && now.Sub(cur.at) >= summaryMinInterval) {
		// Bucket by bucket: what is held at once is the largest bucket's
		// keys, not the catalog's (at 1,000,000 tables one read of them
		// all peaked at 650 MB).
		for _, b := range slices.Sorted(maps.Keys(gens)) {
			keys, err := s.tables.TableKeys(ctx, b, nil)
			if err != nil {
				return nil, err
			}
			s.sumKeys(next.sum, keys, th, now)
		}
	} else {
		// Only some buckets' tables changed: reread those, keep the rest.
		// The observations' clock stays the last full pass's.
		next.changes, next.at = cur.changes, cur.at
		for b, g := range gens {
			if old, ok := cur.gens[b]; ok && old == g {
				if v, ok := cur.sum[b]; ok {
					next.sum[b] = v
				}
				continue
			}
			keys, err := s.tables.TableKeys(ctx, b, nil)
			if err != nil {
				return nil, err
			}
			s.sumKeys(next.sum, keys, th, now)
		}
	}
	s.mu.Lock()
	s.sums = next
	s.mu.Unlock()
	return next.sum, nil
}

// bucketSums are the buckets page's sums with what they were computed at.
// A value, once stored, is never changed: callers share its map.
type bucketSums struct {
	gens    map[string]int64 // bucket → table generation
	changes uint64           // observations' change count
	th      Thresholds
	at      time.Time // when observations were last taken in for every bucket
	sum     map[string]BucketSummary
}

// fresh reports whether the sums still hold: no bucket's tables changed,
// the thresholds are the same, and observations did not move or moved
// within summaryMinInterval of the last full pass.
func (b *bucketSums) fresh(gens map[string]int64, changes uint64, th Thresholds, now time.Time) bool {
	return b != nil && b.th == th && maps.Equal(b.gens, gens) &&
		(b.changes == changes || now.Sub(b.at) < summaryMinInterval)
}

func (s *Service) currentSums() *bucketSums {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sums
}

// sumKeys adds keys' tables to their buckets' sums.
func (s *Service) sumKeys(sum map[string]BucketSummary, keys []catalog.TableKey, th Thresholds, now time.Time) {
	for _, k := range keys {
		b := sum[k.Bucket]
		b.Tables++
		ov := s.table(k.ID, k.Format, k.ModifiedAt, th, now)
		if !ov.ObservedAt.IsZero() {
			b.Observed++
		}
		if ov.HasRows {
			b.Rows += ov.Rows
		}
		if ov.HasBytes {
			b.Bytes += ov.Bytes
		}
		switch ov.State {
		case Attention:
			b.Attention++
		case NeedsMaintenance:
			b.NeedsMaintenance++
		}
		sum[k.Bucket] = b
	}
}

// NeedingAttention returns, in name order, a namespace's tables in
// attention or needing maintenance whose name passes the name filter
// (catalog.NameFilterMatches; "" = any): the first limit after the name
// after, and how many match in all.
// The namespace's list of such tables is cached like the bucket sums (one
// catalog query and a judgement per table when something changed), so a
// page of the filter costs a scan of that list, not of the namespace.
func (s *Service) NeedingAttention(ctx context.Context, bucket string, ns []string, filter, after string, limit int) (page []catalog.TableKey, total int, err error) {
	if s == nil || s.tables == nil {
		return nil, 0, nil
	}
	all, err := s.attentionList(ctx, bucket, ns)
	if err != nil {
		return nil, 0, err
	}
	for _, k := range all {
		if !catalog.NameFilterMatches(k.Name, filter) {
			continue
		}
		total++
		if k.Name > after && len(page) < limit {
			page = append(page, k)
		}
	}
	return page, total, nil
}

// attentionCacheCap bounds the namespaces whose attention lists are kept;
// an operator looks at a few at a time. Past it the cache restarts.
const attentionCacheCap = 64

type attentionEntry struct {
	key  summaryKey
	at   time.Time
	keys []catalog.TableKey
}

// attentionList is the namespace's tables that need attention, cached.
func (s *Service) attentionList(ctx context.Context, bucket string, ns []string) ([]catalog.TableKey, error) {
	gens, err := s.tables.BucketTableGenerations(ctx) // only the bucket's changes make the list stale
	if err != nil {
		return nil, err
	}
	gen := gens[bucket]
	var changes uint64
	if s.obs != nil {
		changes = s.obs.Changes()
	}
	key := summaryKey{gen: gen, changes: changes, th: s.Thresholds()}
	id := bucket + "\x00" + catalog.JoinNamespace(ns)
	now := s.now()
	s.mu.Lock()
	e, ok := s.attention[id]
	s.mu.Unlock()
	if ok && (e.key == key || (e.key.gen == key.gen && e.key.th == key.th && now.Sub(e.at) < summaryMinInterval)) {
		return e.keys, nil
	}
	keys, err := s.tables.TableKeys(ctx, bucket, ns)
	if err != nil {
		return nil, err
	}
	var out []catalog.TableKey
	for _, k := range keys {
		if s.table(k.ID, k.Format, k.ModifiedAt, key.th, now).NeedsAttention() {
			out = append(out, k)
		}
	}
	s.mu.Lock()
	if len(s.attention) >= attentionCacheCap {
		clear(s.attention)
	}
	s.attention[id] = attentionEntry{key: key, at: now, keys: out}
	s.mu.Unlock()
	return out, nil
}
