package lancerest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/internal/lancetest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
)

// indexedManifest is lancemeta's fixture: a LanceDB 0.39 table of 740 live
// rows in three fragments with five indices (see lancemeta/indices_test.go
// for what LanceDB's own calls answered for it).
func indexedManifest(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../lancemeta/testdata/indexed.manifest")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeManifest writes a manifest file as version v of the dataset.
func writeManifest(t *testing.T, location string, v uint64, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(location, "_versions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(location, "_versions", v2(v)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeTasks plays the task service: it keeps what was submitted and
// answers a task linked to a job, or the error the test sets.
type fakeTasks struct {
	mu    sync.Mutex
	typ   tasks.Type
	body  string
	err   error
	noJob bool
	by    identity.Principal // who the context says submits
}

func (f *fakeTasks) Submit(ctx context.Context, _ catalog.Table, typ tasks.Type, body []byte) (tasks.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typ, f.body = typ, string(body)
	f.by, _ = identity.FromContext(ctx)
	if f.err != nil {
		return tasks.Task{}, f.err
	}
	t := tasks.Task{ID: "0123456789abcdef0123456789abcdef", JobID: "job-7"}
	if f.noJob {
		t.JobID = ""
	}
	return t, nil
}

func statsEnv(t *testing.T) (*testEnv, *fakeTasks, *fakeJobs) {
	e := newTestEnv(t, false)
	ft := &fakeTasks{}
	fj := &fakeJobs{worker: true, end: plugin.JobSucceeded}
	e.srv = httptest.NewServer(New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Jobs: fj, Tasks: ft}).Handler())
	t.Cleanup(e.srv.Close)
	e.seed()
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	loc := filepath.Join(e.warehouse, "lnc", "ns", "t1.lance")
	writeManifest(t, loc, 1, lancetest.Manifest(1, 10))
	writeManifest(t, loc, 2, indexedManifest(t))
	e.must("POST", "/v1/table/lnc$ns$empty/declare", "")
	return e, ft, fj
}

// TestStatsAndCountFromTheManifest: GetTableStats and CountTableRows answer
// LanceDB 0.39's figures for the same version (lancemeta's fixture).
func TestStatsAndCountFromTheManifest(t *testing.T) {
	e, _, _ := statsEnv(t)
	t1 := "/v1/table/lnc$ns$t1"
	e.run(t, []step{
		{name: "stats", path: t1 + "/stats", body: `{"id":["lnc","ns","t1"]}`, status: 200, code: -1, want: []string{
			`{"total_bytes":111274,"num_rows":740,"num_indices":5,"fragment_stats":{"num_fragments":3,"num_small_fragments":3,` +
				`"lengths":{"min":50,"max":600,"mean":250,"p25":50,"p50":100,"p75":600,"p99":600}}}`}},
		{name: "stats without a body", path: t1 + "/stats", status: 200, code: -1, want: []string{`"num_rows":740`}},
		{name: "stats of a declared table", path: "/v1/table/lnc$ns$empty/stats", status: 200, code: -1, want: []string{`"num_rows":0,"num_indices":0`}},
		{name: "stats by a readonly key", path: t1 + "/stats", key: "ro", status: 200, code: -1},
		{name: "stats of another branch", path: t1 + "/stats", body: `{"branch":"dev"}`, status: 406, code: 0},
		{name: "stats of a missing table", path: "/v1/table/lnc$ns$nope/stats", status: 404, code: 4},
		{name: "stats of an Iceberg table", path: "/v1/table/mix$ns$ice/stats", status: 404, code: 4},
		{name: "stats without a key", path: t1 + "/stats", key: "none", status: 401, code: 16},
		{name: "stats with another id", path: t1 + "/stats", body: `{"id":["lnc","ns","t2"]}`, status: 400, code: 13},
		{name: "count", path: t1 + "/count_rows", body: `{}`, status: 200, code: -1, want: []string{"740"}},
		{name: "count of version 1", path: t1 + "/count_rows", body: `{"version":1}`, status: 200, code: -1, want: []string{"10"}},
		{name: "count of a missing version", path: t1 + "/count_rows", body: `{"version":5}`, status: 404, code: 11},
		{name: "count of a negative version", path: t1 + "/count_rows", body: `{"version":-1}`, status: 400, code: 13},
		{name: "count of a declared table", path: "/v1/table/lnc$ns$empty/count_rows", status: 200, code: -1, want: []string{"0"}},
		{name: "count with a predicate", path: t1 + "/count_rows", body: `{"predicate":"id > 3"}`, status: 406, code: 0, want: []string{"scan"}},
		{name: "count with a wrong type", path: t1 + "/count_rows", body: `{"version":"1"}`, status: 400, code: 13},
	})
	// The count is a bare integer, as the spec's REST binding answers it.
	if r := e.must("POST", t1+"/count_rows", ""); string(r.body) != "740" || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("count_rows body %q, content type %q", r.body, r.header.Get("Content-Type"))
	}
	// A damaged manifest is a server fault whose answer names no path.
	writeManifest(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), 3, []byte("not a manifest at all, but long enough"))
	e.run(t, []step{{name: "damaged manifest", path: t1 + "/stats", status: 500, code: 18, notWant: []string{e.warehouse, "_versions"}}})
}

// TestIndexListAndStats: ListTableIndices and DescribeTableIndexStats
// answer what LanceDB 0.39's listIndices() and indexStats() answered.
func TestIndexListAndStats(t *testing.T) {
	e, _, _ := statsEnv(t)
	t1 := "/v1/table/lnc$ns$t1"
	r := e.must("POST", t1+"/index/list", `{}`)
	var list struct {
		Indexes []map[string]any `json:"indexes"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Indexes) != 5 {
		t.Fatalf("indexes = %s", r.body)
	}
	vec := list.Indexes[4]
	for k, want := range map[string]any{
		"index_name": "vec_idx", "index_uuid": "1f84f10a-b0d9-45f2-adbb-4862eee2e9a6", "status": "SUCCEEDED",
		"index_type": "IVF_PQ", "type_url": "/lance.index.pb.VectorIndexDetails", "num_indexed_rows": 690.0,
		"num_unindexed_rows": 50.0, "size_bytes": 15172.0, "num_segments": 1.0, "created_at": "2026-12-01T22:45:09.978Z",
		"index_version": 1.0,
	} {
		if vec[k] != want {
			t.Errorf("%s = %v, want %v", k, vec[k], want)
		}
	}
	if cols, _ := vec["columns"].([]any); len(cols) != 1 || cols[0] != "vec" {
		t.Errorf("columns = %v", vec["columns"])
	}
	e.run(t, []step{
		{name: "first page", path: t1 + "/index/list?limit=2", status: 200, code: -1, want: []string{`"page_token":"name_idx"`, `"id_idx"`}, notWant: []string{"tags_idx"}},
		{name: "next page", path: t1 + "/index/list", body: `{"limit":2,"page_token":"name_idx"}`, status: 200, code: -1, want: []string{`"tags_idx"`, `"text_idx"`, `"page_token":"text_idx"`}},
		{name: "last page", path: t1 + "/index/list?limit=2&page_token=text_idx", status: 200, code: -1, want: []string{`"vec_idx"`}, notWant: []string{"page_token"}},
		{name: "unknown page token", path: t1 + "/index/list?page_token=zzz", status: 400, code: 13},
		{name: "version 1 has none", path: t1 + "/index/list", body: `{"version":1}`, status: 200, code: -1, want: []string{`{"indexes":[]}`}},
		{name: "declared table has none", path: "/v1/table/lnc$ns$empty/index/list", status: 200, code: -1, want: []string{`{"indexes":[]}`}},
		{name: "btree stats", path: t1 + "/index/id_idx/stats", status: 200, code: -1,
			want: []string{`{"index_type":"BTREE","num_indexed_rows":690,"num_unindexed_rows":50,"num_indices":1}`}},
		{name: "vector stats", path: t1 + "/index/vec_idx/stats", body: `{"index_name":"vec_idx"}`, status: 200, code: -1,
			want: []string{`{"distance_type":"l2","index_type":"IVF_PQ","num_indexed_rows":690,"num_unindexed_rows":50,"num_indices":1}`}},
		{name: "stats of a missing index", path: t1 + "/index/nope/stats", status: 404, code: 6},
		{name: "stats naming another index", path: t1 + "/index/id_idx/stats", body: `{"index_name":"vec_idx"}`, status: 400, code: 13},
		{name: "stats at a version before the index", path: t1 + "/index/id_idx/stats", body: `{"version":1}`, status: 404, code: 6},
	})
}

// TestCreateIndex: CreateTableIndex and CreateTableScalarIndex submit the
// task API's index task with the spec's fields as its parameters and
// answer its job; what the manifest already says is refused at once.
func TestCreateIndex(t *testing.T) {
	e, ft, _ := statsEnv(t)
	t1 := "/v1/table/lnc$ns$t1"
	e.run(t, []step{
		{name: "vector", path: t1 + "/create_index", body: `{"id":["lnc","ns","t1"],"column":"vec","index_type":"ivf_flat","name":"v2","distance_type":"cosine","num_partitions":2}`,
			status: 200, code: -1, want: []string{`{"transaction_id":"job-7"}`}},
	})
	ft.mu.Lock()
	typ, body := ft.typ, ft.body
	ft.mu.Unlock()
	var params map[string]any
	if err := json.Unmarshal([]byte(body), &params); err != nil {
		t.Fatal(err)
	}
	if ft.by.Kind != identity.APIKey || ft.by.ID == "" {
		t.Fatalf("the task was submitted as %+v, not as the caller's key", ft.by)
	}
	if typ != tasks.TypeVectorIndex || params["index_type"] != "IVF_FLAT" || params["column"] != "vec" || params["distance_type"] != "cosine" ||
		params["num_partitions"] != 2.0 || params["id"] != nil {
		t.Fatalf("submitted %s %s", typ, body)
	}
	r := e.must("POST", t1+"/create_scalar_index", `{"column":"text","index_type":"BITMAP","name":"text_bitmap"}`)
	if r.header.Get(TaskIDHeader) != "0123456789abcdef0123456789abcdef" || r.header.Get(JobIDHeader) != "job-7" {
		t.Fatalf("headers = %v", r.header)
	}
	if ft.typ != tasks.TypeScalarIndex {
		t.Fatalf("scalar index went as %s", ft.typ)
	}
	e.run(t, []step{
		{name: "name taken", path: t1 + "/create_index", body: `{"column":"id","index_type":"BTREE","name":"vec_idx"}`, status: 409, code: 7},
		{name: "default name taken", path: t1 + "/create_index", body: `{"column":"id","index_type":"BITMAP"}`, status: 409, code: 7},
		{name: "missing column", path: t1 + "/create_index", body: `{"column":"nope","index_type":"BTREE","name":"x"}`, status: 404, code: 12, want: []string{"id, name, tags, text, vec"}},
		{name: "no column", path: t1 + "/create_index", body: `{"index_type":"BTREE"}`, status: 400, code: 13},
		{name: "no type", path: t1 + "/create_index", body: `{"column":"id","name":"x"}`, status: 400, code: 13},
		{name: "unknown type", path: t1 + "/create_index", body: `{"column":"id","index_type":"HASH","name":"x"}`, status: 400, code: 13},
		{name: "vector through scalar", path: t1 + "/create_scalar_index", body: `{"column":"vec","index_type":"IVF_PQ","name":"x"}`, status: 400, code: 13},
		{name: "readonly key", path: t1 + "/create_index", key: "ro", body: `{"column":"id","index_type":"BTREE","name":"x"}`, status: 403, code: 15},
		{name: "another branch", path: t1 + "/create_index", body: `{"column":"id","index_type":"BTREE","name":"x","branch":"dev"}`, status: 406, code: 0},
		{name: "body id differs", path: t1 + "/create_index", body: `{"id":["lnc","ns","t9"],"column":"id","index_type":"BTREE"}`, status: 400, code: 13},
		{name: "not an object", path: t1 + "/create_index", body: `[1]`, status: 400, code: 13},
		{name: "declared table is not checked", path: "/v1/table/lnc$ns$empty/create_index", body: `{"column":"anything","index_type":"BTREE"}`, status: 200, code: -1},
	})
	ft.mu.Lock()
	ft.err = &fault.Error{Kind: fault.Invalid, Field: "index_type", Message: "index_type BTREE does not apply to vec"}
	ft.mu.Unlock()
	e.run(t, []step{{name: "task refused", path: t1 + "/create_index", body: `{"column":"vec","index_type":"BTREE","name":"x"}`, status: 400, code: 13, want: []string{"does not apply"}}})
	ft.mu.Lock()
	ft.err, ft.noJob = nil, true
	ft.mu.Unlock()
	e.run(t, []step{{name: "no job yet: the task id", path: t1 + "/create_index", body: `{"column":"id","index_type":"BTREE","name":"x"}`, status: 200, code: -1,
		want: []string{`"transaction_id":"0123456789abcdef0123456789abcdef"`}}})
}

// TestDropIndex: DropTableIndex runs a lance_drop_index job and answers
// when it ends; an index the manifest lacks is 404 code 6 before any job.
func TestDropIndex(t *testing.T) {
	e, _, fj := statsEnv(t)
	t1 := "/v1/table/lnc$ns$t1"
	e.run(t, []step{
		{name: "drops", path: t1 + "/index/text_idx/drop", status: 200, code: -1, want: []string{`{"transaction_id":"j-1"}`}},
		{name: "missing index", path: t1 + "/index/nope/drop", status: 404, code: 6},
		{name: "readonly key", path: t1 + "/index/text_idx/drop", key: "ro", status: 403, code: 15},
		{name: "body names another index", path: t1 + "/index/text_idx/drop", body: `{"index_name":"id_idx"}`, status: 400, code: 13},
	})
	if s := fj.lastSpec; s.Type != DropIndexJobType || s.Parameters["index_name"] != "text_idx" || s.Parameters["table"] != "t1" || s.ObjectID == "" ||
		s.By.Kind != identity.APIKey || s.Need != identity.Maintain {
		t.Fatalf("job spec = %+v", s)
	}
	fj.mu.Lock()
	fj.end = plugin.JobFailed
	fj.mu.Unlock()
	e.run(t, []step{{name: "job failed", path: t1 + "/index/text_idx/drop", status: 500, code: 18, want: []string{"not dropped"}, notWant: []string{"secret"}}})
	fj.mu.Lock()
	fj.worker = false
	fj.mu.Unlock()
	e.run(t, []step{{name: "no worker", path: t1 + "/index/text_idx/drop", status: 503, code: 17}})
}

// TestManagedTableStats: on a bucket with managed versioning the latest
// version is the catalog's record, not the newest file in _versions/.
func TestManagedTableStats(t *testing.T) {
	e := newTestEnv(t, false)
	ctx := context.Background()
	if _, err := e.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: "mvb", Format: catalog.FormatLance, ManagedVersioning: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateNamespace(ctx, "mvb", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	e.must("POST", "/v1/table/mvb$ns$t/declare", "")
	dir := filepath.Join(e.warehouse, "mvb", "ns", "t.lance")
	e.run(t, []step{{name: "nothing committed", path: "/v1/table/mvb$ns$t/count_rows", status: 200, code: -1, want: []string{"0"}}})
	e.must("POST", "/v1/table/mvb$ns$t/version/create", createBody(1, stage(t, dir, 1, "a")))
	// A manifest named as version 2 that was never committed through floe.
	writeManifest(t, dir, 2, lancetest.Manifest(2, 99))
	e.run(t, []step{
		{name: "latest is the committed one", path: "/v1/table/mvb$ns$t/count_rows", status: 200, code: -1, want: []string{"10"}},
		{name: "an uncommitted version is not one", path: "/v1/table/mvb$ns$t/count_rows", body: `{"version":2}`, status: 404, code: 11},
	})
}
