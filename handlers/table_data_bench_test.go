package handlers

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floe/floe/plugin/plugintest"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/views"
)

// benchIPC is 200 rows × 10 columns, one a 768-dim float32 vector.
func benchIPC(b *testing.B) []byte {
	schema := arrow.NewSchema([]arrow.Field{
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
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	ts := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	for r := range 200 {
		bld.Field(0).(*array.Int64Builder).Append(int64(r))
		bld.Field(1).(*array.StringBuilder).Append("Document title")
		bld.Field(2).(*array.Float64Builder).Append(float64(r) / 3)
		bld.Field(3).(*array.BooleanBuilder).Append(r%2 == 0)
		bld.Field(4).(*array.StringBuilder).Append("news")
		bld.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		bld.Field(6).(*array.Int32Builder).Append(int32(r))
		lb := bld.Field(7).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		bld.Field(8).(*array.LargeStringBuilder).Append(strings.Repeat("lorem ipsum ", 30))
		vb := bld.Field(9).(*array.FixedSizeListBuilder)
		vb.Append(true)
		fb := vb.ValueBuilder().(*array.Float32Builder)
		for k := range 768 {
			fb.Append(float32(k) / 8)
		}
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	ipc, err := plugintest.EncodeIPC(schema, rec)
	if err != nil {
		b.Fatal(err)
	}
	return ipc
}

// BenchmarkLanceDataRender is Browse Data's own share of a 200 × 10 page
// with a 768-dim vector: decoding the worker's Arrow IPC, building the grid
// and rendering the page (web's BenchmarkBrowseDataLance200x10 adds the
// session, catalog reads and the gRPC round trip).
func BenchmarkLanceDataRender(b *testing.B) {
	ipc := benchIPC(b)
	h := New(Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	req := httptest.NewRequest(http.MethodGet, "/buckets/vec/namespaces/prod/tables/docs/data", nil)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := preview.Decode(ipc, preview.MaxRowLimit); err != nil {
				b.Fatal(err)
			}
		}
	})
	res, err := preview.Decode(ipc, preview.MaxRowLimit)
	if err != nil {
		b.Fatal(err)
	}
	res.TotalRows, res.WorkerID = 20000, "w-lance"
	b.Run("grid+render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := views.LanceDataView{Page: views.Page{Title: "Browse Data"}, Bucket: "vec", Namespace: "prod", Table: "docs",
				Limits: lanceRowLimits, Limit: 200, Grid: lanceGrid(res, time.Millisecond), HasGrid: true}
			h.renderPooled(httptest.NewRecorder(), req, http.StatusOK, views.LanceDataPage(v))
		}
	})
}
