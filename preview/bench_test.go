package preview

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floe/floe/plugin/plugintest"
)

// wideIPC is 200 rows × 10 columns: a 768-dim float32 vector, text, and
// eight numeric/bool/timestamp columns.
func wideIPC(b *testing.B) []byte {
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "vector", Type: arrow.FixedSizeListOf(768, arrow.PrimitiveTypes.Float32)},
		{Name: "text", Type: arrow.BinaryTypes.String},
	}
	for i := range 7 {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", i), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for r := range 200 {
		rb.Field(0).(*array.Int64Builder).Append(int64(r))
		vb := rb.Field(1).(*array.FixedSizeListBuilder)
		vb.Append(true)
		fb := vb.ValueBuilder().(*array.Float32Builder)
		for k := range 768 {
			fb.Append(float32(k) * 0.001)
		}
		rb.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("document number %d with some words in it", r))
		for i := range 7 {
			rb.Field(3 + i).(*array.Float64Builder).Append(float64(r) * 1.5)
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	data, err := plugintest.EncodeIPC(schema, rec)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecodeRender200x10Vector: decode and render 200 rows × 10
// columns including a 768-dim vector. Target: ≤ 5 ms per preview.
func BenchmarkDecodeRender200x10Vector(b *testing.B) {
	data := wideIPC(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		res, err := Decode(data, MaxRowLimit)
		if err != nil || res.RowsRead != 200 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/preview")
}
