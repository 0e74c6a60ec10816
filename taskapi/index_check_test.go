package taskapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// ftsOnVector is the sentence both surfaces answer an FTS index on a vector
// column with (web's TestMaintenanceRefusesWhatTheTaskAPIRefuses shows it
// at the console's index_type field).
const ftsOnVector = "index_type FTS does not apply to embedding (FixedSizeList[8]<Float32>): it is a vector column, which takes a vector index (IVF_FLAT, IVF_PQ, IVF_HNSW_SQ, IVF_HNSW_PQ or IVF_RQ) through create_vector_index."

// TestIndexTaskOnTheWrongColumnIsRefused: the task API refuses what the
// console's form refuses, with the same sentence, instead of queueing a job
// the engine fails; without an observed schema it accepts and says so.
func TestIndexTaskOnTheWrongColumnIsRefused(t *testing.T) {
	e := newEnv(t, envOpts{})
	body := `{"column": "embedding", "index_type": "FTS"}`
	var unchecked submitAnswer
	e.do(call{method: "POST", path: "/table/ns$tbl/create_scalar_index", body: body}).wantOK(t, e.table.ID, &unchecked)
	if unchecked.TaskID == "" || unchecked.Note == "" {
		t.Fatalf("without a schema: %+v, want a task and a note saying the column was not checked", unchecked)
	}

	if _, err := e.obs.Put(observe.Observation{ObjectID: e.table.ID, Format: catalog.FormatLance, WorkerID: "w", ObservedAt: time.Now(),
		Attributes: json.RawMessage(`{"schema": [{"name": "title", "type": "Utf8"}, {"name": "embedding", "type": "FixedSizeList[8]<Float32>"}]}`)}); err != nil {
		t.Fatal(err)
	}
	jobs := e.runner.count()
	eb := e.do(call{method: "POST", path: "/table/ns$tbl/create_scalar_index", body: body}).wantError(t, 400, "InvalidInput", 13)
	if eb.Detail != ftsOnVector {
		t.Errorf("detail %q\nwant   %q", eb.Detail, ftsOnVector)
	}
	if n := e.runner.count(); n != jobs {
		t.Errorf("a refused task queued %d jobs", n-jobs)
	}
	var ok submitAnswer
	e.do(call{method: "POST", path: "/table/ns$tbl/create_scalar_index", body: `{"column": "title", "index_type": "FTS"}`}).wantOK(t, e.table.ID, &ok)
	if ok.Note != "" {
		t.Errorf("a checked task has a note: %q", ok.Note)
	}
}
