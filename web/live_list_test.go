package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/plugin"
)

// TestLiveListReloadsWhenAListedTableJobEnds: a namespace list with health
// and workers follows its tables; when a job on one of them ends (a bulk
// Fix's), the page is told to reload its table list in place — also when
// the job ended between the render and the socket (catch-up). Before, the
// list's badges stayed as rendered until someone reloaded it.
func TestLiveListReloadsWhenAListedTableJobEnds(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("lst", catalog.FormatLance, "ns", "t1", "t2")
	t1, _ := e.table("lst", "ns", "t1")
	t2, _ := e.table("lst", "ns", "t2")
	r := e.get(e.admin(), "/buckets/lst/namespaces/ns?sort=name")
	connect, ok := r.doc.Find(`[data-testid="list-live"]`).Attr("ws-connect")
	if !ok || r.doc.Find(`#table-list [data-testid="table-row"]`).Length() != 2 || r.doc.Find(`[data-testid="list-live"] #list-refresh`).Length() != 1 {
		t.Fatalf("the list has no live socket around its refresh slot:\n%s", r.body)
	}
	q, err := url.ParseQuery(strings.TrimPrefix(connect, "/live?"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := handlers.ParseLiveSub(q)
	if err != nil || sub.List != "/buckets/lst/namespaces/ns?sort=name" || !slices.Contains(sub.Tables, t1.ID) || !slices.Contains(sub.Tables, t2.ID) || sub.Since.IsZero() {
		t.Fatalf("the list follows %+v (%v)", sub, err)
	}
	c := e.sessionCookie("admin", catalog.RoleAdmin)
	hdr := http.Header{"Cookie": {c.Name + "=" + c.Value}, "Origin": {e.srv.URL}}
	dial := func(query string) *websocket.Conn {
		t.Helper()
		d := websocket.Dialer{HandshakeTimeout: workerWait}
		ws, _, err := d.Dial("ws"+strings.TrimPrefix(e.srv.URL, "http")+"/live?"+query, hdr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		return ws
	}
	ctx := context.Background()
	end := func(tableID string) {
		t.Helper()
		j, err := e.p.SubmitJob(ctx, plugin.JobSpec{Type: "lance_cleanup", ObjectID: tableID})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.p.CancelJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`id="list-refresh"`, `hx-swap-oob="true"`, `hx-get="/buckets/lst/namespaces/ns?sort=name"`, `hx-select="#table-list"`}

	end(t1.ID) // after the render, before the socket: the catch-up reloads
	readUntil(t, dial(strings.TrimPrefix(connect, "/live?")), want...)

	fresh := handlers.LiveSub{List: sub.List, Tables: sub.Tables, Since: time.Now().Add(time.Second)}
	ws := dial(strings.TrimPrefix(handlers.LiveURL(fresh), "/live?"))
	end(t2.ID)
	readUntil(t, ws, want...)
}

// TestLiveListSubscription: list= is only ever a namespace page of this
// console, tables= comes with it, and a list is not also a table page.
func TestLiveListSubscription(t *testing.T) {
	for _, bad := range []url.Values{
		{"list": {"https://evil.example/buckets/a/namespaces/b"}},
		{"list": {"//evil.example/buckets/a/namespaces/b"}},
		{"list": {"/jobs"}},
		{"list": {"/buckets/a"}},
		{"list": {`/buckets/a/namespaces/b\x`}},
		{"tables": {"t1"}},
		{"list": {"/buckets/a/namespaces/b"}, "table": {"t1"}},
	} {
		if _, err := handlers.ParseLiveSub(bad); err == nil {
			t.Errorf("ParseLiveSub(%v) accepted", bad)
		}
	}
	sub, err := handlers.ParseLiveSub(url.Values{"list": {"/buckets/a/namespaces/b?q=x&sort=rows"}, "tables": {"t1,t2,t1"}})
	if err != nil || len(sub.Tables) != 2 {
		t.Fatalf("ParseLiveSub = %+v, %v", sub, err)
	}
	done := plugin.Job{ObjectID: "t2", State: plugin.JobSucceeded}
	if !handlers.ListWants(sub, done) {
		t.Error("a finished job on a listed table does not reload the list")
	}
	if running := (plugin.Job{ObjectID: "t2", State: plugin.JobRunning}); handlers.ListWants(sub, running) {
		t.Error("a running job reloads the list")
	}
	if elsewhere := (plugin.Job{ObjectID: "t9", State: plugin.JobSucceeded}); handlers.ListWants(sub, elsewhere) {
		t.Error("a job on a table the list does not show reloads it")
	}
}
