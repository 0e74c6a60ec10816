package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

// TestTableHealthFixKeepsTheTableSettings: a Fix submits its cleanup with
// the table's own maintenance settings (versions kept, age), as detection
// does, also while the table's automatic maintenance is off; before, it
// used health's thresholds and could delete versions the table said to keep.
func TestTableHealthFixKeepsTheTableSettings(t *testing.T) {
	e, tb, _ := fixableLanceTable(t, "kept", 60*24*time.Hour, map[string]any{"rows": 12, "fragments": 1, "small_fragments": 0})
	ctx := context.Background()
	if err := e.store.PutTableMaintenance(ctx, tb.ID, catalog.MaintenanceSnapshots, false,
		catalog.MaintenanceSettings{MinSnapshotsToKeep: 15, MaxSnapshotAgeHours: 900}); err != nil {
		t.Fatal(err)
	}
	r := e.do(e.admin(), "POST", "/buckets/vec/namespaces/prod/tables/kept/fix", nil, map[string]string{"HX-Request": "true"})
	if r.status != http.StatusOK {
		t.Fatalf("fix: %d\n%s", r.status, r.body)
	}
	jobs, _, err := e.p.ListJobs(ctx, plugin.JobFilter{ObjectID: tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	var cleanup map[string]string
	for _, j := range jobs {
		if j.Type == "lance_cleanup" {
			cleanup = j.Parameters
		}
	}
	if cleanup == nil {
		t.Fatalf("Fix submitted no cleanup: %v", jobs)
	}
	if cleanup["retain_versions"] != "15" || cleanup["older_than"] != "900h" {
		t.Errorf("Fix's cleanup %v, want the table's retain_versions=15 older_than=900h", cleanup)
	}
}
