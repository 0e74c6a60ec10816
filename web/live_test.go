package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/tasks"
)

// liveWait bounds every wait: far longer than anything should take, so only
// a real hang trips it (no timing assertions).
const liveWait = 20 * time.Second

// liveEnv is a console with a real plugin channel (over bufconn) and task
// service on a real catalog.
type liveEnv struct {
	*env
	p     *plugin.Plugin
	tasks *tasks.Service
	conn  *grpc.ClientConn
	token string
}

type pluginRunner struct{ p *plugin.Plugin }

func (r pluginRunner) SubmitJob(ctx context.Context, typ, obj string, params map[string]string) (string, error) {
	j, err := r.p.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: obj, Parameters: params,
		DedupeKey: "lance-task:" + params["task_id"], Lane: "lance"})
	if errors.Is(err, plugin.ErrDuplicateJob) {
		return j.ID, nil
	}
	return j.ID, err
}

func newLiveEnv(t testing.TB) *liveEnv {
	t.Helper()
	dir := templateCopy(t)
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	return newLiveEnvOn(t, pdb, filepath.Join(dir, "warehouse"), nil)
}

// newLiveEnvOn starts a console with its plugin over an open database and
// warehouse; a bus joins it to the other replicas on the same PostgreSQL.
func newLiveEnvOn(t testing.TB, pdb *persist.DB, warehouse string, bus *notify.Bus) *liveEnv {
	t.Helper()
	ctx := context.Background()
	store, err := catalog.New(pdb, catalog.Options{Warehouse: warehouse})
	if err != nil {
		t.Fatal(err)
	}
	store.CacheReads(bus)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := plugin.New(plugin.Config{DB: pdb, Store: store, Logger: log, Bus: bus, Options: plugin.Options{SchedulerTick: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tasks.New(pdb, store, pluginRunner{p}, log)
	if err != nil {
		t.Fatal(err)
	}
	stats := &fakeStats{m: map[string]handlers.TableStats{}}
	s, err := New(Config{DB: pdb, Store: store, Logger: log, Surfaces: allSurfaces, Stats: stats, Plugin: p, Tasks: ts})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, p, s)
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
		sctx, cancel := context.WithTimeout(context.Background(), liveWait)
		defer cancel()
		_ = p.Shutdown(sctx)
		store.Close()
	})
	return &liveEnv{env: &env{t: t, db: pdb, store: store, srv: srv, stats: stats, server: s}, p: p, tasks: ts, conn: conn, token: token}
}

// lanceWorker connects a scripted worker executing the five Lance job types.
func (e *liveEnv) lanceWorker(onExecute func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed) *plugintest.Worker {
	e.t.Helper()
	var caps []*pluginpb.Capability
	for _, typ := range tasks.Types {
		caps = append(caps, &pluginpb.Capability{JobType: string(typ), Lane: "lance", CanExecute: true, MaxExecuteSlots: 4})
	}
	w, err := plugintest.Connect(context.Background(), e.conn, plugintest.Config{Token: e.token, WorkerID: "w-live",
		Capabilities: caps, OnExecute: onExecute, HeartbeatEvery: time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(w.Close)
	deadline := time.Now().Add(liveWait)
	for {
		if ws := e.p.Snapshot(); len(ws) > 0 && ws[0].Status == plugin.WorkerConnected {
			return w
		}
		if time.Now().After(deadline) {
			e.t.Fatal("worker never connected")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dial opens /live as a browser on this console would.
func (e *liveEnv) dial(query string, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	u := "ws" + strings.TrimPrefix(e.srv.URL, "http") + "/live?" + query
	d := websocket.Dialer{HandshakeTimeout: liveWait}
	return d.Dial(u, hdr)
}

func (e *liveEnv) browser(role catalog.Role) http.Header {
	c := e.sessionCookie("admin", role)
	return http.Header{"Cookie": {c.Name + "=" + c.Value}, "Origin": {e.srv.URL}}
}

// readUntil reads messages until one contains all of want.
func readUntil(t testing.TB, ws *websocket.Conn, want ...string) string {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(liveWait))
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for %q: %v", want, err)
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(string(msg), w)
		}
		if ok {
			return string(msg)
		}
	}
}

func TestLiveRefusals(t *testing.T) {
	e := newLiveEnv(t)
	cookie := e.sessionCookie("admin", catalog.RoleAdmin)
	for _, tc := range []struct {
		name string
		hdr  http.Header
		want int
	}{
		{"no session", http.Header{"Origin": {e.srv.URL}}, http.StatusUnauthorized},
		{"unknown session", http.Header{"Cookie": {cookie.Name + "=forged"}, "Origin": {e.srv.URL}}, http.StatusUnauthorized},
		{"other origin", http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"no origin", http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, resp, err := e.dial("jobs=x", tc.hdr)
			if err == nil {
				ws.Close()
				t.Fatal("upgrade succeeded")
			}
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("status %v, want %d", resp, tc.want)
			}
		})
	}
	t.Run("signed in, same origin", func(t *testing.T) {
		ws, _, err := e.dial("jobs=x", e.browser(catalog.RoleReadonly))
		if err != nil {
			t.Fatal(err)
		}
		ws.Close()
	})
}

func TestLiveCatchUpAndEvents(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	j, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "tbl-1"})
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := e.dial("detail="+j.ID, e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	// Catch-up: the current state arrives without any new event.
	readUntil(t, ws, `id="job-`+j.ID+`"`, `hx-swap-oob="true"`, `data-state="pending"`, `id="job-detail-`+j.ID+`"`, `data-testid="job-cancel"`)
	if _, err := e.p.CancelJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	msg := readUntil(t, ws, `id="job-`+j.ID+`"`, `data-state="canceled"`, `id="job-detail-`+j.ID+`"`)
	if strings.Contains(msg, `data-testid="job-cancel"`) {
		t.Error("a finished job's detail still offers Cancel")
	}
}

func TestLiveProgressReachesClient(t *testing.T) {
	e := newLiveEnv(t)
	release := make(chan struct{})
	e.lanceWorker(func(ctx context.Context, job *pluginpb.JobSpec, progress func(*pluginpb.Progress)) *pluginpb.Completed {
		progress(&pluginpb.Progress{JobId: job.GetJobId(), State: "running", Percent: 42, Stage: "rewriting fragments"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &pluginpb.Completed{JobId: job.GetJobId(), Success: true, Summary: "compacted"}
	})
	e.seed("lbk", catalog.FormatLance, "ns", "t1")
	tb, _ := e.table("lbk", "ns", "t1")
	// The page lists the task (as the Maintenance tab does after the
	// submit's redirect) and follows its row.
	task, err := e.tasks.Submit(context.Background(), tb, tasks.TypeCompact, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := e.dial("table="+tb.ID+"&rows=lance_compact&tasks="+task.ID+"&refresh=1", e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	msg := readUntil(t, ws, "rewriting fragments", `id="task-`+task.ID+`"`)
	if !strings.Contains(msg, `value="42.0"`) {
		t.Errorf("progress fragment without the bar at 42%%: %s", msg)
	}
	close(release)
	readUntil(t, ws, `id="task-`+task.ID+`"`, `data-status="completed"`, `id="table-refresh"`)
}

// TestLiveRowsOnlyForShownTasks: a page is sent the rows of the tasks it
// lists and no other (the task a form's submit just made, pushed to the
// page being left, had no target: htmx:oobErrorNoTarget); a refresh
// reloads the page the subscription names.
func TestLiveRowsOnlyForShownTasks(t *testing.T) {
	c := &liveConn{sub: handlers.LiveSub{Table: "tbl", Rows: "lance_compact", Tasks: []string{"t-shown"}, Refresh: true, Page: handlers.PageMaintenance}}
	for _, tc := range []struct {
		task string
		rows bool
	}{{"t-shown", true}, {"t-new", false}, {"", false}} {
		j := plugin.Job{ID: "j", Type: "lance_compact", ObjectID: "tbl", State: plugin.JobSucceeded, Parameters: map[string]string{"task_id": tc.task}}
		if _, rows, refresh, _ := c.wants(j); rows != tc.rows || !refresh {
			t.Errorf("task %q: rows %v refresh %v, want rows %v and a refresh", tc.task, rows, refresh, tc.rows)
		}
	}
	sub, err := handlers.ParseLiveSub(url.Values{"table": {"tbl"}, "page": {"maintenance"}, "tasks": {"a,b,a"}})
	if err != nil || sub.Page != handlers.PageMaintenance || len(sub.Tasks) != 2 {
		t.Fatalf("ParseLiveSub = %+v, %v", sub, err)
	}
	if _, err := handlers.ParseLiveSub(url.Values{"page": {"/jobs"}}); err == nil {
		t.Fatal("a page other than the table's tabs was accepted")
	}
	if got := handlers.LiveURL(sub); !strings.Contains(got, "page=maintenance") || !strings.Contains(got, "tasks=a%2Cb") {
		t.Fatalf("LiveURL = %s", got)
	}
}

// TestLiveCatchUpRefreshesPanelsRenderedBeforeAJobEnded: a table page's
// control subscribes after the page was rendered; a job on the table that
// ended in between (its refresh went to no socket) is caught up with one
// refresh, of the page the subscription names; a page rendered after the
// job ended gets none (the refresh it causes cannot loop). A bad since= is
// refused.
func TestLiveCatchUpRefreshesPanelsRenderedBeforeAJobEnded(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	e.seed("lbk", catalog.FormatLance, "ns", "t1")
	tb, err := e.table("lbk", "ns", "t1")
	if err != nil {
		t.Fatal(err)
	}
	rendered := time.Now().Add(-time.Second).UnixMilli()
	j, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_cleanup", ObjectID: tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = e.p.CancelJob(ctx, j.ID); err != nil || j.State.Active() || j.FinishedAt.IsZero() {
		t.Fatalf("cancel: %+v, %v", j, err)
	}
	since := func(ms int64) string { return strconv.FormatInt(ms, 10) }

	// Rendered before the job ended: the catch-up reloads the panels.
	ws, _, err := e.dial("table="+tb.ID+"&refresh=1&since="+since(rendered), e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	msg := readUntil(t, ws, `id="table-refresh"`)
	if !strings.Contains(msg, `hx-get="/buckets/lbk/namespaces/ns/tables/t1"`) {
		t.Errorf("catch-up refresh of another page: %s", msg)
	}
	ws.Close()
	ws, _, err = e.dial("table="+tb.ID+"&refresh=1&page=maintenance&since="+since(rendered), e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, ws, `id="table-refresh"`, `hx-get="/buckets/lbk/namespaces/ns/tables/t1/maintenance"`)
	ws.Close()

	// Rendered after it: the catch-up (one message, here the followed job's
	// progress) carries no refresh.
	after := j.FinishedAt.Add(time.Millisecond).UnixMilli()
	ws, _, err = e.dial("table="+tb.ID+"&refresh=1&jobs="+j.ID+"&since="+since(after), e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	msg = readUntil(t, ws, `id="job-`+j.ID+`"`)
	if strings.Contains(msg, "table-refresh") {
		t.Errorf("a page rendered after the job ended was refreshed: %s", msg)
	}
	ws.Close()

	for _, bad := range []string{"soon", "-1", "12345678901234", "1", since(time.Now().Add(48 * time.Hour).UnixMilli())} {
		ws, resp, err := e.dial("table="+tb.ID+"&refresh=1&since="+bad, e.browser(catalog.RoleAdmin))
		if err == nil {
			ws.Close()
			t.Errorf("since=%s accepted", bad)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("since=%s: %v, want 400", bad, resp)
		}
	}
}

// TestLiveSlowClientDropped: a page that stops reading is cut off once its
// queue is full, and the others keep getting every message.
func TestLiveSlowClientDropped(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	slow, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "tbl-1"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_compact", ObjectID: "tbl-2"})
	if err != nil {
		t.Fatal(err)
	}
	// The healthy page watches only the other job: the burst below would
	// fill its queue too if it watched the slow one, and a loaded machine
	// could then rightly drop it as well.
	ws, _, err := e.dial("jobs="+other.ID, e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	readUntil(t, ws, `id="job-`+other.ID+`"`)
	// A stalled page: registered, but no writer drains its queue.
	stalled := &liveConn{sub: handlers.LiveSub{Jobs: []string{slow.ID}}, send: make(chan []byte, liveSendQueue), done: make(chan struct{})}
	if !e.server.live.add(stalled) {
		t.Fatal("hub closed")
	}
	for range liveSendQueue + 1 {
		e.server.live.push(slow, true)
	}
	select {
	case <-stalled.done:
	case <-time.After(liveWait):
		t.Fatal("the stalled connection was not dropped")
	}
	// The healthy page still gets the next real event.
	if _, err := e.p.ExpireJob(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	readUntil(t, ws, `id="job-`+other.ID+`"`, `data-state="expired"`)
}

func TestLiveCloseEndsConnections(t *testing.T) {
	e := newLiveEnv(t)
	ws, _, err := e.dial("jobs=x", e.browser(catalog.RoleAdmin))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	e.server.Close()
	_ = ws.SetReadDeadline(time.Now().Add(liveWait))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			break
		}
	}
	if _, _, err := e.dial("jobs=x", e.browser(catalog.RoleAdmin)); err == nil {
		t.Fatal("a closed console still accepted a live connection")
	}
}

// New starts nothing: a console whose Run has not started pushes no
// events, and when Run's context ends Run closes every live connection
// and returns, with nothing of the hub left running.
func TestLiveRunOwnsTheHub(t *testing.T) {
	e := newLiveEnv(t)
	s, err := New(Config{DB: e.db, Store: e.store, Surfaces: allSurfaces, Plugin: e.p})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	u := "ws" + strings.TrimPrefix(srv.URL, "http") + "/live?jobs=x"
	hdr := e.browser(catalog.RoleAdmin)
	hdr.Set("Origin", srv.URL)
	ws, _, err := (&websocket.Dialer{HandshakeTimeout: liveWait}).Dial(u, hdr)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(liveWait):
		t.Fatal("Run did not return after its context ended")
	}
	_ = ws.SetReadDeadline(time.Now().Add(liveWait))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			break // closed by Run
		}
	}
	if _, _, err := (&websocket.Dialer{HandshakeTimeout: liveWait}).Dial(u, hdr); err == nil {
		t.Fatal("a console whose Run ended still accepted a live connection")
	}
}
