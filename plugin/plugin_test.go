package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func TestAuthRefused(t *testing.T) {
	h := newHarness(t, Options{})
	for _, tc := range []struct{ name, token string }{
		{"no token", ""},
		{"unknown token", "wt_not_a_real_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := plugintest.Config{WorkerID: "w-auth", Token: tc.token}
			w, err := plugintest.Connect(context.Background(), h.conn, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			select {
			case <-w.Done():
			case <-time.After(testWait):
				t.Fatal("stream was not refused")
			}
			if code := status.Code(w.Err()); code != codes.Unauthenticated {
				t.Fatalf("code = %v (%v), want Unauthenticated", code, w.Err())
			}
			if msg := status.Convert(w.Err()).Message(); msg == "" {
				t.Fatal("refusal has no sentence")
			}
			if _, ok := h.p.reg.get("w-auth"); ok {
				t.Fatal("refused worker was registered")
			}
		})
	}
	t.Run("no first message", func(t *testing.T) {
		h := newHarness(t, Options{HelloTimeout: 50 * time.Millisecond})
		w, err := plugintest.Connect(context.Background(), h.conn, plugintest.Config{WorkerID: "mute", Token: h.token, SkipHello: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		<-w.Done()
		if code := status.Code(w.Err()); code != codes.DeadlineExceeded {
			t.Fatalf("code = %v, want DeadlineExceeded", code)
		}
	})
	t.Run("first message not hello", func(t *testing.T) {
		w, err := plugintest.Connect(context.Background(), h.conn, plugintest.Config{WorkerID: "x", Token: h.token, SkipHello: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.Heartbeat(0, 1)
		<-w.Done()
		if code := status.Code(w.Err()); code != codes.InvalidArgument {
			t.Fatalf("code = %v, want InvalidArgument", code)
		}
	})
}

func TestHelloDescribesAndStoresSettings(t *testing.T) {
	dir := t.TempDir()
	h := newHarnessIn(t, dir, Options{DisableScheduler: true})
	w := h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")}})
	h.waitUntil("settings stored", func() bool { s, err := h.p.Settings("lance_compact"); return err == nil && s.Stored })
	set, _ := h.p.Settings("lance_compact")
	want := map[string]string{"target_rows": "1048576", "min_fragments": "4", "materialize_deletions": "true"}
	for k, v := range want {
		if set.Values[k] != v {
			t.Errorf("default %s = %q, want %q", k, set.Values[k], v)
		}
	}
	if set.Runtime.PerWorkerConcurrency != 2 || set.Runtime.Retries != 1 || set.Runtime.Enabled {
		t.Errorf("runtime defaults not taken from the descriptor: %+v", set.Runtime)
	}
	var n int
	if err := h.db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM plugin_job_settings WHERE job_type = 'lance_compact'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("settings row count = %d, %v", n, err)
	}

	// Saving validates, then persists.
	_, ferrs, err := h.p.SaveSettings(context.Background(), "lance_compact", map[string]string{"target_rows": "0"}, set.Runtime)
	if err != nil || ferrs["target_rows"] == "" {
		t.Fatalf("invalid value accepted: %v %v", ferrs, err)
	}
	rt := set.Runtime
	rt.Enabled = true
	if _, ferrs, err = h.p.SaveSettings(context.Background(), "lance_compact",
		map[string]string{"target_rows": "500", "materialize_deletions": "false"}, rt); err != nil || ferrs != nil {
		t.Fatalf("save: %v %v", ferrs, err)
	}

	// Same version on reconnect: not asked again. New version: asked again.
	w.Close()
	describes := func(w *plugintest.Worker) int {
		n := 0
		for _, m := range w.Received() {
			if m.GetDescribeJobType() != nil {
				n++
			}
		}
		return n
	}
	w2 := h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")}})
	w2.Heartbeat(0, 1) // a round trip after Hello: any describe would be queued before Welcome's successor
	if err := w2.WaitFor(ctxT(t), func(r []*pluginpb.ConsoleMessage) bool { return len(r) >= 1 }); err != nil {
		t.Fatal(err)
	}
	if n := describes(w2); n != 0 {
		t.Fatalf("descriptor asked again for the same version (%d)", n)
	}
	w2.Close()
	c2 := capability("lance_compact", "lance")
	c2.DescriptorVersion = "v2"
	w3 := h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{c2},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v2")}})
	h.waitUntil("v2 stored", func() bool {
		d, ok := h.p.Descriptor("lance_compact")
		return ok && d.Version == "v2"
	})
	if describes(w3) != 1 {
		t.Fatal("new descriptor version was not asked for")
	}

	// Settings survive a restart of the plugin on the same database.
	set, _ = h.p.Settings("lance_compact")
	if set.Values["target_rows"] != "500" || set.Values["materialize_deletions"] != "false" || !set.Runtime.Enabled {
		t.Fatalf("saved settings lost: %+v", set)
	}
	p2, err := New(Config{DB: h.db, Store: h.store, Logger: quietLogger(), Options: Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer start(t, p2)()
	set2, err := p2.Settings("lance_compact")
	if err != nil || set2.Values["target_rows"] != "500" || !set2.Runtime.Enabled {
		t.Fatalf("settings after reload: %+v %v", set2, err)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(cancel)
	return ctx
}

func TestDetectDedupeExecuteComplete(t *testing.T) {
	dir := t.TempDir()
	h := newHarnessIn(t, dir, Options{})
	var executed atomic.Int32
	h.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			if d.GetCluster().GetApiKey() == "" || d.GetCluster().GetLanceRestUrl() == "" {
				return nil, errors.New("no cluster context")
			}
			return []*pluginpb.Proposal{
				{ObjectId: "t1", DedupeKey: "compact:t1", Summary: "12 small fragments"},
				{ObjectId: "t1", DedupeKey: "compact:t1"},
				{ObjectId: "t2", DedupeKey: "compact:t2", Parameters: map[string]string{"target_rows": "100"}},
			}, nil
		},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			executed.Add(1)
			progress(&pluginpb.Progress{State: "running", Percent: 50, Stage: "rewrite", Metrics: map[string]float64{"fragments": 3}})
			return &pluginpb.Completed{Success: true, Summary: "compacted " + job.GetObjectId(),
				Result: map[string]string{"fragments_removed": "11"}}
		},
	})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })

	props, err := h.p.RunDetection(ctxT(t), "lance_compact")
	if err != nil || len(props) != 3 {
		t.Fatalf("RunDetection = %d proposals, %v", len(props), err)
	}
	res, err := h.p.RunNow(ctxT(t), "lance_compact")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Created) != 2 || res.Deduped != 1 {
		t.Fatalf("RunNow created %d, deduped %d; want 2 and 1", len(res.Created), res.Deduped)
	}
	for _, j := range res.Created {
		if j.Lane != LaneLance {
			t.Errorf("job %s in lane %q", j.ID, j.Lane)
		}
	}
	ids := []string{res.Created[0].ID, res.Created[1].ID}
	h.waitUntil("both jobs succeeded", func() bool {
		for _, id := range ids {
			j, err := h.p.GetJob(context.Background(), id)
			if err != nil || j.State != JobSucceeded {
				return false
			}
		}
		return true
	})
	j, err := h.p.GetJob(context.Background(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if j.Percent != 100 || j.Result["fragments_removed"] != "11" || j.Metrics["fragments"] != 3 || j.Attempts != 1 ||
		j.WorkerID != "w1" || j.Stage != "rewrite" || len(j.Activity) < 3 {
		t.Fatalf("job not recorded fully: %+v", j)
	}
	// Finished jobs no longer block their dedupe key.
	res, err = h.p.RunNow(ctxT(t), "lance_compact")
	if err != nil || len(res.Created) != 2 {
		t.Fatalf("second RunNow: %+v %v", res, err)
	}
	// Persisted: a new plugin on the same database lists them.
	p2, err := New(Config{DB: h.db, Store: h.store, Logger: quietLogger(), Options: Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer start(t, p2)()
	list, _, err := p2.ListJobs(context.Background(), JobFilter{Type: "lance_compact", State: JobSucceeded})
	if err != nil || len(list) < 2 {
		t.Fatalf("ListJobs after reload = %d, %v", len(list), err)
	}
}

func TestDisconnectFailsWaiterAtOnce(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	started := make(chan struct{})
	w := h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	errc := make(chan error, 1)
	go func() {
		// Detection timeout is minutes: only the disconnect can end this.
		_, err := h.p.RunDetection(context.Background(), "lance_compact")
		errc <- err
	}()
	<-started
	w.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrWorkerGone) {
			t.Fatalf("err = %v, want ErrWorkerGone", err)
		}
	case <-time.After(testWait):
		t.Fatal("waiter not failed on disconnect")
	}
	h.waitUntil("listed as disconnected", func() bool {
		wi, ok := h.p.Worker("w1")
		return ok && wi.Status == WorkerDisconnected
	})
}

func TestDuplicateWorkerIDReplacement(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	cfg := plugintest.Config{WorkerID: "dup", InstanceID: "first", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			return []*pluginpb.Proposal{{ObjectId: "from-second"}}, nil
		}}
	w1 := h.connect(cfg)
	cfg.InstanceID = "second"
	h.connect(cfg)
	select {
	case <-w1.Done():
	case <-time.After(testWait):
		t.Fatal("old stream not ended")
	}
	if code := status.Code(w1.Err()); code != codes.Aborted {
		t.Fatalf("old stream ended with %v, want Aborted", w1.Err())
	}
	// The old handler's cleanup ran (its stream ended); the new session stays.
	h.waitUntil("one worker", func() bool { return len(h.p.Snapshot()) == 1 })
	snap := h.p.Snapshot()
	if snap[0].InstanceID != "second" || snap[0].Status != WorkerConnected {
		t.Fatalf("snapshot = %+v", snap)
	}
	props, err := h.p.RunDetection(ctxT(t), "lance_compact")
	if err != nil || len(props) != 1 || props[0].ObjectID != "from-second" {
		t.Fatalf("detection through the new session: %v %v", props, err)
	}
}

func TestCancelOnCallerTimeoutReachesWorker(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	started := make(chan string, 1)
	w := h.connect(plugintest.Config{WorkerID: "w1", Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors: map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
			started <- ""
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := h.p.RunDetection(ctx, "lance_compact"); errc <- err }()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	var detectID string
	for _, m := range w.Received() {
		if m.GetDetect() != nil {
			detectID = m.GetRequestId()
		}
	}
	if err := w.WaitFor(ctxT(t), func([]*pluginpb.ConsoleMessage) bool {
		return slices.ContainsFunc(w.Cancels(), func(c *pluginpb.Cancel) bool { return c.GetTargetRequestId() == detectID })
	}); err != nil {
		t.Fatalf("Cancel for %s never reached the worker: %v", detectID, err)
	}
}

// TestHammer runs heartbeats, reconnects, requests, observations and
// snapshots at once; -race and the absence of panics are the assertions,
// plus every request ending in a known way.
func TestHammer(t *testing.T) {
	h := newHarness(t, Options{})
	cfgFor := func(id, inst string) plugintest.Config {
		return plugintest.Config{WorkerID: id, InstanceID: inst, Token: h.token, HeartbeatEvery: 5 * time.Millisecond,
			Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
			Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
			OnDetect: func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
				return []*pluginpb.Proposal{{ObjectId: "t", DedupeKey: "k"}}, nil
			}}
	}
	h.connect(cfgFor("stable", "s0"))
	h.waitUntil("descriptor", func() bool { _, ok := h.p.Descriptor("lance_compact"); return ok })
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 3 {
		wg.Go(func() { // reconnecting workers, some sharing an id
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				w, err := plugintest.Connect(context.Background(), h.conn, cfgFor(fmt.Sprintf("flappy%d", i%2), fmt.Sprintf("i%d-%d", i, n)))
				if err != nil {
					t.Error(err)
					return
				}
				w.Heartbeat(0, 2)
				w.Observe(&pluginpb.Observation{ObjectId: fmt.Sprintf("t%d", n%5), Format: "LANCE", AttributesJson: `{"rows":1}`})
				w.Close()
			}
		})
	}
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				_, err := h.p.RunDetection(ctx, "lance_compact")
				cancel()
				if err != nil && !errors.Is(err, ErrWorkerGone) && !errors.Is(err, ErrNoWorker) &&
					!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrBusy) && !isTimeout(err) {
					t.Errorf("unexpected detection error: %v", err)
				}
				_ = h.p.Snapshot()
				_ = h.p.JobTypes()
			}
		})
	}
	wg.Go(func() {
		for range 30 {
			_, _ = h.p.RunNow(context.Background(), "lance_compact")
			_ = h.p.ActiveJobs()
		}
	})
	time.Sleep(300 * time.Millisecond) // let the hammer swing; nothing is asserted on time
	close(stop)
	wg.Wait()
	if _, ok := h.p.reg.get("stable"); !ok {
		t.Fatal("the stable worker was removed by another's cleanup")
	}
}

func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timed out")
}

func TestSubmitJobDedupe(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	a, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t1", DedupeKey: "task:1"})
	if err != nil || a.Lane != LaneLance || a.State != JobPending {
		t.Fatalf("first submit: %+v %v", a, err)
	}
	b, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t1", DedupeKey: "task:1"})
	if !errors.Is(err, ErrDuplicateJob) || b.ID != a.ID {
		t.Fatalf("duplicate submit: %+v %v", b, err)
	}
	if _, err := h.p.CancelJob(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	c, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t1", DedupeKey: "task:1"})
	if err != nil || c.ID == a.ID {
		t.Fatalf("submit after cancel: %+v %v", c, err)
	}
	e, err := h.p.ExpireJob(context.Background(), c.ID)
	if err != nil || e.State != JobExpired {
		t.Fatalf("ExpireJob: %+v %v", e, err)
	}
	d, err := h.p.SubmitJob(context.Background(), JobSpec{Type: "custom_thing"})
	if err != nil || d.Lane != LaneDefault {
		t.Fatalf("unknown type lane: %+v %v", d, err)
	}
	list, next, err := h.p.ListJobs(context.Background(), JobFilter{Lane: LaneLance, Limit: 1})
	if err != nil || len(list) != 1 || next == "" {
		t.Fatalf("page 1: %d %q %v", len(list), next, err)
	}
	list2, _, err := h.p.ListJobs(context.Background(), JobFilter{Lane: LaneLance, Limit: 10, Before: next})
	if err != nil || len(list2) != 1 || list2[0].ID == list[0].ID {
		t.Fatalf("page 2: %+v %v", list2, err)
	}
	if _, err := h.p.GetJob(context.Background(), "job_missing"); !errors.Is(err, ErrJobNotFound) {
		t.Fatalf("missing job: %v", err)
	}
}

func TestObservationsReachObserve(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	w := h.connect(plugintest.Config{WorkerID: "w-obs"})
	w.Observe(
		&pluginpb.Observation{ObjectId: "t1", Format: "LANCE", ObservedAtUnixMs: 1000, AttributesJson: `{"rows":42}`},
		&pluginpb.Observation{ObjectId: "t1", Format: "lance", ObservedAtUnixMs: 500, AttributesJson: `{"rows":1}`}, // older: ignored
		&pluginpb.Observation{ObjectId: "t2", Format: "PARQUET", AttributesJson: `{}`},                              // unknown format: dropped
	)
	w.Heartbeat(0, 1)
	h.waitUntil("observation stored", func() bool { _, _, _, ok := h.obs.Rows("t1", "LANCE"); return ok })
	rows, at, worker, _ := h.obs.Rows("t1", "LANCE")
	if rows != 42 || at.UnixMilli() != 1000 || worker != "w-obs" {
		t.Fatalf("rows %d at %v worker %q", rows, at, worker)
	}
}
