package health

import (
	"fmt"
	"strconv"
	"time"

	"github.com/floe/floe/observe"
)

// Lance judges a Lance table from its latest observation (the attributes
// the Lance worker publishes: workers/lance/lib/observe.mjs).
func Lance(a observe.Attributes, observedAt, now time.Time, th Thresholds) Report {
	if a.Fragments == nil && a.SmallFragments == nil && a.Versions == nil && len(a.Indices) == 0 {
		return unknown(observedAt, "unknown: the observation carries no fragment, version or index figures")
	}
	var rs []Reason
	if r, ok := lanceSmallFragments(a, th); ok {
		rs = append(rs, r)
	}
	if r, ok := lanceUnindexed(a, th); ok {
		rs = append(rs, r)
	}
	if r, ok := lanceVersions(a, now, th); ok {
		rs = append(rs, r)
	}
	return build(observedAt, rs)
}

// lanceSmallFragments: many small fragments make every scan open many
// files; compaction rewrites them into few. Due at the compact job's
// min_fragments, worth a look from half of it.
func lanceSmallFragments(a observe.Attributes, th Thresholds) (Reason, bool) {
	if a.SmallFragments == nil {
		return Reason{}, false
	}
	n := *a.SmallFragments
	r := Reason{Rule: "lance.small_fragments", What: "small fragments", Figure: n, Threshold: th.MinFragments,
		Unit: "fragments", Job: JobLanceCompact}
	switch {
	case n >= th.MinFragments:
		r.State = NeedsMaintenance
	case n >= max(2, (th.MinFragments+1)/2):
		r.State = Attention
	default:
		return Reason{}, false
	}
	return r, true
}

// lanceUnindexed: rows written after an index was built are outside it, and
// a vector search silently misses them. Any such row is worth a look; past
// the optimize job's max_unindexed_rows the job is due.
func lanceUnindexed(a observe.Attributes, th Thresholds) (Reason, bool) {
	var worst observe.Index
	for _, i := range a.Indices {
		if i.UnindexedRows > worst.UnindexedRows {
			worst = i
		}
	}
	if worst.UnindexedRows <= 0 {
		return Reason{}, false
	}
	r := Reason{Rule: "lance.unindexed_rows", What: "rows not covered by an index", Figure: worst.UnindexedRows,
		Threshold: th.MaxUnindexedRows, Unit: "rows", Job: JobLanceOptimize, State: Attention,
		Note: fmt.Sprintf("Index %s misses them, so a search on it silently leaves them out", worst.Name)}
	if worst.UnindexedRows > th.MaxUnindexedRows {
		r.State = NeedsMaintenance
	}
	return r, true
}

// lanceVersions: versions past retention keep their files on storage.
// Reclaimable are the ones cleanup would delete (older than retain_hours and
// not among the newest min_versions_to_keep; the latest always stays). Due
// when more than min_versions_to_keep are old, as detection proposes;
// worth a look as soon as any is reclaimable.
func lanceVersions(a observe.Attributes, now time.Time, th Thresholds) (Reason, bool) {
	n := int64(len(a.History))
	if a.Versions != nil {
		n = *a.Versions
	}
	old, known := oldVersions(a.History, n, now.Add(-th.Retain))
	if !known {
		return Reason{}, false
	}
	reclaimable := max(0, min(old, n-th.KeepVersions, n-1))
	if reclaimable == 0 {
		return Reason{}, false
	}
	hours := int64(th.Retain / time.Hour)
	r := Reason{Rule: "lance.reclaimable_versions", What: "reclaimable versions", Figure: reclaimable, Threshold: th.KeepVersions,
		Unit: "versions", Job: JobLanceCleanup, DeletesData: true, State: Attention,
		Params: map[string]string{"older_than": strconv.FormatInt(hours, 10) + "h", "retain_versions": strconv.FormatInt(th.KeepVersions, 10)},
		Note:   fmt.Sprintf("%d of %d versions are older than %d h; the newest %d are always kept", old, n, hours, th.KeepVersions)}
	if old > th.KeepVersions {
		r.State = NeedsMaintenance
	}
	return r, true
}

// oldVersions counts versions older than cutoff. The history carries only
// the newest versions (ascending); every version before it is older than
// its first entry, so they count as old when that entry is. known is false
// when there is no history to judge by.
func oldVersions(h []observe.HistoryEntry, total int64, cutoff time.Time) (old int64, known bool) {
	if len(h) == 0 {
		return 0, total <= 1
	}
	for _, e := range h {
		if !e.Timestamp.IsZero() && e.Timestamp.Before(cutoff) {
			old++
		}
	}
	if missing := total - int64(len(h)); missing > 0 && !h[0].Timestamp.IsZero() && h[0].Timestamp.Before(cutoff) {
		old += missing
	}
	return old, true
}
