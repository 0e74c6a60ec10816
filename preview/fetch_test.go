package preview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

const testWait = 20 * time.Second

type env struct {
	t     *testing.T
	p     *plugin.Plugin
	obs   *observe.Store
	b     *Broker
	conn  *grpc.ClientConn
	token string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "c.db"), dbschema.All()...)
	return newEnvOn(t, pdb, filepath.Join(dir, "wh"))
}

// newEnvOn builds a replica's plugin, observations and broker over an open
// database and warehouse.
func newEnvOn(t *testing.T, pdb *persist.DB, wh string) *env {
	t.Helper()
	store, err := catalog.New(pdb, catalog.Options{Warehouse: wh})
	if err != nil {
		t.Fatal(err)
	}
	obs, err := observe.New(pdb, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Observe: obs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options: plugin.Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, obs, p)
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	p.Register(srv)
	go srv.Serve(lis)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := store.CreateWorkerToken(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		_ = p.Shutdown(ctx)
		obs.Close()
		store.Close()
	})
	return &env{t: t, p: p, obs: obs, b: New(p, obs), conn: conn, token: token}
}

func (e *env) worker(id string, onPreview func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone)) *plugintest.Worker {
	e.t.Helper()
	w, err := plugintest.Connect(context.Background(), e.conn, plugintest.Config{Token: e.token, WorkerID: id,
		PreviewFormats: []string{"LANCE"}, OnPreview: onPreview})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(w.Close)
	deadline := time.Now().Add(testWait)
	for !e.p.Connected(id) {
		if time.Now().After(deadline) {
			e.t.Fatalf("worker %s never registered", id)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return w
}

func (e *env) observed(objectID, workerID string) {
	if _, err := e.obs.Put(observe.Observation{ObjectID: objectID, Format: catalog.FormatLance, ObservedAt: time.Now(),
		WorkerID: workerID, Attributes: []byte(`{"rows":3}`)}); err != nil {
		e.t.Fatal(err)
	}
}

func TestFetch(t *testing.T) {
	e := newEnv(t)
	ipc := allTypesIPC(t, 260)
	var asked sync.Map
	serve := func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
		asked.Store(p.GetObjectId(), p)
		return plugintest.Split(ipc, 64<<10), &pluginpb.PreviewDone{TotalRows: 1000, RowsSent: 260}
	}
	e.worker("w-observer", serve)
	e.worker("w-other", serve)
	e.observed("t1", "w-observer")

	res, err := e.b.Fetch(context.Background(), Request{ObjectID: "t1", Format: catalog.FormatLance, RowLimit: 500,
		Columns: []string{"i8", "vec"}, Filter: "i32 > 3"})
	if err != nil {
		t.Fatal(err)
	}
	if res.WorkerID != "w-observer" || res.RowsRead != MaxRowLimit || !res.Truncated || res.TotalRows != 1000 {
		t.Fatalf("result: worker %s rows %d truncated %v total %d", res.WorkerID, res.RowsRead, res.Truncated, res.TotalRows)
	}
	v, _ := asked.Load("t1")
	req := v.(*pluginpb.Preview)
	if req.GetRowLimit() != MaxRowLimit || req.GetFilter() != "i32 > 3" || !slices.Equal(req.GetColumns(), []string{"i8", "vec"}) ||
		req.GetCluster().GetApiKey() == "" {
		t.Fatalf("request sent: %v", req)
	}
	res, err = e.b.Fetch(context.Background(), Request{ObjectID: "t1", Format: catalog.FormatLance})
	if err != nil || res.RowsRead != DefaultRowLimit {
		t.Fatalf("default limit: %v %v", res.RowsRead, err)
	}
	// Never observed: any worker advertising the format answers.
	res, err = e.b.Fetch(context.Background(), Request{ObjectID: "unseen", Format: catalog.FormatLance, RowLimit: 5})
	if err != nil || res.RowsRead != 5 {
		t.Fatalf("fallback worker: %v", err)
	}
}

func TestFetchErrors(t *testing.T) {
	e := newEnv(t)
	t.Run("no worker has seen the table", func(t *testing.T) {
		_, err := e.b.Fetch(context.Background(), Request{ObjectID: "t", Format: catalog.FormatIceberg})
		assertKind(t, err, ErrNotObserved)
	})
	t.Run("that worker is gone", func(t *testing.T) {
		e.observed("t-gone", "w-gone")
		_, err := e.b.Fetch(context.Background(), Request{ObjectID: "t-gone", Format: catalog.FormatLance})
		assertKind(t, err, ErrWorkerGone)
	})
	// The worker's own message is quoted as one sentence: a full stop is
	// added only when it has none, so the page never reads "..".
	for i, tc := range []struct{ name, sent, quoted string }{
		{"worker's own error", "dataset not found", "dataset not found."},
		{"worker's own error ending in a period", "Dataset not found at /wh/t.", "Dataset not found at /wh/t."},
		{"worker's own error ending in a question", "is the table locked?", "is the table locked?"},
		{"worker's own error with trailing space", "dataset not found.\n", "dataset not found."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("w-err-%d", i)
			e.worker(id, func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
				return nil, &pluginpb.PreviewDone{Error: tc.sent}
			})
			obj := fmt.Sprintf("t-err-%d", i)
			e.observed(obj, id)
			_, err := e.b.Fetch(context.Background(), Request{ObjectID: obj, Format: catalog.FormatLance})
			assertKind(t, err, ErrWorker)
			pe, _ := fault.As(err)

			want := "Worker " + id + " could not read the table: " + tc.quoted + " Check the worker's log"
			if !strings.HasPrefix(pe.Message, want) {
				t.Errorf("message = %q, want it to start %q", pe.Message, want)
			}
			if strings.Contains(pe.Message, "..") {
				t.Errorf("message has a double full stop: %q", pe.Message)
			}
		})
	}
	t.Run("a filter the engine refuses", func(t *testing.T) {
		e.worker("w-filter", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			if p.GetFilter() != "" {
				return nil, &pluginpb.PreviewDone{Error: "Invalid filter: syntax error near '==='"}
			}
			return nil, &pluginpb.PreviewDone{}
		})
		e.observed("t-filter", "w-filter")
		_, err := e.b.Fetch(context.Background(), Request{ObjectID: "t-filter", Format: catalog.FormatLance, Filter: "id ==="})
		assertKind(t, err, ErrBadFilter)
		if !strings.Contains(err.Error(), "Invalid filter: syntax error near '==='.") {
			t.Errorf("message %q does not quote the engine", err.Error())
		}
		_, err = e.b.Fetch(context.Background(), Request{ObjectID: "t-err-0", Format: catalog.FormatLance, Filter: "id > 1"})
		assertKind(t, err, ErrWorker) // fails without the filter too: the worker's fault
	})
	t.Run("too large", func(t *testing.T) {
		big := allTypesIPC(t, 50)
		e.worker("w-big", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			return plugintest.Split(big, 16<<10), &pluginpb.PreviewDone{}
		})
		e.observed("t-big", "w-big")
		b := New(e.p, e.obs)
		b.maxBytes = 32 << 10
		_, err := b.Fetch(context.Background(), Request{ObjectID: "t-big", Format: catalog.FormatLance})
		assertKind(t, err, ErrTooLarge)
	})
	t.Run("timeout and browser gone send Cancel", func(t *testing.T) {
		started := make(chan struct{}, 2)
		w := e.worker("w-slow", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, nil
		})
		e.observed("t-slow", "w-slow")
		b := New(e.p, e.obs)
		b.timeout = 50 * time.Millisecond // the deadline is what is tested, not how long it takes
		_, err := b.Fetch(context.Background(), Request{ObjectID: "t-slow", Format: catalog.FormatLance})
		assertKind(t, err, ErrTimeout)

		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := e.b.Fetch(ctx, Request{ObjectID: "t-slow", Format: catalog.FormatLance})
			errc <- err
		}()
		<-started
		<-started
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("browser gone: %v", err)
		}
		wctx, wcancel := context.WithTimeout(context.Background(), testWait)
		defer wcancel()
		if err := w.WaitFor(wctx, func([]*pluginpb.ConsoleMessage) bool { return len(w.Cancels()) >= 2 }); err != nil {
			t.Fatalf("cancels reaching the worker: %d (%v)", len(w.Cancels()), err)
		}
	})
	t.Run("worker disconnects mid-preview", func(t *testing.T) {
		started := make(chan struct{})
		w := e.worker("w-drop", func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			close(started)
			<-ctx.Done()
			return nil, nil
		})
		e.observed("t-drop", "w-drop")
		errc := make(chan error, 1)
		go func() {
			_, err := e.b.Fetch(context.Background(), Request{ObjectID: "t-drop", Format: catalog.FormatLance})
			errc <- err
		}()
		<-started
		go w.Close()
		assertKind(t, <-errc, ErrWorkerGone)
	})
}

func assertKind(t *testing.T, err error, kind error) {
	t.Helper()
	pe, ok := fault.As(err)
	if !errors.Is(err, kind) || !ok || pe.Message == "" {
		t.Fatalf("err = %v, want kind %v with a sentence", err, kind)
	}
}

// TestConcurrentPreviews runs previews while workers reconnect.
func TestConcurrentPreviews(t *testing.T) {
	e := newEnv(t)
	ipc := allTypesIPC(t, 20)
	serve := func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
		return [][]byte{ipc}, &pluginpb.PreviewDone{TotalRows: 20}
	}
	e.worker("stable", serve)
	e.observed("t", "stable")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 20 {
				res, err := e.b.Fetch(context.Background(), Request{ObjectID: "t", Format: catalog.FormatLance, RowLimit: 10})
				if err != nil || res.RowsRead != 10 {
					t.Errorf("preview %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for n := range 10 {
			w, err := plugintest.Connect(context.Background(), e.conn, plugintest.Config{Token: e.token,
				WorkerID: fmt.Sprintf("flappy-%d", n%2), PreviewFormats: []string{"LANCE"}, OnPreview: serve})
			if err != nil {
				t.Error(err)
				return
			}
			w.Close()
		}
	})
	wg.Wait()
}

func TestEndSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"dataset not found", "dataset not found."},
		{"dataset not found.", "dataset not found."},
		{"really?", "really?"},
		{"stop!", "stop!"},
		{"  padded.  ", "padded."},
		{"", "no reason given."},
		{" \n", "no reason given."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := endSentence(tt.in); got != tt.want {
				t.Errorf("endSentence(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
