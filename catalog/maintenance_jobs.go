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

// settingParams maps a kind's settings onto job parameter names the workers
// know. A parameter is only overridden when the proposal already carries it,
// so a worker never receives a parameter its job type does not declare.
func settingParams(kind MaintenanceKind, set MaintenanceSettings) map[string]string {
	itoa := strconv.Itoa
	switch kind {
	case MaintenanceCompaction:
		return map[string]string{
			"target_file_size_mb":    itoa(set.TargetFileSizeMB),
			"target_file_size_bytes": strconv.FormatInt(int64(set.TargetFileSizeMB)<<20, 10),
		}
	case MaintenanceSnapshots:
		return map[string]string{
			"min_snapshots_to_keep":  itoa(set.MinSnapshotsToKeep),
			"retain_last":            itoa(set.MinSnapshotsToKeep),
			"max_snapshot_age_hours": itoa(set.MaxSnapshotAgeHours),
			"older_than_hours":       itoa(set.MaxSnapshotAgeHours),
		}
	case MaintenanceUnreferenced:
		return map[string]string{
			"unreferenced_days": itoa(set.UnreferencedDays),
			"older_than_days":   itoa(set.UnreferencedDays),
		}
	}
	return nil
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
	c, err := s.EffectiveMaintenance(ctx, t, kind)
	if err != nil {
		return params, false, err
	}
	if !c.Enabled {
		return params, false, nil
	}
	if !c.Stored {
		return params, true, nil // defaults: the job type's own settings decide
	}
	out := make(map[string]string, len(params))
	for k, v := range params {
		out[k] = v
	}
	for k, v := range settingParams(kind, c.Settings) {
		if _, has := out[k]; has {
			out[k] = v
		}
	}
	return out, true, nil
}
