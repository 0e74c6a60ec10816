package health

import (
	"strconv"
	"time"
)

// Job types whose settings hold the thresholds. The names are the workers'
// (workers/lance/lib/descriptors.mjs, workers/iceberg/jobtypes.go).
const (
	JobLanceCompact     = "lance_compact"
	JobLanceOptimize    = "lance_optimize_indices"
	JobLanceCleanup     = "lance_cleanup"
	JobIcebergExpire    = "iceberg_expire_snapshots"
	JobIcebergOrphans   = "iceberg_remove_orphans"
	JobIcebergCompact   = "iceberg_compact"
	JobIcebergManifests = "iceberg_rewrite_manifests"
)

// Defaults are the workers' own defaults, used until a worker has
// described its job types or when a setting is missing or unreadable, so
// health agrees with what detection would do out of the box.
const (
	// defaultMinFragments: lance_compact's min_fragments default.
	defaultMinFragments = 8
	// defaultMaxUnindexedRows: lance_optimize_indices' max_unindexed_rows.
	defaultMaxUnindexedRows = 10_000
	// defaultKeepVersions / defaultRetainHours: lance_cleanup's
	// min_versions_to_keep and retain_hours.
	defaultKeepVersions = 10
	defaultRetainHours  = 168
	// defaultMinSmallFiles: iceberg_compact's min_input_files (per partition).
	defaultMinSmallFiles = 5
	// defaultMinOrphans: iceberg_remove_orphans' min_orphans.
	defaultMinOrphans = 1
	// defaultMinManifests: iceberg_rewrite_manifests' min_manifests.
	defaultMinManifests = 10
)

// Thresholds are the figures each rule is held against. The zero value is
// not useful; start from DefaultThresholds or FromSettings.
type Thresholds struct {
	MinFragments     int64         // Lance: small fragments that make compaction due
	MaxUnindexedRows int64         // Lance: rows outside an index above which optimize is due
	KeepVersions     int64         // Lance: newest versions cleanup always keeps
	Retain           time.Duration // Lance: versions younger than this are kept
	MinSmallFiles    int64         // Iceberg: small files in one partition that make compaction due
	MinOrphans       int64         // Iceberg: old orphan files that make removal due
	MinManifests     int64         // Iceberg: data manifests that make a rewrite due
}

// DefaultThresholds are the workers' defaults.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MinFragments: defaultMinFragments, MaxUnindexedRows: defaultMaxUnindexedRows,
		KeepVersions: defaultKeepVersions, Retain: defaultRetainHours * time.Hour,
		MinSmallFiles: defaultMinSmallFiles, MinOrphans: defaultMinOrphans, MinManifests: defaultMinManifests,
	}
}

// SettingsFunc returns a job type's stored settings values (the plugin's
// Settings(jobType).Values); nil or a missing key means the default.
type SettingsFunc func(jobType string) map[string]string

// FromSettings reads the thresholds from the job types' settings, each
// falling back to its default when absent or not a whole number.
func FromSettings(get SettingsFunc) Thresholds {
	t := DefaultThresholds()
	if get == nil {
		return t
	}
	read := func(jobType, name string, into *int64) {
		v, ok := get(jobType)[name]
		if !ok {
			return
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			*into = n
		}
	}
	read(JobLanceCompact, "min_fragments", &t.MinFragments)
	read(JobLanceOptimize, "max_unindexed_rows", &t.MaxUnindexedRows)
	read(JobLanceCleanup, "min_versions_to_keep", &t.KeepVersions)
	hours := int64(defaultRetainHours)
	read(JobLanceCleanup, "retain_hours", &hours)
	t.Retain = time.Duration(hours) * time.Hour
	read(JobIcebergCompact, "min_input_files", &t.MinSmallFiles)
	read(JobIcebergOrphans, "min_orphans", &t.MinOrphans)
	read(JobIcebergManifests, "min_manifests", &t.MinManifests)
	return t
}
