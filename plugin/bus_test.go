package plugin

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// newReplica builds one replica's plugin on the shared PostgreSQL database
// dsn and warehouse dir, with its own bus, as `floe serve` does.
func newReplica(t *testing.T, dsn, warehouse, name string, opts Options) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t}
	var err error
	if h.db, err = persist.Open(ctx, persist.Options{Path: dsn}); err != nil {
		t.Fatal(err)
	}
	migrate(t, h.db)
	if h.store, err = catalog.New(h.db, catalog.Options{Warehouse: warehouse}); err != nil {
		t.Fatal(err)
	}
	if h.obs, err = observe.New(h.db, 0); err != nil {
		t.Fatal(err)
	}
	bus := notify.New(h.db, notify.Options{Replica: name, Logger: quietLogger()})
	runtest.Start(t, bus)
	select {
	case <-bus.Listening():
	case <-time.After(testWait):
		t.Fatal("bus never listened")
	}
	if opts.SchedulerTick == 0 {
		opts.SchedulerTick = 20 * time.Millisecond
	}
	h.p, err = New(Config{DB: h.db, Store: h.store, Observe: h.obs, Logger: quietLogger(),
		LanceURL: "http://127.0.0.1:9101", Bus: bus, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	h.stop = start(t, h.p)
	h.events, h.cancelSub = h.p.Subscribe()
	h.lis = bufconn.Listen(1 << 20)
	h.srv = grpc.NewServer()
	h.p.Register(h.srv)
	go h.srv.Serve(h.lis)
	h.conn, err = grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return h.lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	if _, h.token, err = h.store.CreateWorkerToken(ctx, "worker-"+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.close(); bus.Close() })
	return h
}

// TestJobProgressCrossesReplicas: a job running on replica A's worker shows
// its progress and its end to a subscriber of replica B, re-read from the
// shared database; neither replica hears its own events back as remote.
func TestJobProgressCrossesReplicas(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a := newReplica(t, dsn, wh, "A", Options{})
	b := newReplica(t, dsn, wh, "B", Options{DisableScheduler: true})
	onB, stopB := b.p.Subscribe()
	defer stopB()

	release := make(chan struct{})
	a.connect(plugintest.Config{WorkerID: "w1", HeartbeatEvery: 20 * time.Millisecond,
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")},
		OnExecute: func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
			progress(&pluginpb.Progress{JobId: job.GetJobId(), Percent: 42, Stage: "rewriting fragments"})
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &pluginpb.Completed{Success: true, Summary: "compacted"}
		},
	})
	j, err := a.p.SubmitJob(context.Background(), JobSpec{Type: "lance_compact", ObjectID: "t1"})
	if err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		what string
		ok   func(Job) bool
	}{
		{"progress 42% on B", func(g Job) bool { return g.State == JobRunning && g.Percent == 42 && g.Stage == "rewriting fragments" }},
		{"success on B", func(g Job) bool { return g.State == JobSucceeded && g.ResultSummary == "compacted" }},
	}
	deadline := time.After(testWait)
	for i, step := range steps {
		if i == 1 {
			close(release)
		}
	wait:
		for {
			select {
			case ev := <-onB:
				if ev.Kind == EventJob && ev.Job.ID == j.ID && ev.Remote && step.ok(ev.Job) {
					break wait
				}
			case <-deadline:
				t.Fatalf("timed out waiting for %s", step.what)
			}
		}
	}
	// A heard its own job only locally.
	for {
		select {
		case ev := <-a.events:
			if ev.Remote && ev.Kind == EventJob && ev.Job.ID == j.ID {
				t.Fatalf("replica A received its own job event back: %+v", ev)
			}
		default:
			return
		}
	}
}

// TestJobTypeSettingsCrossReplicas: settings saved on A reach B's forms and
// scheduler through the bus and a reload, not only after a restart.
func TestJobTypeSettingsCrossReplicas(t *testing.T) {
	dsn, dir := pgtest.DSN(t), t.TempDir()
	wh := filepath.Join(dir, "warehouse")
	a := newReplica(t, dsn, wh, "A", Options{DisableScheduler: true})
	b := newReplica(t, dsn, wh, "B", Options{DisableScheduler: true})
	a.connect(plugintest.Config{WorkerID: "w1",
		Capabilities: []*pluginpb.Capability{capability("lance_compact", "lance")},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_compact": compactDescriptor("v1")}})
	a.waitUntil("settings on A", func() bool { s, err := a.p.Settings("lance_compact"); return err == nil && s.Stored })
	set, _ := a.p.Settings("lance_compact")
	set.Values["min_fragments"] = "9"
	if _, fe, err := a.p.SaveSettings(context.Background(), "lance_compact", set.Values, set.Runtime); err != nil || fe != nil {
		t.Fatal(fe, err)
	}
	b.waitUntil("settings on B", func() bool {
		s, err := b.p.Settings("lance_compact")
		return err == nil && s.Values["min_fragments"] == "9"
	})
	if _, ok := b.p.Descriptor("lance_compact"); !ok {
		t.Fatal("B has no descriptor for a job type A's worker described")
	}
}
