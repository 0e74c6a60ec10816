package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/floe/floe/fault"
)

// TestResolveMaintenanceSources: each value says where it comes from, a
// table's own setting wins one setting at a time, reset to inherit removes
// the table's row, and proposals get exactly the configured values.
func TestResolveMaintenanceSources(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "bkt", FormatIceberg)
	mustNamespace(t, s, "bkt", "ns")
	tb := mustTable(t, s, TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"}, FormatIceberg)

	r, err := s.ResolveMaintenance(ctx, tb, MaintenanceSnapshots)
	if err != nil || r.Enabled || r.EnabledFrom != FromDefault || len(r.From) != 0 || r.OwnStored {
		t.Fatalf("fresh table: %+v, %v; want off by default, nothing set", r, err)
	}
	if err := s.SetDestructiveMaintenance(ctx, "bkt", true); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBucketMaintenance(ctx, "bkt", MaintenanceUnreferenced, true, MaintenanceSettings{UnreferencedDays: 5}); err != nil {
		t.Fatal(err)
	}
	// The bucket's snapshot row is the opt-in (no settings); the table sets
	// one of the two settings.
	if err := s.PutTableMaintenance(ctx, tb.ID, MaintenanceSnapshots, true, MaintenanceSettings{MinSnapshotsToKeep: 7}); err != nil {
		t.Fatal(err)
	}
	r, err = s.ResolveMaintenance(ctx, tb, MaintenanceSnapshots)
	if err != nil || !r.Enabled || r.EnabledFrom != FromTable || r.From["minSnapshotsToKeep"] != FromTable || r.Settings.MinSnapshotsToKeep != 7 {
		t.Fatalf("table's own: %+v, %v", r, err)
	}
	if _, set := r.From["maxSnapshotAgeHours"]; set || r.Settings.MaxSnapshotAgeHours != 0 {
		t.Fatalf("maxSnapshotAgeHours set nowhere but resolved as %+v", r)
	}
	u, err := s.ResolveMaintenance(ctx, tb, MaintenanceUnreferenced)
	if err != nil || u.EnabledFrom != FromBucket || u.From["unreferencedDays"] != FromBucket || u.OwnStored {
		t.Fatalf("bucket-level kind: %+v, %v", u, err)
	}

	params, ok, err := s.ReviewProposal(ctx, "iceberg_expire_snapshots", tb.ID, map[string]string{})
	if err != nil || !ok || params["retain_last"] != "7" {
		t.Fatalf("expire proposal = %v, %v, %v; want retain_last 7", params, ok, err)
	}
	if _, has := params["max_snapshot_age_hours"]; has {
		t.Fatalf("an unset setting reached the job: %v (the job type's own value must decide)", params)
	}
	params, ok, err = s.ReviewProposal(ctx, "lance_cleanup", tb.ID, map[string]string{"older_than": "120h", "retain_versions": "2"})
	if err != nil || !ok || params["retain_versions"] != "7" || params["older_than"] != "120h" {
		t.Fatalf("cleanup proposal = %v, %v, %v", params, ok, err)
	}
	params, ok, err = s.ReviewProposal(ctx, "iceberg_remove_orphans", tb.ID, map[string]string{})
	if err != nil || !ok || params["older_than_hours"] != "120" {
		t.Fatalf("orphan proposal = %v, %v, %v; want 5 days as 120 hours", params, ok, err)
	}

	if err := s.DeleteTableMaintenance(ctx, tb.ID, MaintenanceSnapshots); err != nil {
		t.Fatal(err)
	}
	r, err = s.ResolveMaintenance(ctx, tb, MaintenanceSnapshots)
	if err != nil || r.OwnStored || r.EnabledFrom != FromBucket || !r.Enabled || len(r.From) != 0 {
		t.Fatalf("after reset to inherit: %+v, %v", r, err)
	}
	c, err := s.EffectiveMaintenance(ctx, tb, MaintenanceSnapshots)
	if err != nil || !c.Enabled || c.Settings.MinSnapshotsToKeep != DefaultMaintenanceSettings.MinSnapshotsToKeep {
		t.Fatalf("EffectiveMaintenance after reset: %+v, %v", c, err)
	}
	if err := s.DeleteTableMaintenance(ctx, tb.ID, MaintenanceUnreferenced); !errors.Is(err, fault.Invalid) {
		t.Fatalf("reset of a bucket-level kind on a table = %v; want Invalid", err)
	}
}

// TestDestructiveOptIn: the console may turn a destructive kind on for a
// table only while its bucket has destructive maintenance on.
func TestDestructiveOptIn(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	mustBucket(t, s, "bkt", FormatLance)
	if err := s.CheckDestructiveOptIn(ctx, "bkt", MaintenanceSnapshots, true); !errors.Is(err, fault.Invalid) {
		t.Fatalf("opt-in off: %v; want Invalid", err)
	}
	for _, ok := range []struct {
		kind MaintenanceKind
		on   bool
	}{{MaintenanceSnapshots, false}, {MaintenanceCompaction, true}} {
		if err := s.CheckDestructiveOptIn(ctx, "bkt", ok.kind, ok.on); err != nil {
			t.Fatalf("%s on=%v: %v; want allowed", ok.kind, ok.on, err)
		}
	}
	if err := s.SetDestructiveMaintenance(ctx, "bkt", true); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckDestructiveOptIn(ctx, "bkt", MaintenanceSnapshots, true); err != nil {
		t.Fatalf("opt-in on: %v", err)
	}
}
