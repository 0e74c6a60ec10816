package iceworker

import (
	"context"
	"maps"
	"sync"

	"github.com/apache/iceberg-go/table"
)

const (
	// memoMaxTables bounds the tables a worker remembers between sweeps;
	// past it a table is read afresh each sweep (correct, only slower).
	memoMaxTables = 20000
	// memoMaxPaths bounds the referenced paths kept for orphan estimates
	// across all tables (≈150 bytes each, so ≈30 MB): the worker's memory
	// must stay small beside a compaction. A table whose reach does not
	// fit is re-read each orphan sweep.
	memoMaxPaths = 200000
)

// sweepMemo is what detection sweeps remember per table between sweeps,
// keyed by table ID and valid for one metadata location: metadata files
// are immutable, so an unchanged location means nothing need be re-read.
// It serves only detection's estimates; every job reads the table afresh.
type sweepMemo struct {
	mu    sync.Mutex
	m     map[string]*memoEntry
	paths int
}

// memoEntry is immutable once stored: a sweep that learns more stores a
// new entry, so concurrent sweeps never see one half-written.
type memoEntry struct {
	metadataLocation string
	tbl              *table.Table
	// counts are the current snapshot's file figures, for counts.smallFile.
	counts    *fileCounts
	reach     *reach         // what every snapshot references; nil until an orphan sweep
	snapshots map[int64]bool // the snapshots reach covers
	orphans   *orphanEstimate
}

// orphanEstimate is the latest orphan sweep's count for a table.
type orphanEstimate struct{ files, bytes int64 }

func newSweepMemo() *sweepMemo { return &sweepMemo{m: map[string]*memoEntry{}} }

// get returns the entry for a table whose metadata is still at loc, or nil.
func (s *sweepMemo) get(id, loc string) *memoEntry {
	if s == nil || loc == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.m[id]; e != nil && e.metadataLocation == loc {
		return e
	}
	return nil
}

// previous returns the table's entry whatever its metadata location (an
// orphan estimate can extend an older reach), or nil.
func (s *sweepMemo) previous(id string) *memoEntry {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

// put stores e for a table, dropping its reach when the path cap is full.
func (s *sweepMemo) put(id string, e *memoEntry) {
	if s == nil || e.metadataLocation == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m[id]
	if old == nil && len(s.m) >= memoMaxTables {
		return
	}
	s.paths -= old.size()
	if e.reach != nil && s.paths+e.size() > memoMaxPaths {
		e = &memoEntry{metadataLocation: e.metadataLocation, tbl: e.tbl, counts: e.counts, orphans: e.orphans}
	}
	s.paths += e.size()
	s.m[id] = e
}

// keepOnly forgets tables no longer in the index (dropped or renamed).
func (s *sweepMemo) keepOnly(ids map[string]bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.m {
		if !ids[id] {
			s.paths -= e.size()
			delete(s.m, id)
		}
	}
}

// size is the paths an entry holds.
func (e *memoEntry) size() int {
	if e == nil || e.reach == nil {
		return 0
	}
	return len(e.reach.lists) + len(e.reach.manifests) + len(e.reach.files)
}

// extendReach returns what every snapshot of tbl references, reading only
// what prev has not: when every snapshot prev covered is still there
// (appends, replaces), only new snapshots' manifest lists and manifests
// not read before are read. When a snapshot went (expiry), references
// may have gone with it, so it reads everything again.
func extendReach(ctx context.Context, tbl *table.Table, prev *memoEntry) (*reach, map[int64]bool, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, nil, err
	}
	snaps := tbl.Metadata().Snapshots()
	ids := make(map[int64]bool, len(snaps))
	for _, s := range snaps {
		ids[s.SnapshotID] = true
	}
	r, mr := newReach(), newManifestReader(fs)
	reuse := prev != nil && prev.reach != nil && coversNoMore(prev.snapshots, ids)
	if reuse {
		r = &reach{lists: maps.Clone(prev.reach.lists), manifests: maps.Clone(prev.reach.manifests), files: maps.Clone(prev.reach.files)}
		maps.Copy(mr.seen, prev.reach.manifests)
	}
	for _, s := range snaps {
		if reuse && prev.snapshots[s.SnapshotID] {
			continue
		}
		if err := mr.addSnapshot(ctx, r, s); err != nil {
			return nil, nil, err
		}
	}
	return r, ids, nil
}

// coversNoMore says whether every snapshot in old is still in now.
func coversNoMore(old, now map[int64]bool) bool {
	for id := range old {
		if !now[id] {
			return false
		}
	}
	return true
}
