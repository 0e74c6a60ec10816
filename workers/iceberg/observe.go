package iceworker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/iceberg-go/table"
)

// Figures are one table's observation attributes (JSON for the console
// and the health badges). The JSON names are a contract: readers (the
// Maintenance tab, table health) look them up by name, so add new ones
// and never rename these.
//
//	rows                           total-records of the current snapshot
//	data_files, data_bytes         live data files of the current snapshot
//	small_files, small_bytes       those under small_file_threshold_bytes
//	max_small_files_per_partition  compaction works per partition
//	delete_files                   position/equality delete files live now
//	snapshots                      snapshots in the metadata
//	oldest_snapshot_age_seconds    age of the oldest (oldest_snapshot_ms: its time)
//	expirable_snapshots            past the expiry job's retention settings
//	manifests, data_manifests      in the current snapshot's manifest list
//	orphan_candidates, orphan_candidate_bytes
//	                               unreferenced files older than the orphan
//	                               job's threshold: an estimate from the latest
//	                               orphan sweep (carried into other sweeps'
//	                               observations; 0 before any); the job recounts
//	lance_adapter                  a Lance dataset behind an Iceberg adapter:
//	                               nothing else is counted
//	unreadable                     why the worker skips the table (its metadata
//	                               or manifests cannot be read); nothing else is
//	                               counted, and the Maintenance tab shows it
type Figures struct {
	Rows           int64 `json:"rows"`
	DataFiles      int64 `json:"data_files"`
	DataBytes      int64 `json:"data_bytes"`
	SmallFiles     int64 `json:"small_files"`
	SmallBytes     int64 `json:"small_bytes"`
	SmallFileBytes int64 `json:"small_file_threshold_bytes"`
	DeleteFiles    int64 `json:"delete_files"`
	// MaxSmallPerPartition is the largest count of small files in one
	// partition: compaction works per partition.
	MaxSmallPerPartition int64  `json:"max_small_files_per_partition"`
	Snapshots            int    `json:"snapshots"`
	OldestSnapshotMs     int64  `json:"oldest_snapshot_ms,omitempty"`
	OldestAgeSeconds     int64  `json:"oldest_snapshot_age_seconds"`
	ExpirableSnapshots   int    `json:"expirable_snapshots"`
	Manifests            int    `json:"manifests"`
	DataManifests        int    `json:"data_manifests"`
	OrphanFiles          int64  `json:"orphan_candidates"`
	OrphanBytes          int64  `json:"orphan_candidate_bytes"`
	CurrentSnapshotID    int64  `json:"current_snapshot_id,omitempty"`
	FormatVersion        int    `json:"format_version"`
	Lance                bool   `json:"lance_adapter,omitempty"`
	Unreadable           string `json:"unreadable,omitempty"`
}

// thresholds are the job-type settings observation figures depend on.
type thresholds struct {
	smallFile      int64
	expireAge      time.Duration
	retainLast     int
	orphanAge      time.Duration
	scanForOrphans bool
}

// thresholdsFrom takes each figure's threshold from the detecting job
// type's settings when it has them, else the defaults.
func thresholdsFrom(jobType string, s Settings) thresholds {
	pick := func(jt, name string) float64 {
		if jt == jobType {
			return s[name]
		}
		for _, f := range jobTypes[jt].fields {
			if f.name == name {
				return f.def
			}
		}
		return 0
	}
	return thresholds{
		smallFile:  int64(pick(JobCompact, "target_file_size_mb")) * mib * 3 / 4,
		expireAge:  time.Duration(pick(JobExpire, "max_snapshot_age_hours")) * time.Hour,
		retainLast: int(pick(JobExpire, "retain_last")),
		orphanAge:  time.Duration(pick(JobOrphans, "older_than_hours")) * time.Hour,
		// Only orphan detection pays for the walk of the location.
		scanForOrphans: jobType == JobOrphans,
	}
}

// fileCounts are the current snapshot's file figures for one small-file
// threshold.
type fileCounts struct {
	smallFile                                            int64
	rows, dataFiles, dataBytes, smallFiles, smallBytes   int64
	deleteFiles, maxSmallPerPartition, currentSnapshotID int64
	manifests, dataManifests                             int
}

// countFiles reads the current snapshot's manifests; when seed is not nil
// it also records there what the current snapshot references, so an
// orphan estimate need not read the same manifests again.
func countFiles(ctx context.Context, tbl *table.Table, smallFile int64, seed *reach) (*fileCounts, error) {
	c := &fileCounts{smallFile: smallFile}
	cur := tbl.CurrentSnapshot()
	if cur == nil {
		return c, nil
	}
	c.currentSnapshotID = cur.SnapshotID
	if cur.Summary != nil {
		if n, err := strconv.ParseInt(cur.Summary.Properties["total-records"], 10, 64); err == nil {
			c.rows = n
		}
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	mans, err := cur.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("read the manifest list: %w", err)
	}
	c.manifests = len(mans)
	if seed != nil {
		seed.lists[Canonical(cur.ManifestList)] = true
	}
	perPartition := map[string]int64{}
	for _, mf := range mans {
		if mf.ManifestContent() == 0 {
			c.dataManifests++
		}
		if seed != nil {
			seed.manifests[Canonical(mf.FilePath())] = true
		}
		for e, err := range mf.Entries(fs, true) {
			if err != nil {
				return nil, fmt.Errorf("read manifest %s: %w", mf.FilePath(), err)
			}
			df := e.DataFile()
			if seed != nil {
				seed.files[Canonical(df.FilePath())] = true
			}
			if isDeleteContent(df.ContentType()) {
				c.deleteFiles++
				continue
			}
			c.dataFiles++
			c.dataBytes += df.FileSizeBytes()
			if df.FileSizeBytes() < smallFile {
				c.smallFiles++
				c.smallBytes += df.FileSizeBytes()
				k := fmt.Sprint(df.SpecID(), df.Partition())
				perPartition[k]++
				c.maxSmallPerPartition = max(c.maxSmallPerPartition, perPartition[k])
			}
		}
	}
	return c, nil
}

// observe reads a table's figures afresh.
func (j *Job) observe(ctx context.Context, tbl *table.Table, th thresholds) (Figures, error) {
	return j.observeMemo(ctx, tbl, th, nil)
}

// observeMemo reads a table's figures: the metadata for snapshots, the
// current snapshot's manifests for files, and (for orphan detection) a
// listing of the location against what every snapshot references. What
// memo remembers for the same metadata location is not read again, and an
// orphan estimate reads only the snapshots added since the last sweep.
// The orphan figures are an estimate for detection: the job itself reads
// everything again before it deletes anything.
func (j *Job) observeMemo(ctx context.Context, tbl *table.Table, th thresholds, memo *sweepMemo) (Figures, error) {
	md := tbl.Metadata()
	f := Figures{Snapshots: len(md.Snapshots()), FormatVersion: md.Version(), SmallFileBytes: th.smallFile}
	if isLance(tbl.Properties()) || isLance(j.Ref.Properties) {
		f.Lance = true
		return f, nil // nothing of it is Iceberg's to count or to touch
	}
	now := j.now()
	for _, s := range md.Snapshots() {
		if f.OldestSnapshotMs == 0 || s.TimestampMs < f.OldestSnapshotMs {
			f.OldestSnapshotMs = s.TimestampMs
		}
	}
	if f.OldestSnapshotMs > 0 {
		f.OldestAgeSeconds = max(0, now.UnixMilli()-f.OldestSnapshotMs) / 1000
	}
	f.ExpirableSnapshots = len(planExpiry(md, now, th.expireAge, th.retainLast).drop)

	loc := tbl.MetadataLocation()
	e := &memoEntry{metadataLocation: loc, tbl: tbl}
	if hit := memo.get(j.Ref.ID, loc); hit != nil {
		*e = *hit
	}
	var seed *reach // the current snapshot's references, when counting reads them anyway
	if e.counts == nil || e.counts.smallFile != th.smallFile {
		if th.scanForOrphans && e.reach == nil && tbl.CurrentSnapshot() != nil {
			seed = newReach()
		}
		c, err := countFiles(ctx, tbl, th.smallFile, seed)
		if err != nil {
			return f, err
		}
		e.counts = c
	}
	c := e.counts
	f.Rows, f.DataFiles, f.DataBytes, f.SmallFiles, f.SmallBytes = c.rows, c.dataFiles, c.dataBytes, c.smallFiles, c.smallBytes
	f.DeleteFiles, f.MaxSmallPerPartition, f.CurrentSnapshotID = c.deleteFiles, c.maxSmallPerPartition, c.currentSnapshotID
	f.Manifests, f.DataManifests = c.manifests, c.dataManifests
	if th.scanForOrphans {
		if e.reach == nil {
			prev := memo.previous(j.Ref.ID)
			if (prev == nil || prev.reach == nil) && seed != nil {
				prev = &memoEntry{reach: seed, snapshots: map[int64]bool{tbl.CurrentSnapshot().SnapshotID: true}}
			}
			r, ids, err := extendReach(ctx, tbl, prev)
			if err != nil {
				return f, err
			}
			e.reach, e.snapshots = r, ids
		}
		if err := j.findNested(ctx, tbl); err != nil {
			return f, err
		}
		sc, err := j.listUnreferenced(ctx, tbl, e.reach, th.orphanAge)
		if err != nil {
			return f, err
		}
		e.orphans = &orphanEstimate{files: int64(len(sc.old)), bytes: sc.oldBytes}
	} else if e.orphans == nil {
		// Other sweeps do not list the location; they carry the last orphan
		// sweep's estimate so the table's observation does not fall to 0.
		if prev := memo.previous(j.Ref.ID); prev != nil {
			e.orphans = prev.orphans
		}
	}
	if e.orphans != nil {
		f.OrphanFiles, f.OrphanBytes = e.orphans.files, e.orphans.bytes
	}
	memo.put(j.Ref.ID, e)
	return f, nil
}

// verdict is detection's decision for one table and job type.
type verdict struct {
	propose bool
	summary string
}

// decide applies a job type's thresholds to a table's figures.
func decide(jobType string, s Settings, f Figures) verdict {
	if f.Lance {
		return verdict{summary: "Lance dataset behind an Iceberg adapter: never maintained as Iceberg"}
	}
	switch jobType {
	case JobExpire:
		if f.ExpirableSnapshots > 0 {
			return verdict{true, fmt.Sprintf("%d of %d snapshots are past retention", f.ExpirableSnapshots, f.Snapshots)}
		}
		return verdict{summary: fmt.Sprintf("%d snapshots, none past retention", f.Snapshots)}
	case JobOrphans:
		if f.OrphanFiles >= s.Int("min_orphans") {
			return verdict{true, fmt.Sprintf("%d orphan files (%d bytes) older than %d h", f.OrphanFiles, f.OrphanBytes, s.Int("older_than_hours"))}
		}
		return verdict{summary: fmt.Sprintf("%d old orphan files", f.OrphanFiles)}
	case JobCompact:
		if f.MaxSmallPerPartition >= s.Int("min_input_files") {
			return verdict{true, fmt.Sprintf("%d small data files (%d bytes); up to %d in one partition", f.SmallFiles, f.SmallBytes, f.MaxSmallPerPartition)}
		}
		return verdict{summary: fmt.Sprintf("%d small data files, at most %d per partition", f.SmallFiles, f.MaxSmallPerPartition)}
	case JobManifests:
		if int64(f.DataManifests) >= s.Int("min_manifests") {
			return verdict{true, fmt.Sprintf("%d data manifests in the current snapshot", f.DataManifests)}
		}
		return verdict{summary: fmt.Sprintf("%d data manifests", f.DataManifests)}
	}
	return verdict{summary: "unknown job type"}
}
