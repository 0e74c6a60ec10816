package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// docsSchema is ten columns, one of them a 768-dim vector, like a typical
// embedding table.
var docsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "title", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "published", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "category", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "created", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "views", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "body", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "vector", Type: arrow.FixedSizeListOf(768, arrow.PrimitiveTypes.Float32), Nullable: true},
}, nil)

// docsIPC encodes n rows; row 1 is null in every nullable column, row 2
// has empty strings.
func docsIPC(t testing.TB, n int) []byte {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, docsSchema)
	defer b.Release()
	ts := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	for r := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		if r == 1 {
			for i := 1; i < len(b.Fields()); i++ {
				b.Field(i).AppendNull()
			}
			continue
		}
		title, body := "Document "+strings.Repeat("x", r%7), strings.Repeat("lorem ipsum ", 30)
		if r == 2 {
			title, body = "", ""
		}
		b.Field(1).(*array.StringBuilder).Append(title)
		b.Field(2).(*array.Float64Builder).Append(float64(r) / 3)
		b.Field(3).(*array.BooleanBuilder).Append(r%2 == 0)
		b.Field(4).(*array.StringBuilder).Append("news")
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		b.Field(6).(*array.Int32Builder).Append(int32(r * 10))
		lb := b.Field(7).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		b.Field(8).(*array.LargeStringBuilder).Append(body)
		vb := b.Field(9).(*array.FixedSizeListBuilder)
		vb.Append(true)
		fb := vb.ValueBuilder().(*array.Float32Builder)
		for k := range 768 {
			fb.Append(float32(k) / 8)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	ipc, err := plugintest.EncodeIPC(docsSchema, rec)
	if err != nil {
		t.Fatal(err)
	}
	return ipc
}

// observeDocs records that worker described the table, with its schema.
func (e *workerEnv) observeDocs(tbl catalog.Table, worker string) {
	e.t.Helper()
	schema := []map[string]any{}
	for _, f := range docsSchema.Fields() {
		schema = append(schema, map[string]any{"name": f.Name, "type": f.Type.String(), "nullable": f.Nullable})
	}
	attrs, _ := json.Marshal(map[string]any{"rows": 20000, "schema": schema})
	if _, err := e.obs.Put(observe.Observation{ObjectID: tbl.ID, Format: catalog.FormatLance, WorkerID: worker,
		ObservedAt: time.Now(), Attributes: attrs}); err != nil {
		e.t.Fatal(err)
	}
}

func TestBrowseDataLance(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	c := e.admin()
	page := "/buckets/vec/namespaces/prod/tables/docs/data"
	ipc := docsIPC(t, 200)
	var mu sync.Mutex
	var asked *pluginpb.Preview
	e.worker(plugintest.Config{WorkerID: "w-lance", PreviewFormats: []string{"LANCE"},
		OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			mu.Lock()
			asked = p
			mu.Unlock()
			return plugintest.Split(ipc, 64<<10), &pluginpb.PreviewDone{TotalRows: 20000, RowsSent: 200}
		}})
	e.observeDocs(tbl, "w-lance")

	r := e.get(c, page+"?limit=100&filter=views+%3E+3&col=id&col=title&col=vector")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	mu.Lock()
	got := asked
	mu.Unlock()
	if got.GetRowLimit() != 100 || got.GetFilter() != "views > 3" || strings.Join(got.GetColumns(), ",") != "id,title,vector" {
		t.Fatalf("worker asked for %v", got)
	}
	t.Run("columns with their Arrow types", func(t *testing.T) {
		cols := r.doc.Find(`[data-testid="grid-column"]`)
		if cols.Length() != 10 { // the test worker ignores the column list; the grid shows what came back
			t.Fatalf("%d columns", cols.Length())
		}
		if typ := strings.TrimSpace(cols.Eq(9).Find(`[data-testid="grid-column-type"]`).Text()); !strings.Contains(typ, "fixed_size_list") || !strings.Contains(typ, "768") {
			t.Errorf("vector type %q", typ)
		}
	})
	t.Run("rows, null marker distinct from empty string, compact vectors", func(t *testing.T) {
		rows := r.doc.Find(`[data-testid="grid-row"]`)
		if rows.Length() != 100 {
			t.Fatalf("%d rows, want 100", rows.Length())
		}
		if rows.Eq(1).Find(`[data-testid="grid-null"]`).Length() != 9 {
			t.Errorf("row 1: %d null markers, want 9", rows.Eq(1).Find(`[data-testid="grid-null"]`).Length())
		}
		if rows.Eq(2).Find(`[data-testid="grid-empty-string"]`).Length() != 2 || rows.Eq(2).Find(`[data-testid="grid-null"]`).Length() != 0 {
			t.Error("row 2's empty strings not shown as empty strings")
		}
		vec := strings.TrimSpace(rows.Eq(0).Find("td").Eq(9).Text())
		if len(vec) > 120 || !strings.Contains(vec, "768") {
			t.Errorf("vector cell not compact: %q", vec)
		}
	})
	t.Run("footer says rows read, of how many, by whom", func(t *testing.T) {
		if f := r.text("grid-footer"); !strings.Contains(f, "100 rows read out of 20,000, by worker w-lance") {
			t.Errorf("footer %q", f)
		}
	})
	t.Run("the GET form keeps its choices", func(t *testing.T) {
		if r.doc.Find(`[data-testid="data-form"]`).AttrOr("method", "") != "get" {
			t.Error("form is not GET")
		}
		if r.doc.Find(`select[name="limit"] option[selected]`).AttrOr("value", "") != "100" {
			t.Error("row limit not kept")
		}
		if r.doc.Find(`input[name="filter"]`).AttrOr("value", "") != "views > 3" {
			t.Error("filter not kept")
		}
		checked := r.doc.Find(`input[name="col"][checked]`)
		if checked.Length() != 3 || r.doc.Find(`input[name="col"]`).Length() != 10 {
			t.Errorf("column picker: %d checked of %d", checked.Length(), r.doc.Find(`input[name="col"]`).Length())
		}
	})
}

func TestBrowseDataLanceFailures(t *testing.T) {
	page := "/buckets/vec/namespaces/prod/tables/docs/data"
	cases := []struct {
		name   string
		setup  func(e *workerEnv, tbl catalog.Table)
		status int
		want   string
	}{
		{"no worker has seen the table", func(e *workerEnv, tbl catalog.Table) {}, http.StatusServiceUnavailable,
			"No worker has looked at this table yet"},
		{"the observer is gone", func(e *workerEnv, tbl catalog.Table) { e.observeDocs(tbl, "w-old") }, http.StatusServiceUnavailable,
			"Worker w-old, which last looked at this table, is not connected"},
		{"the worker's own error", func(e *workerEnv, tbl catalog.Table) {
			e.worker(plugintest.Config{WorkerID: "w-err", PreviewFormats: []string{"LANCE"},
				OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
					return nil, &pluginpb.PreviewDone{Error: "dataset not found at its location"}
				}})
		}, http.StatusBadGateway, "Worker w-err could not read the table: dataset not found at its location."},
		{"the worker disconnects mid-read", func(e *workerEnv, tbl catalog.Table) {
			var w *plugintest.Worker
			started := make(chan struct{})
			w = e.worker(plugintest.Config{WorkerID: "w-drop", PreviewFormats: []string{"LANCE"},
				OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
					close(started)
					<-ctx.Done()
					return nil, nil
				}})
			go func() { <-started; w.Close() }()
		}, http.StatusServiceUnavailable, "Worker w-drop disconnected before sending the rows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newWorkerEnv(t, plugin.Options{})
			tbl := e.lanceTable("vec", "prod", "docs")
			tc.setup(e, tbl)
			r := e.get(e.admin(), page)
			if r.status != tc.status || !strings.Contains(r.text("data-failure"), tc.want) {
				t.Errorf("status %d, sentence %q; want %d and %q", r.status, r.text("data-failure"), tc.status, tc.want)
			}
			if r.has("data-grid") || !r.has("data-form") {
				t.Error("a failure should show the form and no grid")
			}
		})
	}
}

// TestBrowseDataLanceTimeout waits out the broker's own timeout (15 s), so
// it runs in parallel with the rest.
func TestBrowseDataLanceTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the preview timeout")
	}
	t.Parallel()
	e := newWorkerEnv(t, plugin.Options{})
	e.lanceTable("vec", "prod", "docs")
	w := e.worker(plugintest.Config{WorkerID: "w-slow", PreviewFormats: []string{"LANCE"},
		OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			<-ctx.Done() // never answers; the console's Cancel ends this
			return nil, nil
		}})
	r := e.get(e.admin(), "/buckets/vec/namespaces/prod/tables/docs/data")
	if r.status != http.StatusGatewayTimeout || !strings.Contains(r.text("data-failure"), "Worker w-slow did not answer within 15s") {
		t.Errorf("status %d: %q", r.status, r.text("data-failure"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), workerWait)
	defer cancel()
	if err := w.WaitFor(ctx, func(rs []*pluginpb.ConsoleMessage) bool { return len(w.Cancels()) > 0 }); err != nil {
		t.Errorf("the worker was not told to cancel: %v", err)
	}
}

// TestBrowseDataLanceBrowserLeaves: when the browser goes away, the broker
// cancels the worker's read.
func TestBrowseDataLanceBrowserLeaves(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.lanceTable("vec", "prod", "docs")
	started := make(chan struct{})
	w := e.worker(plugintest.Config{WorkerID: "w-lance", PreviewFormats: []string{"LANCE"},
		OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
			close(started)
			<-ctx.Done()
			return nil, nil
		}})
	c := e.admin()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/buckets/vec/namespaces/prod/tables/docs/data", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	<-done
	wctx, wcancel := context.WithTimeout(context.Background(), workerWait)
	defer wcancel()
	if err := w.WaitFor(wctx, func([]*pluginpb.ConsoleMessage) bool { return len(w.Cancels()) > 0 }); err != nil {
		t.Fatalf("the worker was not told to cancel: %v", err)
	}
}

// A filter the engine refuses is the operator's to fix: 422 with the
// engine's sentence next to the field. When the table cannot be read even
// without the filter, the worker is at fault: 502 in place of the grid.
func TestBrowseDataLanceBadFilter(t *testing.T) {
	page := "/buckets/vec/namespaces/prod/tables/docs/data?filter=viewz+%3E+3"
	cases := []struct {
		name        string
		failsAlways bool
		status      int
		field, page string // expected sentence next to the filter / in place of the grid
	}{
		{"refused filter", false, http.StatusUnprocessableEntity, "The filter was refused: No field named viewz. Valid fields are id, title.", ""},
		{"unreadable table", true, http.StatusBadGateway, "", "Worker w-filter could not read the table: No field named viewz."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newWorkerEnv(t, plugin.Options{})
			e.lanceTable("vec", "prod", "docs")
			e.worker(plugintest.Config{WorkerID: "w-filter", PreviewFormats: []string{"LANCE"},
				OnPreview: func(ctx context.Context, p *pluginpb.Preview) ([][]byte, *pluginpb.PreviewDone) {
					if p.GetFilter() != "" || tc.failsAlways {
						return nil, &pluginpb.PreviewDone{Error: "No field named viewz. Valid fields are id, title."}
					}
					return nil, &pluginpb.PreviewDone{TotalRows: 3}
				}})
			r := e.get(e.admin(), page)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: filter %q, failure %q", r.status, tc.status, r.text("error-filter"), r.text("data-failure"))
			}
			if !strings.Contains(r.text("error-filter"), tc.field) || (tc.field == "") != (r.text("error-filter") == "") {
				t.Errorf("sentence at the filter %q, want %q", r.text("error-filter"), tc.field)
			}
			if !strings.Contains(r.text("data-failure"), tc.page) || (tc.page == "") != (r.text("data-failure") == "") {
				t.Errorf("sentence in place of the grid %q, want %q", r.text("data-failure"), tc.page)
			}
			if r.doc.Find(`input[name="filter"]`).AttrOr("value", "") != "viewz > 3" {
				t.Error("the filter was not kept in the form")
			}
		})
	}
}
