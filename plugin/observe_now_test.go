package plugin

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// TestObserveNow: requests for one table that arrive together become one
// targeted, observe-only Detect naming just that table; its observation is
// stored, published for live pages, and any proposal is not queued.
func TestObserveNow(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	ctx := ctxT(t)
	if _, err := h.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bkt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.CreateNamespace(ctx, "bkt", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := h.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: "t"},
		Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*pluginpb.Detect
	var w *plugintest.Worker
	w = h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(_ context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			mu.Lock()
			got = append(got, d)
			mu.Unlock()
			w.Observe(&pluginpb.Observation{ObjectId: tb.ID, Format: "LANCE", ObservedAtUnixMs: time.Now().UnixMilli(),
				AttributesJson: `{"version":7,"rows":70}`})
			return []*pluginpb.Proposal{{ObjectId: tb.ID, DedupeKey: "x"}}, nil
		},
	})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })

	events, unsubscribe := h.p.Subscribe() // h.events is drained by waitUntil
	defer unsubscribe()
	cases := []struct {
		name string
		id   string
		want bool
	}{
		{"first request queues", tb.ID, true},
		{"a second request joins the first", tb.ID, true},
		{"no id is refused", "", false},
	}
	for _, c := range cases {
		if ok := h.p.ObserveNow(c.id); ok != c.want {
			t.Errorf("%s: ObserveNow(%q) = %v, want %v", c.name, c.id, ok, c.want)
		}
	}
	sawEvent := false
	h.waitUntil("the observation", func() bool {
		for drained := false; !drained; {
			select {
			case ev := <-events:
				sawEvent = sawEvent || (ev.Kind == EventObserved && ev.ObjectID == tb.ID)
			default:
				drained = true
			}
		}
		rows, _, _, ok := h.obs.Rows(tb.ID, catalog.FormatLance)
		return ok && rows == 70 && sawEvent
	})
	h.waitUntil("the request is released", func() bool { return !h.p.observer.isRunning(tb.ID) })
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("worker got %d Detects, want 1 (requests debounced)", len(got))
	}
	d := got[0]
	if !d.GetObserveOnly() || len(d.GetObjects()) != 1 || d.GetObjects()[0].GetName() != "t" || d.GetObjects()[0].GetBucket() != "bkt" {
		t.Fatalf("Detect = observe_only %v, objects %v; want observe-only for bkt/ns/t", d.GetObserveOnly(), d.GetObjects())
	}
	if jobs, _, err := h.p.ListJobs(ctx, JobFilter{ObjectID: tb.ID}); err != nil || len(jobs) != 0 {
		t.Fatalf("an observe-only request queued %d jobs (%v); want none", len(jobs), err)
	}
}
