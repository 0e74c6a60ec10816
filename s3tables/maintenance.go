package s3tables

import (
	"fmt"

	"github.com/floe/floe/catalog"
)

// The wire shapes of S3 Tables maintenance settings. Each setting is a
// pointer so an absent one keeps its default.
type compactionSettings struct {
	TargetFileSizeMB *int   `json:"targetFileSizeMB,omitempty"`
	Strategy         string `json:"strategy,omitempty"`
}

type snapshotSettings struct {
	MinSnapshotsToKeep  *int `json:"minSnapshotsToKeep,omitempty"`
	MaxSnapshotAgeHours *int `json:"maxSnapshotAgeHours,omitempty"`
}

type unreferencedSettings struct {
	UnreferencedDays *int `json:"unreferencedDays,omitempty"`
	NonCurrentDays   *int `json:"nonCurrentDays,omitempty"`
}

// maintenanceSettings is the settings union: exactly one member is set,
// the one named like the configuration's type.
type maintenanceSettings struct {
	Compaction   *compactionSettings   `json:"icebergCompaction,omitempty"`
	Snapshots    *snapshotSettings     `json:"icebergSnapshotManagement,omitempty"`
	Unreferenced *unreferencedSettings `json:"icebergUnreferencedFileRemoval,omitempty"`
}

type maintenanceValue struct {
	Status   string               `json:"status"`
	Settings *maintenanceSettings `json:"settings,omitempty"`
}

func intp(v int) *int { return &v }

func wireValue(c catalog.MaintenanceConfig) maintenanceValue {
	v := maintenanceValue{Status: "disabled", Settings: &maintenanceSettings{}}
	if c.Enabled {
		v.Status = "enabled"
	}
	set := c.Settings
	switch c.Kind {
	case catalog.MaintenanceCompaction:
		v.Settings.Compaction = &compactionSettings{TargetFileSizeMB: intp(set.TargetFileSizeMB), Strategy: set.CompactionStrategy}
	case catalog.MaintenanceSnapshots:
		v.Settings.Snapshots = &snapshotSettings{MinSnapshotsToKeep: intp(set.MinSnapshotsToKeep), MaxSnapshotAgeHours: intp(set.MaxSnapshotAgeHours)}
	case catalog.MaintenanceUnreferenced:
		v.Settings.Unreferenced = &unreferencedSettings{UnreferencedDays: intp(set.UnreferencedDays), NonCurrentDays: intp(set.NonCurrentDays)}
	}
	return v
}

func wireConfigs(cs []catalog.MaintenanceConfig) map[string]maintenanceValue {
	out := make(map[string]maintenanceValue, len(cs))
	for _, c := range cs {
		out[string(c.Kind)] = wireValue(c)
	}
	return out
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// readMaintenanceValue parses a Put*MaintenanceConfiguration body for kind
// into floe's settings.
func readMaintenanceValue(req *request, kind catalog.MaintenanceKind) (bool, catalog.MaintenanceSettings, error) {
	var in struct {
		Value *maintenanceValue `json:"value"`
	}
	var set catalog.MaintenanceSettings
	if err := req.decode(&in); err != nil {
		return false, set, err
	}
	if in.Value == nil {
		return false, set, badRequest("value", "value is required: {status, settings}")
	}
	var enabled bool
	switch in.Value.Status {
	case "enabled":
		enabled = true
	case "disabled":
	default:
		return false, set, badRequest("status", "status must be enabled or disabled")
	}
	st := in.Value.Settings
	if st == nil {
		return enabled, set, nil
	}
	switch {
	case kind == catalog.MaintenanceCompaction && st.Compaction != nil:
		set.TargetFileSizeMB, set.CompactionStrategy = deref(st.Compaction.TargetFileSizeMB), st.Compaction.Strategy
	case kind == catalog.MaintenanceSnapshots && st.Snapshots != nil:
		set.MinSnapshotsToKeep, set.MaxSnapshotAgeHours = deref(st.Snapshots.MinSnapshotsToKeep), deref(st.Snapshots.MaxSnapshotAgeHours)
	case kind == catalog.MaintenanceUnreferenced && st.Unreferenced != nil:
		set.UnreferencedDays, set.NonCurrentDays = deref(st.Unreferenced.UnreferencedDays), deref(st.Unreferenced.NonCurrentDays)
	case st.Compaction != nil || st.Snapshots != nil || st.Unreferenced != nil:
		return false, set, badRequest("settings", fmt.Sprintf("settings must hold the %s member, matching the maintenance type", kind))
	}
	if hasNegative(set) {
		return false, set, badRequest("settings", "maintenance settings must be positive whole numbers")
	}
	return enabled, set, nil
}

func hasNegative(s catalog.MaintenanceSettings) bool {
	return s.TargetFileSizeMB < 0 || s.MinSnapshotsToKeep < 0 || s.MaxSnapshotAgeHours < 0 || s.UnreferencedDays < 0 || s.NonCurrentDays < 0
}
