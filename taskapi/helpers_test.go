package taskapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/tasks"
)

// env is a served task API over a real catalog in a temp dir.
type env struct {
	t      testing.TB
	db     *persist.DB
	store  *catalog.Store
	svc    *tasks.Service
	runner *fakeRunner
	srv    *httptest.Server
	table  catalog.Table // mybucket: ns$tbl (LANCE)
	rw     string        // readwrite key for every bucket
	ro     string        // readonly key for every bucket
	other  string        // readwrite key scoped to another bucket
}

type envOpts struct {
	anonymous bool
	noRunner  bool
	// log receives the surface's log (the edge's access lines included).
	log io.Writer
	// metrics counts the surface's requests.
	metrics *edge.Metrics
	// panics adds a route that panics: GET /lance/oss/v1/table/{id}/panic.
	panics bool
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	dir := t.TempDir()
	pdb := persisttest.OpenAt(t, filepath.Join(dir, "catalog.db"), dbschema.All()...)
	store, err := catalog.New(pdb, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatalf("catalog.New: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	e := &env{t: t, db: pdb, store: store, runner: &fakeRunner{}}
	var runner tasks.JobRunner = e.runner
	if o.noRunner {
		runner = nil
	}
	if e.svc, err = tasks.New(pdb, store, runner, nil); err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	e.table = e.lanceTable("mybucket", "ns", "tbl")
	e.rw = e.key(catalog.RoleReadWrite, "")
	e.ro = e.key(catalog.RoleReadonly, "")
	e.other = e.key(catalog.RoleReadWrite, "otherbucket")
	cfg := Config{Store: store, Tasks: e.svc, Anonymous: o.anonymous, Metrics: o.metrics}
	if o.log != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(o.log, nil))
	}
	h := New(cfg)
	if o.panics {
		h.(*edge.Surface).HandleFunc("GET "+Prefix+"table/{id}/panic", func(http.ResponseWriter, *http.Request) {
			panic("secret internal state /var/lib/floe")
		})
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) key(role catalog.Role, bucket string) string {
	e.t.Helper()
	_, secret, err := e.store.CreateAPIKey(context.Background(), "test", role, bucket, 0)
	if err != nil {
		e.t.Fatalf("CreateAPIKey: %v", err)
	}
	return secret
}

func (e *env) lanceTable(bucket, ns, name string) catalog.Table {
	e.t.Helper()
	return e.table2(bucket, catalog.FormatLance, ns, name, catalog.FormatLance)
}

func (e *env) table2(bucket string, bf catalog.Format, ns, name string, tf catalog.Format) catalog.Table {
	e.t.Helper()
	ctx := context.Background()
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: bucket, Format: bf}); err != nil && !errors.Is(err, fault.AlreadyExists) {
		e.t.Fatalf("CreateBucket: %v", err)
	}
	if _, err := e.store.CreateNamespace(ctx, bucket, []string{ns}, nil); err != nil && !errors.Is(err, fault.AlreadyExists) {
		e.t.Fatalf("CreateNamespace: %v", err)
	}
	tb, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{
		TableRef: catalog.TableRef{Bucket: bucket, Namespace: []string{ns}, Name: name}, Format: tf})
	if err != nil {
		e.t.Fatalf("CreateTable: %v", err)
	}
	return tb
}

// call is one request; zero fields take the defaults.
type call struct {
	method string
	path   string // after /lance/oss/v1
	body   string
	host   string // default mybucket.localhost
	key    string // default the readwrite key; "-" sends none
	header map[string]string
}

type reply struct {
	status statusCode
	header http.Header
	body   []byte
}

func (e *env) do(c call) reply {
	e.t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+"/lance/oss/v1"+c.path, body)
	if err != nil {
		e.t.Fatalf("NewRequest: %v", err)
	}
	req.Host = "mybucket.localhost"
	if c.host != "" {
		req.Host = c.host
	}
	switch c.key {
	case "":
		req.Header.Set("x-api-key", e.rw)
	case "-":
	default:
		req.Header.Set("x-api-key", c.key)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("read body: %v", err)
	}
	return reply{status: statusCode(resp.StatusCode), header: resp.Header, body: b}
}

// wantError checks an error answer: status, name, code and the instance
// matching the request id header.
func (r reply) wantError(t testing.TB, status int, name string, code int) errorBody {
	t.Helper()
	var eb errorBody
	if err := json.Unmarshal(r.body, &eb); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	if int(r.status) != status || eb.Error != name || eb.Code != code {
		t.Fatalf("got %d %s/%d (%s), want %d %s/%d", r.status, eb.Error, eb.Code, eb.Detail, status, name, code)
	}
	if eb.Instance == "" || eb.Instance != r.header.Get("x-oss-request-id") || eb.Detail == "" {
		t.Fatalf("instance %q, request id %q, detail %q", eb.Instance, r.header.Get("x-oss-request-id"), eb.Detail)
	}
	if r.header.Get("x-oss-table-id") != "" {
		t.Fatal("an error carries x-oss-table-id")
	}
	return eb
}

// wantOK checks a JSON success for the table and decodes it.
func (r reply) wantOK(t testing.TB, tableID string, into any) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if got := r.header.Get("x-oss-table-id"); got != tableID {
		t.Fatalf("x-oss-table-id = %q, want %q", got, tableID)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q", ct)
	}
	if into != nil {
		if err := json.Unmarshal(r.body, into); err != nil {
			t.Fatalf("decode %s: %v", r.body, err)
		}
	}
}

// submit posts a body and returns the task id.
func (e *env) submit(op, body string) string {
	e.t.Helper()
	var out struct {
		TaskID string `json:"task_id"`
	}
	e.do(call{method: "POST", path: "/table/ns$tbl/" + op, body: body}).wantOK(e.t, e.table.ID, &out)
	if !tasks.ValidTaskID(out.TaskID) {
		e.t.Fatalf("task_id %q", out.TaskID)
	}
	return out.TaskID
}

type infoReply struct {
	TaskInfo map[string]any `json:"task_info"`
}

func (e *env) get(id string) map[string]any {
	e.t.Helper()
	var out infoReply
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks/" + id}).wantOK(e.t, e.table.ID, &out)
	return out.TaskInfo
}

func (e *env) jobOf(taskID string) string {
	e.t.Helper()
	task, err := e.svc.Get(context.Background(), e.table.ID, taskID)
	if err != nil {
		e.t.Fatalf("Get: %v", err)
	}
	return task.JobID
}

func (e *env) update(u tasks.JobUpdate) {
	e.t.Helper()
	if ok, err := e.svc.OnJobUpdate(context.Background(), u); !ok || err != nil {
		e.t.Fatalf("OnJobUpdate(%+v) = %v, %v", u, ok, err)
	}
}

// fill stores n tasks straight in SQL, a microsecond apart, pairs sharing a
// created_at so the id tie-break is exercised too.
func (e *env) fill(tableID string, typ tasks.Type, n int) {
	e.t.Helper()
	_, err := e.db.ExecContext(context.Background(), `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
		INSERT INTO lance_tasks (id, table_id, task_type, params, status, created_at)
		SELECT lower(hex(randomblob(16))), ?, ?, '{}', 'completed', 1700000000000000 + i / 2 FROM seq`, n, tableID, string(typ))
	if err != nil {
		e.t.Fatalf("fill: %v", err)
	}
}

type fakeRunner struct {
	mu sync.Mutex
	n  int
}

func (f *fakeRunner) SubmitJob(ctx context.Context, jobType, objectID string, params map[string]string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return jobType + "-" + params["task_id"], nil
}

type statusCode int

func (s statusCode) wantNoContent(t testing.TB) {
	t.Helper()
	if s != http.StatusNoContent {
		t.Fatalf("status %d, want 204", s)
	}
}
