package web

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/preview"
)

// workerWait bounds every wait for a worker: far longer than anything
// should take, so only a real hang trips it.
const workerWait = 20 * time.Second

// workerEnv is a console with a real plugin channel (over bufconn), a real
// observation store and preview broker, on a catalog in a temp dir.
type workerEnv struct {
	*env
	p     *plugin.Plugin
	obs   *observe.Store
	conn  *grpc.ClientConn
	token string
}

func newWorkerEnv(t testing.TB, opts plugin.Options) *workerEnv {
	t.Helper()
	dir := templateCopy(t)
	ctx := context.Background()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts.DisableScheduler = true // tests press Run detection / Run now themselves
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: log, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{DB: pdb, Store: store, Logger: log, Surfaces: allSurfaces, Plugin: p, Observe: obs,
		Preview: preview.New(p, obs), Stats: handlers.StatsFromRows(obs)})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p, s)
	srv := httptest.NewServer(s.Handler())
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	p.Register(gs)
	go gs.Serve(lis)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := store.CreateWorkerToken(ctx, "test-worker")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		srv.Close()
		conn.Close()
		sctx, cancel := context.WithTimeout(context.Background(), workerWait)
		defer cancel()
		_ = p.Shutdown(sctx)
		obs.Close()
		store.Close()
	})
	return &workerEnv{env: &env{t: t, db: pdb, store: store, srv: srv, server: s, stats: &fakeStats{m: map[string]handlers.TableStats{}}},
		p: p, obs: obs, conn: conn, token: token}
}

// worker connects a scripted worker and waits until the registry lists it
// as connected.
func (e *workerEnv) worker(cfg plugintest.Config) *plugintest.Worker {
	e.t.Helper()
	cfg.Token = e.token
	w, err := plugintest.Connect(context.Background(), e.conn, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(w.Close)
	e.waitFor("worker "+cfg.WorkerID+" connected", func() bool {
		wi, ok := e.p.Worker(cfg.WorkerID)
		return ok && wi.Status == plugin.WorkerConnected
	})
	return w
}

// waitFor polls cond until it holds or workerWait passes.
func (e *workerEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(workerWait)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lanceTable declares bucket/ns/name and returns it.
func (e *workerEnv) lanceTable(bucket, ns, name string) catalog.Table {
	e.t.Helper()
	e.seed(bucket, catalog.FormatLance, ns, name)
	t, err := e.table(bucket, ns, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}
