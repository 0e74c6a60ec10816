package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/observe"
)

// checkSchema has a column of each kind the index rules sort.
const checkSchema = `{"schema": [
  {"name": "title", "type": "Utf8", "nullable": true},
  {"name": "embedding", "type": "FixedSizeList[8]<Float32>", "nullable": true},
  {"name": "tags", "type": "List<Utf8>", "nullable": true},
  {"name": "meta", "type": "Struct<{x:Int32}>", "nullable": true}
]}`

// TestIndexTasksCheckTheColumn: an index task's type is checked against
// the column's observed type by the service, so the task API (Submit) and
// the console's form (SubmitForm) refuse the same tasks with the same
// field error, and queue nothing for them.
func TestIndexTasksCheckTheColumn(t *testing.T) {
	store := openStore(t, t.TempDir())
	obs, err := observe.New(dbOf(store), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obs.Close() })
	runtest.Start(t, obs)
	runner := &fakeRunner{}
	s, err := New(dbOf(store), store, runner, nil, WithSchemas(obs))
	if err != nil {
		t.Fatal(err)
	}
	tb := lanceTable(t, store, "bkt", "ns", "docs")
	if _, err := obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(checkSchema)}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, column, indexType string
		typ                     Type
		refusal                 string // "" = accepted
	}{
		{"FTS on a vector column", "embedding", "FTS", TypeScalarIndex,
			"index_type FTS does not apply to embedding (FixedSizeList[8]<Float32>): it is a vector column, which takes a vector index (IVF_FLAT, IVF_PQ, IVF_HNSW_SQ, IVF_HNSW_PQ or IVF_RQ) through create_vector_index."},
		{"a vector index on a string column", "title", "IVF_PQ", TypeVectorIndex,
			"index_type IVF_PQ does not apply to title (Utf8): a vector index needs a vector column (a fixed-size list of floats); title takes BTREE, BITMAP or FTS through create_scalar_index."},
		{"BTREE on a list", "tags", "BTREE", TypeScalarIndex, "index_type BTREE does not apply to tags (List<Utf8>); pick LABEL_LIST."},
		{"any index on a struct", "meta", "BITMAP", TypeScalarIndex, "no index covers a column of that type"},
		{"FTS on a string column", "title", "FTS", TypeScalarIndex, ""},
		{"a vector index on a vector column", "embedding", "IVF_PQ", TypeVectorIndex, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(runner.jobs)
			body, _ := json.Marshal(map[string]string{"column": tc.column, "index_type": tc.indexType})
			_, apiErr := s.Submit(ctx, tb, tc.typ, body)
			_, formErr := s.SubmitForm(ctx, tb, tc.typ, map[string]string{"column": tc.column, "index_type": tc.indexType})
			if tc.refusal == "" {
				if apiErr != nil || formErr != nil {
					t.Fatalf("refused: API %v, form %v", apiErr, formErr)
				}
				return
			}
			for surface, err := range map[string]error{"API": apiErr, "form": formErr} {
				fe, ok := fault.As(err)
				if !ok || !errors.Is(err, fault.Invalid) || fe.Field != "index_type" || !strings.Contains(fe.Message, tc.refusal) {
					t.Errorf("%s: %v (field %q), want index_type: %q", surface, err, fault.Field(err), tc.refusal)
				}
			}
			if apiErr != nil && formErr != nil && apiErr.Error() != formErr.Error() {
				t.Errorf("the surfaces word it differently:\n API  %s\n form %s", apiErr, formErr)
			}
			if len(runner.jobs) != before {
				t.Errorf("a refused task queued a job")
			}
		})
	}

	t.Run("a column the schema does not have yet is accepted with a note", func(t *testing.T) {
		task, err := s.Submit(ctx, tb, TypeScalarIndex, []byte(`{"column": "added_later", "index_type": "BTREE"}`))
		if err != nil || !strings.Contains(task.Note, "not in the schema") {
			t.Fatalf("%v, note %q", err, task.Note)
		}
	})
	t.Run("without an observed schema the task is accepted and the note says it was not checked", func(t *testing.T) {
		bare := lanceTable(t, store, "bkt", "ns", "bare")
		for _, svc := range []*Service{s, newService(t, store, runner)} {
			task, err := svc.Submit(ctx, bare, TypeScalarIndex, []byte(`{"column": "embedding", "index_type": "FTS"}`))
			if err != nil || task.Note != columnUnchecked {
				t.Fatalf("%v, note %q", err, task.Note)
			}
			if got := mustGet(t, svc, bare.ID, task.ID); got.Note != "" {
				t.Error("the note is for the answer, not stored")
			}
		}
		if task := mustSubmit(t, s, bare, TypeCompact, ""); task.Note != "" {
			t.Errorf("a compact task has a note: %q", task.Note)
		}
	})
}

// TestFormsOfferTheColumnsThatFit: the console's forms come from the same
// rules: each index form offers the columns its task takes, each narrowing
// index_type to the types its column takes; the engine's fixed values are
// fixed; a table without a vector column gets no vector form.
func TestFormsOfferTheColumnsThatFit(t *testing.T) {
	store := openStore(t, t.TempDir())
	obs, err := observe.New(dbOf(store), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obs.Close() })
	runtest.Start(t, obs)
	s, err := New(dbOf(store), store, nil, nil, WithSchemas(obs))
	if err != nil {
		t.Fatal(err)
	}
	tb := lanceTable(t, store, "bkt", "ns", "docs")
	if _, err := obs.Put(observe.Observation{ObjectID: tb.ID, Format: catalog.FormatLance, WorkerID: "w",
		ObservedAt: time.Now(), Attributes: json.RawMessage(`{"schema": [{"name": "title", "type": "Utf8"}]}`)}); err != nil {
		t.Fatal(err)
	}
	forms := map[Type]Form{}
	for _, f := range s.Forms(tb) {
		forms[f.Type] = f
	}
	col, _ := Schema{Fields: forms[TypeScalarIndex].Fields}.Field("column")
	if len(col.Options) != 1 || col.Options[0].Value != "title" || strings.Join(col.Options[0].Narrows, " ") != "BTREE BITMAP FTS" || col.Narrows != "index_type" {
		t.Errorf("scalar column options %+v", col.Options)
	}
	if forms[TypeVectorIndex].Unavailable == "" {
		t.Error("a table without a vector column is offered a vector index")
	}
	mode, _ := Schema{Fields: forms[TypeCompact].Fields}.Field("compaction_mode")
	if mode.Fixed == "" {
		t.Error("compaction_mode is not fixed in the console")
	}
	if _, err := s.SubmitForm(context.Background(), tb, TypeCompact, map[string]string{"compaction_mode": "try_binary_copy"}); fault.Field(err) != "compaction_mode" {
		t.Errorf("a changed fixed value: %v", err)
	}
}
