package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/floe/floe/persist"
)

// MaintenanceSource says where one value of a table's maintenance
// configuration comes from, most specific first.
type MaintenanceSource string

const (
	FromTable      MaintenanceSource = "table"       // put on the table itself
	FromBucket     MaintenanceSource = "bucket"      // put on its bucket
	FromAllBuckets MaintenanceSource = "all buckets" // the setting for every bucket (SetDestructiveMaintenance with "")
	// FromDefault: nothing was put anywhere. For the switch that is floe's
	// default (on, destructive kinds off); for a setting, the job type's own
	// setting decides, as the Job types page shows it.
	FromDefault MaintenanceSource = "default"
)

// MaintenanceSettingNames are the settings of each kind, named as the S3
// Tables API names them (and as the console's form names its inputs).
var MaintenanceSettingNames = map[MaintenanceKind][]string{
	MaintenanceCompaction:   {"targetFileSizeMB", "strategy"},
	MaintenanceSnapshots:    {"minSnapshotsToKeep", "maxSnapshotAgeHours"},
	MaintenanceUnreferenced: {"unreferencedDays", "nonCurrentDays"},
}

// Int returns a whole-number setting by its S3 Tables name (0: unset).
func (s MaintenanceSettings) Int(name string) int {
	if p := s.intField(name); p != nil {
		return *p
	}
	return 0
}

func (s *MaintenanceSettings) intField(name string) *int {
	switch name {
	case "targetFileSizeMB":
		return &s.TargetFileSizeMB
	case "minSnapshotsToKeep":
		return &s.MinSnapshotsToKeep
	case "maxSnapshotAgeHours":
		return &s.MaxSnapshotAgeHours
	case "unreferencedDays":
		return &s.UnreferencedDays
	case "nonCurrentDays":
		return &s.NonCurrentDays
	}
	return nil
}

// isSet reports whether a setting holds a value (zero and "" are unset).
func (s MaintenanceSettings) isSet(name string) bool {
	if name == "strategy" {
		return s.CompactionStrategy != ""
	}
	return s.Int(name) != 0
}

// copySetting copies one setting from src into s.
func (s *MaintenanceSettings) copySetting(name string, src MaintenanceSettings) {
	if name == "strategy" {
		s.CompactionStrategy = src.CompactionStrategy
		return
	}
	if p := s.intField(name); p != nil {
		*p = src.Int(name)
	}
}

// ResolvedMaintenance is one kind's configuration for a table with where
// each value comes from. The switch comes from the most specific level that
// has a row; each setting from the most specific level that sets it, so a
// table that sets only its target size keeps its bucket's other settings.
type ResolvedMaintenance struct {
	Kind        MaintenanceKind
	Enabled     bool
	EnabledFrom MaintenanceSource
	// Settings holds the values some level sets (unset ones are zero: the
	// job type decides them); From says which level, by setting name.
	Settings MaintenanceSettings
	From     map[string]MaintenanceSource
	// Own is the table's own row as put (OwnStored false: it has none, and
	// the kind is inherited whole). Always false for bucket-level kinds.
	Own        MaintenanceSettings
	OwnEnabled bool
	OwnStored  bool
}

// level is one place a maintenance configuration may be stored.
type level struct {
	bucket, table string
	from          MaintenanceSource
}

// maintenanceLevels reads kind's row at each level in one statement (one
// round trip however many levels: a point lookup of the key each), as
// maintenanceRowRaw would read them one by one, in the levels' order.
func (s *Store) maintenanceLevels(ctx context.Context, kind MaintenanceKind, levels ...level) ([]MaintenanceConfig, error) {
	out := make([]MaintenanceConfig, len(levels))
	parts := make([]string, len(levels))
	args := make([]any, 0, 3*len(levels))
	for i, l := range levels {
		out[i] = MaintenanceConfig{Kind: kind, Enabled: !kind.Destructive()}
		parts[i] = fmt.Sprintf(`SELECT %d AS lvl, status, settings FROM maintenance_configs WHERE bucket = ? AND table_id = ? AND kind = ?`, i)
		args = append(args, l.bucket, l.table, string(kind))
	}
	rows, err := s.ro.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, dbErr("read maintenance configuration", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var status, body string
		if err := rows.Scan(&i, &status, &body); err != nil {
			return nil, dbErr("read maintenance configuration", err)
		}
		if i < 0 || i >= len(levels) {
			continue
		}
		c, err := decodeMaintenanceRow(levels[i].bucket, levels[i].table, kind, status, body)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("read maintenance configuration", err)
	}
	return out, nil
}

// ResolveMaintenance resolves kind for table t (a Table with only Bucket
// set resolves the bucket's). A bucket-level kind never reads a table row.
func (s *Store) ResolveMaintenance(ctx context.Context, t Table, kind MaintenanceKind) (ResolvedMaintenance, error) {
	r := ResolvedMaintenance{Kind: kind, Enabled: !kind.Destructive(), EnabledFrom: FromDefault, From: map[string]MaintenanceSource{}}
	var levels []level
	if t.ID != "" && kindAllowed(kind, TableMaintenanceKinds) {
		levels = append(levels, level{t.Bucket, t.ID, FromTable})
	}
	levels = append(levels, level{t.Bucket, "", FromBucket}, level{globalMaintenance, "", FromAllBuckets})
	rows, err := s.maintenanceLevels(ctx, kind, levels...)
	if err != nil {
		return r, err
	}
	switched := false
	for i, l := range levels {
		row := rows[i]
		if !row.Stored {
			continue
		}
		if l.from == FromTable {
			r.Own, r.OwnEnabled, r.OwnStored = row.Settings, row.Enabled, true
		}
		if !switched {
			r.Enabled, r.EnabledFrom, switched = row.Enabled, l.from, true
		}
		for _, name := range MaintenanceSettingNames[kind] {
			if _, done := r.From[name]; !done && row.Settings.isSet(name) {
				r.Settings.copySetting(name, row.Settings)
				r.From[name] = l.from
			}
		}
	}
	return r, nil
}

// DeleteTableMaintenance removes a table's own configuration of kind, so it
// inherits its bucket's again ("reset to inherit"). Removing none is no
// error: the table inherits either way.
func (s *Store) DeleteTableMaintenance(ctx context.Context, tableID string, kind MaintenanceKind) error {
	if !kindAllowed(kind, TableMaintenanceKinds) {
		return Invalid("type", "a table's maintenance type must be "+kindNames(TableMaintenanceKinds))
	}
	t, err := s.GetTableByID(ctx, tableID)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *persist.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM maintenance_configs WHERE bucket = ? AND table_id = ? AND kind = ?`,
			t.Bucket, t.ID, string(kind)); err != nil {
			return dbErr("remove maintenance configuration", err)
		}
		return nil
	})
}

// CheckDestructiveOptIn is the bucket's say over turning a destructive kind
// on for one of its tables from the console: refused while the bucket's
// destructive maintenance is off. (The S3 Tables API keeps AWS's meaning,
// where a table's own configuration is itself the switch.) Turning a kind
// off, or a kind that deletes nothing, is always allowed.
func (s *Store) CheckDestructiveOptIn(ctx context.Context, bucket string, kind MaintenanceKind, enabled bool) error {
	if !enabled || !kind.Destructive() {
		return nil
	}
	on, _, err := s.DestructiveMaintenance(ctx, bucket)
	if err != nil {
		return err
	}
	if !on {
		return Invalid("status", fmt.Sprintf("This maintenance deletes data, and destructive maintenance is off for bucket %s: turn it on in the bucket's safety settings first, or keep it disabled here.", bucket))
	}
	return nil
}

// MaintenanceSettingBounds are the whole-number range a setting takes, as
// the Put functions check it, so a form can say so before it sends.
func MaintenanceSettingBounds(name string) (lo, hi int) {
	if name == "targetFileSizeMB" {
		return minTargetFileSizeMB, maxTargetFileSizeMB
	}
	return 1, maxSettingValue
}

// SetInt sets a whole-number setting by its S3 Tables name (0 unsets it).
func (s *MaintenanceSettings) SetInt(name string, v int) {
	if p := s.intField(name); p != nil {
		*p = v
	}
}
