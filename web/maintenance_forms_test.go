package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/tasks"
)

type recordingRunner struct{ n int }

func (r *recordingRunner) SubmitJob(context.Context, string, string, map[string]string) (string, error) {
	r.n++
	return "job-" + strconv.Itoa(r.n), nil
}

// formsSchema has a column of each kind the forms sort: a vector, a string,
// a number, a list of labels (Arrow JSON with children) and a struct.
const formsSchema = `{"rows": 10, "schema": [
  {"name": "id", "type": "Int64", "nullable": false},
  {"name": "title", "type": "Utf8", "nullable": true},
  {"name": "embedding", "type": "FixedSizeList[8]<Float32>", "nullable": true},
  {"name": "tags", "type": {"name": "list"}, "nullable": true, "children": [{"name": "item", "type": "utf8", "nullable": true}]},
  {"name": "meta", "type": "Struct<{x:Int32}>", "nullable": true}
]}`

// TestMaintenanceFormsFromSchema: with an observed schema, the index forms'
// column fields are selects of the columns that fit, each carrying the
// index types its type takes; a mismatch is refused with 422 at index_type;
// settings LanceDB 0.39 cannot honour show their one value and the reason;
// help is help text, not an input-like box.
func TestMaintenanceFormsFromSchema(t *testing.T) {
	var obs *observe.Store
	runner := &recordingRunner{}
	e := newEnv(t, allSurfaces, func(c *Config) {
		var err error
		if obs, err = observe.New(c.DB, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { obs.Close() })
		runtest.Start(t, obs)
		ts, err := tasks.New(c.DB, c.Store, runner, c.Logger, tasks.WithSchemas(obs))
		if err != nil {
			t.Fatal(err)
		}
		c.Observe, c.Tasks = obs, ts
	})
	e.seed("lbk", catalog.FormatLance, "ns", "docs", "bare")
	c := e.admin()

	bare := e.get(c, "/buckets/lbk/namespaces/ns/tables/bare/maintenance")
	if k := bare.doc.Find(`[data-testid="create_scalar_index-column"]`); !k.Is("input") || !strings.Contains(bare.text("field-create_scalar_index-column"), "No worker has described") {
		t.Fatalf("without a schema the column should be a text input saying why")
	}

	tb, _ := e.table("lbk", "ns", "docs")
	if _, err := obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(formsSchema)}); err != nil {
		t.Fatal(err)
	}
	r := e.get(c, maintURL)
	if r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	options := func(testid string) map[string]string {
		out := map[string]string{}
		r.doc.Find(`select[data-testid="` + testid + `"] option`).Each(func(_ int, o *goquery.Selection) {
			out[o.AttrOr("value", "")] = o.AttrOr("data-narrows-to", "")
		})
		return out
	}
	scalar := options("create_scalar_index-column")
	want := map[string]string{"id": "BTREE BITMAP", "title": "BTREE BITMAP FTS", "tags": "LABEL_LIST"}
	if len(scalar) != len(want) {
		t.Errorf("scalar columns %v, want %v", scalar, want)
	}
	for col, types := range want {
		if scalar[col] != types {
			t.Errorf("scalar column %s offers %q, want %q", col, scalar[col], types)
		}
	}
	if vec := options("create_vector_index-column"); len(vec) != 1 || vec["embedding"] == "" || !strings.Contains(vec["embedding"], "IVF_PQ") {
		t.Errorf("vector columns %v, want embedding with IVF types", vec)
	}
	for _, id := range []string{"compact-target_rows_per_fragment", "compact-compaction_mode", "optimize_indices-retrain", "cleanup-delete_unverified"} {
		f := r.doc.Find(`[data-testid="field-` + id + `"]`)
		if f.AttrOr("data-kind", "") != "fixed" || f.Find("input, select").Length() != 0 || f.Find(".help").Text() == "" {
			t.Errorf("%s: want a read-only value with its reason, got kind %q", id, f.AttrOr("data-kind", ""))
		}
	}
	// Cleanup deletes data: the console ticks its dry run first (issue 24).
	if box := r.doc.Find(`input[type="checkbox"][data-testid="cleanup-dry_run"]`); box.Length() != 1 || !box.Is("[checked]") {
		t.Errorf("the cleanup form's dry run is not ticked by default (%d boxes)", box.Length())
	}
	if box := r.doc.Find(`input[type="checkbox"][data-testid="optimize_indices-retrain"]`); box.Length() == 1 && box.Is("[checked]") {
		t.Error("a box other than dry_run is ticked by default")
	}
	if r.doc.Find(".maint-form .hint").Length() != 0 || r.doc.Find(".maint-form .help").Length() == 0 {
		t.Error("form help is not styled as help")
	}

	bad := e.post(c, maintURL+"/tasks", url.Values{"task_type": {"lance_scalar_index"}, "column": {"tags"}, "index_type": {"BTREE"}})
	if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.text("error-index_type"), "BTREE does not apply to tags") {
		t.Fatalf("mismatch: %d %q", bad.status, bad.text("error-index_type"))
	}
	fixed := e.post(c, maintURL+"/tasks", url.Values{"task_type": {"lance_compact"}, "max_rows_per_group": {"2048"}})
	if fixed.status != http.StatusUnprocessableEntity || !strings.Contains(fixed.text("error-max_rows_per_group"), "1024") {
		t.Fatalf("a fixed value changed: %d %q", fixed.status, fixed.text("error-max_rows_per_group"))
	}
	if runner.n != 0 {
		t.Fatalf("%d jobs submitted by refused forms", runner.n)
	}
	bareTbl, _ := e.table("lbk", "ns", "bare")
	if _, err := obs.Put(observe.Observation{ObjectID: bareTbl.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(`{"schema": [{"name": "id", "type": "Int64", "nullable": false}]}`)}); err != nil {
		t.Fatal(err)
	}
	noVec := e.get(c, "/buckets/lbk/namespaces/ns/tables/bare/maintenance")
	if !strings.Contains(noVec.text("form-create_vector_index-unavailable"), "no vector column") || noVec.has("form-create_vector_index-form") {
		t.Errorf("a table without a vector column offers the vector index form (%q)", noVec.text("form-create_vector_index-unavailable"))
	}
	ok := e.post(c, maintURL+"/tasks", url.Values{"task_type": {"lance_scalar_index"}, "column": {"tags"}, "index_type": {"LABEL_LIST"}})
	if ok.status != http.StatusSeeOther || runner.n != 1 {
		t.Fatalf("a fitting index: %d, %d jobs", ok.status, runner.n)
	}
}

// TestMaintenanceRefusesWhatTheTaskAPIRefuses: an FTS index on a vector
// column posted to the console (the scalar form does not offer the column,
// a hand-made post does) is refused with 422 at index_type with the very
// sentence the task API answers with 400 (taskapi's ftsOnVector); no job
// is queued.
func TestMaintenanceRefusesWhatTheTaskAPIRefuses(t *testing.T) {
	var obs *observe.Store
	runner := &recordingRunner{}
	e := newEnv(t, allSurfaces, func(c *Config) {
		var err error
		if obs, err = observe.New(c.DB, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { obs.Close() })
		runtest.Start(t, obs)
		ts, err := tasks.New(c.DB, c.Store, runner, c.Logger, tasks.WithSchemas(obs))
		if err != nil {
			t.Fatal(err)
		}
		c.Observe, c.Tasks = obs, ts
	})
	e.seed("lbk", catalog.FormatLance, "ns", "docs", "bare")
	tb, _ := e.table("lbk", "ns", "docs")
	if _, err := obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "w", ObservedAt: time.Now(),
		Attributes: json.RawMessage(`{"schema": [{"name": "title", "type": "Utf8"}, {"name": "embedding", "type": "FixedSizeList[8]<Float32>"}]}`)}); err != nil {
		t.Fatal(err)
	}
	const want = "index_type FTS does not apply to embedding (FixedSizeList[8]<Float32>): it is a vector column, which takes a vector index (IVF_FLAT, IVF_PQ, IVF_HNSW_SQ, IVF_HNSW_PQ or IVF_RQ) through create_vector_index."
	r := e.post(e.admin(), maintURL+"/tasks", url.Values{"task_type": {"lance_scalar_index"}, "column": {"embedding"}, "index_type": {"FTS"}})
	if r.status != http.StatusUnprocessableEntity || r.text("error-index_type") != want {
		t.Fatalf("status %d, error at index_type %q\nwant %q", r.status, r.text("error-index_type"), want)
	}
	if runner.n != 0 {
		t.Fatalf("%d jobs queued by a refused form", runner.n)
	}
	// A table no worker has described: accepted, and the flash says what
	// floe could not check.
	c := e.admin()
	bare := "/buckets/lbk/namespaces/ns/tables/bare/maintenance"
	if r := e.post(c, bare+"/tasks", url.Values{"task_type": {"lance_scalar_index"}, "column": {"embedding"}, "index_type": {"FTS"}}); r.status != http.StatusSeeOther {
		t.Fatalf("unchecked column: status %d", r.status)
	}
	if page := e.get(c, bare); !strings.Contains(page.text("flash"), "did not check") || runner.n != 1 {
		t.Errorf("flash %q, %d jobs", page.text("flash"), runner.n)
	}
}
