package preview

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floe/floe/plugin/plugintest"
)

// allTypesSchema covers every type the preview renders specially.
var allTypesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
	{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "vec", Type: arrow.FixedSizeListOf(768, arrow.PrimitiveTypes.Float32), Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "meta", Type: arrow.StructOf(
		arrow.Field{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
}, nil)

// buildAllTypes builds n rows; row 1 is null in every column, row 2 has
// empty strings (not nulls).
func buildAllTypes(n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, allTypesSchema)
	defer b.Release()
	ts := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for r := range n {
		if r == 1 {
			for i := range b.Fields() {
				b.Field(i).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.Int8Builder).Append(-8)
		b.Field(1).(*array.Int16Builder).Append(-16)
		b.Field(2).(*array.Int32Builder).Append(int32(r))
		b.Field(3).(*array.Int64Builder).Append(1 << 40)
		b.Field(4).(*array.Uint8Builder).Append(8)
		b.Field(5).(*array.Uint16Builder).Append(16)
		b.Field(6).(*array.Uint32Builder).Append(32)
		b.Field(7).(*array.Uint64Builder).Append(1 << 63)
		b.Field(8).(*array.Float32Builder).Append(1.5)
		b.Field(9).(*array.Float64Builder).Append(0.25)
		if r == 2 {
			b.Field(10).(*array.StringBuilder).Append("")
			b.Field(11).(*array.LargeStringBuilder).Append("")
		} else {
			b.Field(10).(*array.StringBuilder).Append("héllo")
			b.Field(11).(*array.LargeStringBuilder).Append(strings.Repeat("é", 300))
		}
		b.Field(12).(*array.BooleanBuilder).Append(true)
		b.Field(13).(*array.Date32Builder).Append(arrow.Date32FromTime(ts))
		b.Field(14).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		vb := b.Field(15).(*array.FixedSizeListBuilder)
		vb.Append(true)
		fb := vb.ValueBuilder().(*array.Float32Builder)
		for k := range 768 {
			fb.Append(float32(k) / 4)
		}
		lb := b.Field(16).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
		sb := b.Field(17).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append("x")
		sb.FieldBuilder(1).(*array.Int32Builder).AppendNull()
	}
	return b.NewRecordBatch()
}

func allTypesIPC(t testing.TB, n int) []byte {
	t.Helper()
	rec := buildAllTypes(n)
	defer rec.Release()
	b, err := plugintest.EncodeIPC(allTypesSchema, rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
