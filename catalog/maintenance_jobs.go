package catalog

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/floe/floe/fault"
)

// MaintenanceKindOfJob says which maintenance kind governs a job type, by
// what the job does: compaction (lance_compact, iceberg_compact…), snapshot
// and old-version expiry (lance_cleanup, iceberg_expire_snapshots…) and
// unreferenced-file removal (iceberg_remove_orphans…). Index builds are
// governed by none and are always allowed.
func MaintenanceKindOfJob(jobType string) (MaintenanceKind, bool) {
	switch {
	case strings.Contains(jobType, "compact"):
		return MaintenanceCompaction, true
	case strings.Contains(jobType, "orphan"), strings.Contains(jobType, "unreferenced"):
		return MaintenanceUnreferenced, true
	case strings.Contains(jobType, "expire"), strings.Contains(jobType, "snapshot"), jobType == "lance_cleanup":
		return MaintenanceSnapshots, true
	}
	return "", false
}

// MaintenanceJob says how one job type of floe's workers takes a kind's
// settings: which parameter each setting sets, and which of the job type's
// own settings decides while no configuration sets it.
type MaintenanceJob struct {
	JobType  string
	Kind     MaintenanceKind
	Format   Format
	Settings []MaintenanceJobSetting
}

// MaintenanceJobSetting maps one configured setting onto a job type.
type MaintenanceJobSetting struct {
	Name       string // the setting's S3 Tables name, e.g. targetFileSizeMB
	Label      string // for people, with its unit
	Param      string // the job parameter it sets
	JobSetting string // the job type's setting that decides when it is unset
	// ParamHours: the parameter counts hours where the setting counts days
	// (24) or hours (1); 0 copies the number as is.
	ParamHours int
	// AgeText: the parameter is an age as the task API writes it ("120h").
	AgeText bool
}

// MaintenanceJobs are the job types each kind governs, per format, with the
// settings each honours. What is not listed (a compaction strategy: floe
// bin-packs; nonCurrentDays: floe deletes unreferenced files once) is kept
// for the S3 Tables API and not used.
var MaintenanceJobs = []MaintenanceJob{
	{JobType: "iceberg_compact", Kind: MaintenanceCompaction, Format: FormatIceberg, Settings: []MaintenanceJobSetting{
		{Name: "targetFileSizeMB", Label: "Target file size (MiB)", Param: "target_file_size_mb", JobSetting: "target_file_size_mb"}}},
	{JobType: "iceberg_expire_snapshots", Kind: MaintenanceSnapshots, Format: FormatIceberg, Settings: []MaintenanceJobSetting{
		{Name: "minSnapshotsToKeep", Label: "Snapshots always kept", Param: "retain_last", JobSetting: "retain_last"},
		{Name: "maxSnapshotAgeHours", Label: "Expire snapshots older than (hours)", Param: "max_snapshot_age_hours", JobSetting: "max_snapshot_age_hours"}}},
	{JobType: "iceberg_remove_orphans", Kind: MaintenanceUnreferenced, Format: FormatIceberg, Settings: []MaintenanceJobSetting{
		{Name: "unreferencedDays", Label: "Only files unreferenced for (days)", Param: "older_than_hours", JobSetting: "older_than_hours", ParamHours: 24}}},
	{JobType: "lance_compact", Kind: MaintenanceCompaction, Format: FormatLance},
	{JobType: "lance_cleanup", Kind: MaintenanceSnapshots, Format: FormatLance, Settings: []MaintenanceJobSetting{
		{Name: "minSnapshotsToKeep", Label: "Versions always kept", Param: "retain_versions", JobSetting: "min_versions_to_keep"},
		{Name: "maxSnapshotAgeHours", Label: "Clean up versions older than (hours)", Param: "older_than", JobSetting: "retain_hours", ParamHours: 1, AgeText: true}}},
}

// MaintenanceJobsOf lists the job types of a table format, in the order
// MaintenanceJobs has them.
func MaintenanceJobsOf(f Format) []MaintenanceJob {
	var out []MaintenanceJob
	for _, j := range MaintenanceJobs {
		if j.Format == f {
			out = append(out, j)
		}
	}
	return out
}

func maintenanceJob(jobType string) (MaintenanceJob, bool) {
	for _, j := range MaintenanceJobs {
		if j.JobType == jobType {
			return j, true
		}
	}
	return MaintenanceJob{}, false
}

// ParamValue is the job parameter a setting of value v becomes.
func (m MaintenanceJobSetting) ParamValue(v int) string {
	if m.ParamHours > 0 {
		v *= m.ParamHours
	}
	if m.AgeText {
		return strconv.Itoa(v) + "h"
	}
	return strconv.Itoa(v)
}

// settingParams maps a kind's settings onto parameter names other job
// types may carry. A parameter is only overridden when the proposal already
// carries it, so a worker never receives a parameter its job type does not
// declare.
func settingParams(kind MaintenanceKind, set MaintenanceSettings) map[string]string {
	itoa := strconv.Itoa
	out := map[string]string{}
	add := func(name string, params map[string]string) {
		if set.isSet(name) {
			for k, v := range params {
				out[k] = v
			}
		}
	}
	switch kind {
	case MaintenanceCompaction:
		add("targetFileSizeMB", map[string]string{
			"target_file_size_mb":    itoa(set.TargetFileSizeMB),
			"target_file_size_bytes": strconv.FormatInt(int64(set.TargetFileSizeMB)<<20, 10),
		})
	case MaintenanceSnapshots:
		add("minSnapshotsToKeep", map[string]string{"min_snapshots_to_keep": itoa(set.MinSnapshotsToKeep), "retain_last": itoa(set.MinSnapshotsToKeep)})
		add("maxSnapshotAgeHours", map[string]string{"max_snapshot_age_hours": itoa(set.MaxSnapshotAgeHours), "older_than_hours": itoa(set.MaxSnapshotAgeHours)})
	case MaintenanceUnreferenced:
		add("unreferencedDays", map[string]string{"unreferenced_days": itoa(set.UnreferencedDays), "older_than_days": itoa(set.UnreferencedDays)})
	}
	return out
}

// ReviewProposal is the maintenance configuration's say over a detected
// proposal for the table with id objectID: false when the governing kind is
// DISABLED for it (the proposal never becomes a job), otherwise the
// parameters with the configured settings applied. A proposal for an object
// that is not a catalog table, or a job type no kind governs, passes as is.
func (s *Store) ReviewProposal(ctx context.Context, jobType, objectID string, params map[string]string) (map[string]string, bool, error) {
	kind, ok := MaintenanceKindOfJob(jobType)
	if !ok {
		return params, true, nil
	}
	t, err := s.GetTableByID(ctx, objectID)
	if errors.Is(err, fault.NotFound) {
		return params, true, nil
	}
	if err != nil {
		return params, false, err
	}
	out, enabled, err := s.applyMaintenance(ctx, jobType, kind, t, params)
	if err != nil || !enabled {
		return params, false, err
	}
	return out, true, nil
}

// MaintenanceParams is params with table t's configured settings for
// jobType applied, as ReviewProposal applies them to a detected proposal,
// whether or not the kind is on for automatic maintenance: an operator's
// Fix is not automatic, but it keeps what the table says to keep (its
// versions and snapshots, its target size). A job type no kind governs
// passes as is.
func (s *Store) MaintenanceParams(ctx context.Context, jobType string, t Table, params map[string]string) (map[string]string, error) {
	kind, ok := MaintenanceKindOfJob(jobType)
	if !ok {
		return params, nil
	}
	out, _, err := s.applyMaintenance(ctx, jobType, kind, t, params)
	return out, err
}

// applyMaintenance resolves t's configuration of kind and applies its
// settings to a copy of params; enabled is the kind's switch.
func (s *Store) applyMaintenance(ctx context.Context, jobType string, kind MaintenanceKind, t Table, params map[string]string) (map[string]string, bool, error) {
	c, err := s.ResolveMaintenance(ctx, t, kind)
	if err != nil {
		return params, false, err
	}
	out := make(map[string]string, len(params))
	for k, v := range params {
		out[k] = v
	}
	// A setting no level sets leaves the job type's own value in place.
	for k, v := range settingParams(kind, c.Settings) {
		if _, has := out[k]; has {
			out[k] = v
		}
	}
	if job, ok := maintenanceJob(jobType); ok {
		for _, m := range job.Settings {
			if v := c.Settings.Int(m.Name); v != 0 {
				out[m.Param] = m.ParamValue(v)
			}
		}
	}
	return out, c.Enabled, nil
}
