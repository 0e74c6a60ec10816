package plugin

import (
	"context"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// TestReviewerDropsDisabledProposals: with the catalog as reviewer, a
// table whose compaction is DISABLED is never proposed as a job; its
// neighbour is, with the configured settings applied to the parameters it
// declares.
func TestReviewerDropsDisabledProposals(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	h.p.cfg.Reviewer = h.store // set before any detection runs
	ctx := ctxT(t)
	if _, err := h.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.CreateNamespace(ctx, "bkt", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, name := range []string{"off", "on"} {
		tb, _, err := h.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: name},
			Format: catalog.FormatIceberg})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = tb.ID
	}
	if err := h.store.PutTableMaintenance(ctx, ids["off"], catalog.MaintenanceCompaction, false, catalog.MaintenanceSettings{}); err != nil {
		t.Fatal(err)
	}
	if err := h.store.PutTableMaintenance(ctx, ids["on"], catalog.MaintenanceCompaction, true, catalog.MaintenanceSettings{TargetFileSizeMB: 64}); err != nil {
		t.Fatal(err)
	}
	h.connect(plugintest.Config{WorkerID: "w1",
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(context.Context, *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			return []*pluginpb.Proposal{
				{ObjectId: ids["off"], DedupeKey: "c:off"},
				{ObjectId: ids["on"], DedupeKey: "c:on", Parameters: map[string]string{"target_file_size_mb": "512", "target_rows": "9"}},
				{ObjectId: "not-a-table", DedupeKey: "c:x"},
			}, nil
		},
	})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	res, err := h.p.RunNow(ctx, "lance_compact")
	if err != nil {
		t.Fatal(err)
	}
	if res.Proposals != 3 || res.Disabled != 1 || len(res.Created) != 2 {
		t.Fatalf("RunNow = %d proposals, %d disabled, %d created; want 3, 1, 2", res.Proposals, res.Disabled, len(res.Created))
	}
	for _, j := range res.Created {
		switch j.ObjectID {
		case ids["off"]:
			t.Fatalf("a job was made for the table whose compaction is disabled: %+v", j)
		case ids["on"]:
			if j.Parameters["target_file_size_mb"] != "64" || j.Parameters["target_rows"] != "9" {
				t.Fatalf("parameters = %v; want the configured target size and the rest untouched", j.Parameters)
			}
		}
	}
}
