package health

import (
	"encoding/json"
	"fmt"
	"time"
)

// IcebergFigures are the observation attributes the Iceberg worker
// publishes (workers/iceberg/observe.go Figures; the names are its JSON
// keys). Zero means the worker counted none, or that the detection which
// observed last did not count that figure (only orphan detection walks the
// location for orphans).
type IcebergFigures struct {
	Rows                 int64 `json:"rows"`
	DataFiles            int64 `json:"data_files"`
	DataBytes            int64 `json:"data_bytes"`
	SmallFiles           int64 `json:"small_files"`
	SmallBytes           int64 `json:"small_bytes"`
	DeleteFiles          int64 `json:"delete_files"`
	MaxSmallPerPartition int64 `json:"max_small_files_per_partition"`
	Snapshots            int64 `json:"snapshots"`
	ExpirableSnapshots   int64 `json:"expirable_snapshots"`
	Manifests            int64 `json:"manifests"`
	DataManifests        int64 `json:"data_manifests"`
	OrphanFiles          int64 `json:"orphan_candidates"`
	OrphanBytes          int64 `json:"orphan_candidate_bytes"`
	CurrentSnapshotID    int64 `json:"current_snapshot_id"`
	LanceAdapter         bool  `json:"lance_adapter"`
	// Unreadable is why the worker skipped the table; it counted nothing.
	Unreadable string `json:"unreadable"`
}

// ParseIceberg reads an Iceberg observation's attributes; unknown keys are
// ignored, and a malformed blob is an error (the report says unknown).
func ParseIceberg(attrs []byte) (IcebergFigures, error) {
	var f IcebergFigures
	err := json.Unmarshal(attrs, &f)
	return f, err
}

// Iceberg judges an Iceberg table from its latest observation.
func Iceberg(f IcebergFigures, observedAt time.Time, th Thresholds) Report {
	if f.Unreadable != "" {
		return unknown(observedAt, "unknown: the Iceberg worker cannot read this table, so it is not maintained ("+f.Unreadable+")")
	}
	if f.LanceAdapter {
		return unknown(observedAt, "not judged: a Lance dataset behind an Iceberg adapter is never maintained as Iceberg")
	}
	var rs []Reason
	for _, rule := range []func(IcebergFigures, Thresholds) (Reason, bool){icebergSmallFiles, icebergExpirable, icebergOrphans, icebergManifests} {
		if r, ok := rule(f, th); ok {
			rs = append(rs, r)
		}
	}
	return build(observedAt, rs)
}

// icebergSmallFiles: compaction works per partition, so it is due when one
// partition holds min_input_files small files; small files spread thinner
// are worth a look. Delete files make compaction refuse, so then no job is
// offered.
func icebergSmallFiles(f IcebergFigures, th Thresholds) (Reason, bool) {
	r := Reason{Rule: "iceberg.small_files", What: "small data files", Figure: f.SmallFiles, Threshold: th.MinSmallFiles,
		Unit: "files", Job: JobIcebergCompact,
		Note: fmt.Sprintf("%s in small files, up to %d in one partition", Bytes(f.SmallBytes), f.MaxSmallPerPartition)}
	switch {
	case f.MaxSmallPerPartition >= th.MinSmallFiles && f.DeleteFiles > 0:
		r.State, r.Job = Attention, ""
		r.Note += fmt.Sprintf("; compaction refuses tables with delete files (%d here)", f.DeleteFiles)
	case f.MaxSmallPerPartition >= th.MinSmallFiles:
		r.State = NeedsMaintenance
	case f.SmallFiles >= th.MinSmallFiles:
		r.State = Attention
	default:
		return Reason{}, false
	}
	return r, true
}

// icebergExpirable: snapshots past the expire job's retention keep their
// manifests and data files; expiring deletes them.
func icebergExpirable(f IcebergFigures, th Thresholds) (Reason, bool) {
	if f.ExpirableSnapshots <= 0 {
		return Reason{}, false
	}
	return Reason{Rule: "iceberg.expirable_snapshots", State: NeedsMaintenance, What: "snapshots past retention",
		Figure: f.ExpirableSnapshots, Threshold: 0, Unit: "snapshots", Job: JobIcebergExpire, DeletesData: true,
		Note: fmt.Sprintf("%d snapshots in all", f.Snapshots)}, true
}

// icebergOrphans: files under the location no metadata references, older
// than the orphan job's age; they only cost storage.
func icebergOrphans(f IcebergFigures, th Thresholds) (Reason, bool) {
	if f.OrphanFiles <= 0 || f.OrphanFiles < th.MinOrphans {
		return Reason{}, false
	}
	return Reason{Rule: "iceberg.orphan_files", State: NeedsMaintenance, What: "orphan files",
		Figure: f.OrphanFiles, Threshold: th.MinOrphans, Unit: "files", Job: JobIcebergOrphans, DeletesData: true,
		Note: Bytes(f.OrphanBytes) + " no snapshot references"}, true
}

// icebergManifests: every data manifest is one more file a scan plans
// from; the rewrite is due at min_manifests, worth a look from half.
func icebergManifests(f IcebergFigures, th Thresholds) (Reason, bool) {
	r := Reason{Rule: "iceberg.manifests", What: "data manifests", Figure: f.DataManifests, Threshold: th.MinManifests,
		Unit: "manifests", Job: JobIcebergManifests}
	switch {
	case f.DataManifests >= th.MinManifests:
		r.State = NeedsMaintenance
	case f.DataManifests >= max(2, (th.MinManifests+1)/2):
		r.State = Attention
	default:
		return Reason{}, false
	}
	return r, true
}
