package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/floe/floe/persist"
)

// MaintenanceKind is one kind of automatic maintenance an operator switches
// on or off, named as the S3 Tables API names it. Compaction and snapshot
// management are set per table; unreferenced-file removal per bucket.
type MaintenanceKind string

const (
	MaintenanceCompaction   MaintenanceKind = "icebergCompaction"
	MaintenanceSnapshots    MaintenanceKind = "icebergSnapshotManagement"
	MaintenanceUnreferenced MaintenanceKind = "icebergUnreferencedFileRemoval"
)

// Destructive reports whether the kind's jobs delete data a reader could
// still reach: old Lance versions (lance_cleanup), expired Iceberg
// snapshots and their files, orphan files. Those kinds are off until an
// operator turns them on for a bucket (or for every bucket, or for one
// table through S3 Tables); compaction and index optimization, which delete
// nothing a reader needs, stay on.
func (k MaintenanceKind) Destructive() bool {
	return k == MaintenanceSnapshots || k == MaintenanceUnreferenced
}

// DestructiveKinds are the kinds Destructive reports.
var DestructiveKinds = []MaintenanceKind{MaintenanceSnapshots, MaintenanceUnreferenced}

// TableMaintenanceKinds and BucketMaintenanceKinds list where each kind is set.
var (
	TableMaintenanceKinds  = []MaintenanceKind{MaintenanceCompaction, MaintenanceSnapshots}
	BucketMaintenanceKinds = []MaintenanceKind{MaintenanceUnreferenced}
)

// MaintenanceSettings are the knobs of every kind; each kind reads its own.
// Zero means "the default" (see DefaultMaintenanceSettings).
type MaintenanceSettings struct {
	TargetFileSizeMB    int    `json:"target_file_size_mb,omitempty"`
	CompactionStrategy  string `json:"compaction_strategy,omitempty"`
	MinSnapshotsToKeep  int    `json:"min_snapshots_to_keep,omitempty"`
	MaxSnapshotAgeHours int    `json:"max_snapshot_age_hours,omitempty"`
	UnreferencedDays    int    `json:"unreferenced_days,omitempty"`
	NonCurrentDays      int    `json:"non_current_days,omitempty"`
}

// Setting bounds, as S3 Tables documents them, so a configuration that AWS
// would refuse is refused here too.
const (
	minTargetFileSizeMB = 64
	maxTargetFileSizeMB = 512
	maxSettingValue     = 1 << 30 // any count of days, hours or snapshots beyond this is a typo
)

// DefaultMaintenanceSettings are what a table or bucket without a stored
// configuration gets: the S3 Tables defaults. (Their status is not S3
// Tables': a destructive kind is disabled until turned on.)
var DefaultMaintenanceSettings = MaintenanceSettings{
	TargetFileSizeMB: 512, CompactionStrategy: "auto", MinSnapshotsToKeep: 1, MaxSnapshotAgeHours: 120,
	UnreferencedDays: 3, NonCurrentDays: 10,
}

var compactionStrategies = []string{"auto", "binpack", "sort", "z-order"}

// MaintenanceConfig is the effective configuration of one kind.
type MaintenanceConfig struct {
	Kind     MaintenanceKind
	Enabled  bool
	Settings MaintenanceSettings // defaults filled in
	Stored   bool                // false: nothing was put, these are the defaults
	own      bool                // the row is the table's own (not its bucket's)
}

func validateMaintenance(kind MaintenanceKind, set MaintenanceSettings) error {
	positive := func(field string, v int) error {
		if v < 0 || v > maxSettingValue {
			return Invalid(field, fmt.Sprintf("%s must be a positive whole number (at most %d)", field, maxSettingValue))
		}
		return nil
	}
	switch kind {
	case MaintenanceCompaction:
		if set.TargetFileSizeMB != 0 && (set.TargetFileSizeMB < minTargetFileSizeMB || set.TargetFileSizeMB > maxTargetFileSizeMB) {
			return Invalid("targetFileSizeMB", fmt.Sprintf("targetFileSizeMB must be between %d and %d", minTargetFileSizeMB, maxTargetFileSizeMB))
		}
		if set.CompactionStrategy != "" && !contains(compactionStrategies, set.CompactionStrategy) {
			return Invalid("strategy", "strategy must be one of "+strings.Join(compactionStrategies, ", "))
		}
	case MaintenanceSnapshots:
		if err := positive("minSnapshotsToKeep", set.MinSnapshotsToKeep); err != nil {
			return err
		}
		return positive("maxSnapshotAgeHours", set.MaxSnapshotAgeHours)
	case MaintenanceUnreferenced:
		if err := positive("unreferencedDays", set.UnreferencedDays); err != nil {
			return err
		}
		return positive("nonCurrentDays", set.NonCurrentDays)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func kindAllowed(kind MaintenanceKind, allowed []MaintenanceKind) bool {
	for _, k := range allowed {
		if k == kind {
			return true
		}
	}
	return false
}

func kindNames(kinds []MaintenanceKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, " or ")
}

// PutBucketMaintenance stores a bucket-level maintenance configuration.
func (s *Store) PutBucketMaintenance(ctx context.Context, bucket string, kind MaintenanceKind, enabled bool, set MaintenanceSettings) error {
	if !kindAllowed(kind, BucketMaintenanceKinds) {
		return Invalid("type", "a table bucket's maintenance type must be "+kindNames(BucketMaintenanceKinds))
	}
	if err := validateMaintenance(kind, set); err != nil {
		return err
	}
	if _, err := s.GetBucket(ctx, bucket); err != nil {
		return err
	}
	return s.putMaintenance(ctx, bucket, "", kind, enabled, set)
}

// PutTableMaintenance stores a table-level maintenance configuration.
func (s *Store) PutTableMaintenance(ctx context.Context, tableID string, kind MaintenanceKind, enabled bool, set MaintenanceSettings) error {
	if !kindAllowed(kind, TableMaintenanceKinds) {
		return Invalid("type", "a table's maintenance type must be "+kindNames(TableMaintenanceKinds))
	}
	if err := validateMaintenance(kind, set); err != nil {
		return err
	}
	t, err := s.GetTableByID(ctx, tableID)
	if err != nil {
		return err
	}
	return s.putMaintenance(ctx, t.Bucket, t.ID, kind, enabled, set)
}

func (s *Store) putMaintenance(ctx context.Context, bucket, tableID string, kind MaintenanceKind, enabled bool, set MaintenanceSettings) error {
	status := "disabled"
	if enabled {
		status = "enabled"
	}
	body, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("catalog: encode maintenance settings: %w", err)
	}
	return s.inTx(ctx, func(tx *persist.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO maintenance_configs(bucket, table_id, kind, status, settings, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(bucket, table_id, kind) DO UPDATE SET
			status = excluded.status, settings = excluded.settings, updated_at = excluded.updated_at`,
			bucket, tableID, string(kind), status, string(body), micros(s.now())); err != nil {
			return dbErr("store maintenance configuration", err)
		}
		return nil
	})
}

// BucketMaintenance returns the bucket-level configuration of every
// bucket-level kind: the bucket's own, else the one for every bucket, else
// the defaults.
func (s *Store) BucketMaintenance(ctx context.Context, bucket string) ([]MaintenanceConfig, error) {
	if _, err := s.GetBucket(ctx, bucket); err != nil {
		return nil, err
	}
	return s.maintenanceRows(ctx, Table{Bucket: bucket}, BucketMaintenanceKinds)
}

// TableMaintenance returns the configuration that governs each table-level
// kind for one table: its own (Stored), else what it inherits from its
// bucket, every bucket or the defaults (Stored false).
func (s *Store) TableMaintenance(ctx context.Context, tableID string) ([]MaintenanceConfig, error) {
	t, err := s.GetTableByID(ctx, tableID)
	if err != nil {
		return nil, err
	}
	out, err := s.maintenanceRows(ctx, t, TableMaintenanceKinds)
	for i := range out {
		if out[i].Stored && !out[i].own {
			out[i].Stored = false // inherited: nothing was put on the table itself
		}
	}
	return out, err
}

func (s *Store) maintenanceRows(ctx context.Context, t Table, kinds []MaintenanceKind) ([]MaintenanceConfig, error) {
	out := make([]MaintenanceConfig, 0, len(kinds))
	for _, k := range kinds {
		c, err := s.EffectiveMaintenance(ctx, t, k)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *Store) maintenanceRow(ctx context.Context, bucket, tableID string, kind MaintenanceKind) (MaintenanceConfig, error) {
	c, err := s.maintenanceRowRaw(ctx, bucket, tableID, kind)
	c.Settings = withDefaults(c.Settings)
	return c, err
}

// maintenanceRowRaw reads one row with its settings as put (no defaults).
func (s *Store) maintenanceRowRaw(ctx context.Context, bucket, tableID string, kind MaintenanceKind) (MaintenanceConfig, error) {
	c := MaintenanceConfig{Kind: kind, Enabled: !kind.Destructive()}
	var status, body string
	err := s.ro.QueryRowContext(ctx, `SELECT status, settings FROM maintenance_configs WHERE bucket = ? AND table_id = ? AND kind = ?`,
		bucket, tableID, string(kind)).Scan(&status, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, dbErr("read maintenance configuration", err)
	}
	d, err := decodeMaintenanceRow(bucket, tableID, kind, status, body)
	if err != nil {
		return c, err
	}
	return d, nil
}

// decodeMaintenanceRow makes a stored row's configuration of its columns.
func decodeMaintenanceRow(bucket, tableID string, kind MaintenanceKind, status, body string) (MaintenanceConfig, error) {
	c := MaintenanceConfig{Kind: kind, Enabled: !kind.Destructive()}
	var set MaintenanceSettings
	if err := json.Unmarshal([]byte(body), &set); err != nil {
		return c, fmt.Errorf("catalog: stored maintenance settings of %s/%s are not JSON: %w", bucket, kind, err)
	}
	c.Enabled, c.Stored, c.Settings = status == "enabled", true, set
	c.own = tableID != ""
	return c, nil
}

func withDefaults(set MaintenanceSettings) MaintenanceSettings {
	d := DefaultMaintenanceSettings
	pick := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	set.TargetFileSizeMB = pick(set.TargetFileSizeMB, d.TargetFileSizeMB)
	set.MinSnapshotsToKeep = pick(set.MinSnapshotsToKeep, d.MinSnapshotsToKeep)
	set.MaxSnapshotAgeHours = pick(set.MaxSnapshotAgeHours, d.MaxSnapshotAgeHours)
	set.UnreferencedDays = pick(set.UnreferencedDays, d.UnreferencedDays)
	set.NonCurrentDays = pick(set.NonCurrentDays, d.NonCurrentDays)
	if set.CompactionStrategy == "" {
		set.CompactionStrategy = d.CompactionStrategy
	}
	return set
}

// EffectiveMaintenance is the configuration that governs kind for one table:
// the switch of the most specific level that has one (the table's own, its
// bucket's, the one for every bucket set by SetDestructiveMaintenance with
// bucket "", else the default), each setting from the most specific level
// that sets it (see ResolveMaintenance), the defaults filling the rest. A
// Table with only Bucket set asks for the bucket's.
func (s *Store) EffectiveMaintenance(ctx context.Context, t Table, kind MaintenanceKind) (MaintenanceConfig, error) {
	r, err := s.ResolveMaintenance(ctx, t, kind)
	if err != nil {
		return MaintenanceConfig{Kind: kind}, err
	}
	return MaintenanceConfig{Kind: kind, Enabled: r.Enabled, Settings: withDefaults(r.Settings),
		Stored: r.EnabledFrom != FromDefault, own: r.EnabledFrom == FromTable}, nil
}

// globalMaintenance is the bucket column of the configuration for every
// bucket: no bucket is called "".
const globalMaintenance = ""

// SetDestructiveMaintenance turns the destructive kinds (Destructive) on or
// off for a bucket, or with bucket "" for every bucket that has no setting
// of its own. Stored settings are kept; only the switch changes.
func (s *Store) SetDestructiveMaintenance(ctx context.Context, bucket string, on bool) error {
	if bucket != globalMaintenance {
		if _, err := s.GetBucket(ctx, bucket); err != nil {
			return err
		}
	}
	for _, k := range DestructiveKinds {
		c, err := s.maintenanceRow(ctx, bucket, "", k)
		if err != nil {
			return err
		}
		set := MaintenanceSettings{}
		if c.Stored {
			set = c.Settings
		}
		if err := s.putMaintenance(ctx, bucket, "", k, on, set); err != nil {
			return err
		}
	}
	return nil
}

// DestructiveMaintenance says whether the destructive kinds are on for a
// bucket (both of them, as the bucket sees them after falling back to the
// setting for every bucket), and whether that is the bucket's own setting.
func (s *Store) DestructiveMaintenance(ctx context.Context, bucket string) (on, own bool, err error) {
	on = true
	for _, k := range DestructiveKinds {
		r, err := s.ResolveMaintenance(ctx, Table{Bucket: bucket}, k)
		if err != nil {
			return false, false, err
		}
		// The switch comes from the first level with a row: the bucket's
		// own exactly when it has one.
		on = on && r.Enabled
		own = own || r.EnabledFrom == FromBucket
	}
	return on, own, nil
}
