package plugin

import (
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// testWait bounds every wait in these tests: far longer than anything
// should take, so only a real hang trips it (no timing assertions).
const testWait = 20 * time.Second

type harness struct {
	t      testing.TB
	store  *catalog.Store
	db     *persist.DB
	obs    *observe.Store
	reg    *prometheus.Registry // the plugin's metrics; nil: none
	p      *Plugin
	lis    *bufconn.Listener
	srv    *grpc.Server
	conn   *grpc.ClientConn
	token  string
	events <-chan Event

	cancelSub func()
	stop      func() error // ends the plugin's Run
	closeOnce sync.Once
}

// openStore opens the database in dir and the catalog over it; the caller
// closes both (the harness reopens the same directory to restart).
func openStore(t testing.TB, dir string) (*persist.DB, *catalog.Store) {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: persisttest.Path(t, filepath.Join(dir, "catalog.db"))})
	if err != nil {
		t.Fatalf("open database: %v", err)
	}
	migrate(t, db)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("open catalog: %v", err)
	}
	return db, st
}

// migrate applies what floe serve's composition root would for the
// plugin's tests: the catalog's, the observations' and the plugin's
// migrations.
func migrate(t testing.TB, db *persist.DB) {
	t.Helper()
	if err := db.Migrate(context.Background(), catalog.Migrations(), observe.Migrations(), Migrations()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// start loads p and runs it as floe serve's composition root does; stop
// ends Run and returns its error once Run (and every goroutine of the
// plugin) has returned.
func start(t testing.TB, p *Plugin) (stop func() error) {
	t.Helper()
	if err := p.Load(context.Background()); err != nil {
		t.Fatalf("load: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	return newHarnessIn(t, t.TempDir(), opts)
}

func newHarnessIn(t testing.TB, dir string, opts Options) *harness {
	t.Helper()
	return newHarnessWith(t, dir, opts, prometheus.NewRegistry())
}

// newHarnessWith is newHarnessIn recording the plugin's metrics in reg
// (nil: none).
func newHarnessWith(t testing.TB, dir string, opts Options, reg *prometheus.Registry) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, reg: reg}
	var metrics prometheus.Registerer
	if reg != nil {
		metrics = reg
	}
	h.db, h.store = openStore(t, dir)
	var err error
	if h.obs, err = observe.New(h.db, 0); err != nil {
		t.Fatal(err)
	}
	if opts.SchedulerTick == 0 {
		opts.SchedulerTick = 20 * time.Millisecond
	}
	h.p, err = New(Config{DB: h.db, Store: h.store, Observe: h.obs, Logger: quietLogger(),
		LanceURL: "http://127.0.0.1:9101", Metrics: metrics, Options: opts})
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
	if _, h.token, err = h.store.CreateWorkerToken(ctx, "test-worker"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return h
}

// close shuts the harness down (once); tests that restart the console call
// it early.
func (h *harness) close() {
	h.closeOnce.Do(func() {
		t := h.t
		h.conn.Close()
		sctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		if err := h.p.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := h.stop(); err != nil {
			t.Errorf("run: %v", err)
		}
		h.cancelSub()
		h.obs.Close()
		h.store.Close()
		h.db.Close()
	})
}

// connect starts a scripted worker and waits until the registry lists it.
func (h *harness) connect(cfg plugintest.Config) *plugintest.Worker {
	h.t.Helper()
	if cfg.Token == "" {
		cfg.Token = h.token
	}
	w, err := plugintest.Connect(context.Background(), h.conn, cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(w.Close)
	h.waitWorker(cfg.WorkerID, cfg.InstanceID)
	return w
}

func (h *harness) waitWorker(id, instance string) {
	h.t.Helper()
	h.waitUntil("worker "+id+" connected", func() bool {
		s, ok := h.p.reg.get(id)
		return ok && (instance == "" || s.instanceID == instance)
	})
}

// waitUntil re-checks cond after every plugin event (and on a slow poll for
// state that publishes none) until it holds or testWait passes.
func (h *harness) waitUntil(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(testWait)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !cond() {
		select {
		case <-h.events:
		case <-poll.C:
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func capability(jobType, lane string) *pluginpb.Capability {
	return &pluginpb.Capability{JobType: jobType, Lane: lane, CanDetect: true, CanExecute: true,
		MaxDetectSlots: 2, MaxExecuteSlots: 2, DescriptorVersion: "v1", DisplayName: jobType}
}

func ptr[T any](v T) *T { return &v }

func compactDescriptor(version string) *pluginpb.Descriptor {
	return &pluginpb.Descriptor{
		JobType: "lance_compact", DescriptorVersion: version, DisplayName: "Compact",
		Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{{Name: "main", Fields: []*pluginpb.FormField{
			{Name: "target_rows", Label: "Target rows per fragment", Type: pluginpb.FieldType_FIELD_TYPE_INT,
				Min: ptr(1.0), Max: ptr(10_000_000.0), DefaultValue: "1048576", Required: true},
			{Name: "min_fragments", Label: "Minimum small fragments", Type: pluginpb.FieldType_FIELD_TYPE_INT, DefaultValue: "4"},
			{Name: "materialize_deletions", Type: pluginpb.FieldType_FIELD_TYPE_BOOL, DefaultValue: "true"},
		}}}},
		Runtime: &pluginpb.RuntimeDefaults{Enabled: false, DetectionIntervalSeconds: 600, ExecutionTimeoutSeconds: 3600,
			MaxJobsPerDetection: 10, GlobalConcurrency: 4, PerWorkerConcurrency: 2, Retries: 1, RetryBackoffSeconds: 1},
	}
}

func (h *harness) connectB(cfg plugintest.Config) *plugintest.Worker { return h.connect(cfg) }
