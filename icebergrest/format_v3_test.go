package icebergrest

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
)

// TestFormatV3WithIcebergGo: iceberg-go creates a v3 table with a
// timestamp_ns column, appends twice (row lineage: next-row-id moves past
// each snapshot's rows) and reads the rows back; a v2 table refuses the
// same column.
func TestFormatV3WithIcebergGo(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 2, Name: "at", Type: iceberggo.TimestampNsType{}},
	)
	if _, err := cat.CreateTable(ctx, table.Identifier{"ns", "v2"}, schema); err == nil {
		t.Fatal("a v2 table accepted a timestamp_ns column")
	}
	tbl, err := cat.CreateTable(ctx, table.Identifier{"ns", "v3"}, schema, icecatalog.WithProperties(iceberggo.Properties{"format-version": "3"}))
	if err != nil {
		t.Fatalf("create v3: %v", err)
	}
	if v := tbl.Metadata().Version(); v != 3 {
		t.Fatalf("format version %d, want 3", v)
	}
	arrowSchema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
	}, nil)
	rows := func(from, to int64) arrow.Table {
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)
		defer b.Release()
		for i := from; i < to; i++ {
			b.Field(0).(*array.Int64Builder).Append(i)
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(i*1_000_000_000 + 7))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		return array.NewTableFromRecords(arrowSchema, []arrow.RecordBatch{rec})
	}
	for _, r := range [][2]int64{{0, 5}, {5, 12}} {
		if tbl, err = tbl.AppendTable(ctx, rows(r[0], r[1]), 1024, nil); err != nil {
			t.Fatalf("append %v: %v", r, err)
		}
	}
	code, body := e.call(t, "GET", "/v1/lake/namespaces/ns/tables/v3", "", nil)
	if code != 200 {
		t.Fatalf("load: %d %v", code, body)
	}
	md := body["metadata"].(map[string]any)
	if md["format-version"].(float64) != 3 || md["next-row-id"].(float64) != 12 {
		t.Fatalf("format-version %v next-row-id %v, want 3 and 12", md["format-version"], md["next-row-id"])
	}
	var firsts []float64
	for _, s := range md["snapshots"].([]any) {
		firsts = append(firsts, s.(map[string]any)["first-row-id"].(float64))
	}
	if slices.Sort(firsts); !slices.Equal(firsts, []float64{0, 5}) {
		t.Fatalf("snapshot first-row-ids %v, want [0 5]", firsts)
	}
	reloaded, err := cat.LoadTable(ctx, table.Identifier{"ns", "v3"})
	if err != nil {
		t.Fatal(err)
	}
	at, err := reloaded.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	if at.NumRows() != 12 {
		t.Fatalf("%d rows, want 12", at.NumRows())
	}
}

// TestFormatV3Types: v3-only types are accepted in v3 tables (created so or
// upgraded) and refused with 400 in v1 and v2 tables.
func TestFormatV3Types(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", map[string]any{"namespace": []string{"ns"}}); code != 200 {
		t.Fatalf("namespace: %d %v", code, body)
	}
	schemaOf := func(typ any) map[string]any {
		return map[string]any{"type": "struct", "schema-id": 0, "fields": []any{
			map[string]any{"id": 1, "name": "id", "required": true, "type": "long"},
			map[string]any{"id": 2, "name": "x", "required": false, "type": typ},
		}}
	}
	n := 0
	create := func(version string, typ any) int {
		n++
		body := map[string]any{"name": "t" + string(rune('a'+n%26)) + string(rune('a'+n/26)), "schema": schemaOf(typ)}
		if version != "" {
			body["properties"] = map[string]string{"format-version": version}
		}
		code, _ := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", body)
		return code
	}
	nested := map[string]any{"type": "list", "element-id": 3, "element": "variant", "element-required": false}
	cases := []struct {
		name, version string
		typ           any
		code          int
	}{
		{"timestamp_ns in v3", "3", "timestamp_ns", 200},
		{"timestamptz_ns in v3", "3", "timestamptz_ns", 200},
		{"variant in v3", "3", "variant", 200},
		{"unknown in v3", "3", "unknown", 200},
		{"timestamp_ns in v2", "2", "timestamp_ns", 400},
		{"timestamptz_ns in default (v2)", "", "timestamptz_ns", 400},
		{"variant in v1", "1", "variant", 400},
		{"unknown in v2", "2", "unknown", 400},
		{"variant inside a list in v2", "2", nested, 400},
		{"long in v1", "1", "long", 200},
		{"format version 4", "4", "long", 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if code := create(c.version, c.typ); code != c.code {
				t.Fatalf("create: %d, want %d", code, c.code)
			}
		})
	}

	// An existing v2 table: adding a v3 type is refused until it is
	// upgraded (in the same commit or before).
	if code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{"name": "old", "schema": schemaOf("string")}); code != 200 {
		t.Fatalf("create old: %d %v", code, body)
	}
	addSchema := map[string]any{"action": "add-schema", "schema": map[string]any{"type": "struct", "schema-id": 1, "fields": []any{
		map[string]any{"id": 1, "name": "id", "required": true, "type": "long"},
		map[string]any{"id": 2, "name": "x", "required": false, "type": "string"},
		map[string]any{"id": 3, "name": "at", "required": false, "type": "timestamp_ns"},
	}}}
	upgrade := map[string]any{"action": "upgrade-format-version", "format-version": 3}
	commits := []struct {
		name    string
		updates []any
		code    int
		version float64
	}{
		{"add timestamp_ns to v2", []any{addSchema}, 400, 2},
		{"add it before upgrading in one commit", []any{addSchema, upgrade}, 200, 3},
	}
	for _, c := range commits {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/old", "", map[string]any{"updates": c.updates})
			if code != c.code {
				t.Fatalf("commit: %d %v, want %d", code, body, c.code)
			}
			_, body = e.call(t, "GET", "/v1/lake/namespaces/ns/tables/old", "", nil)
			md := body["metadata"].(map[string]any)
			if md["format-version"].(float64) != c.version {
				t.Fatalf("format-version %v, want %v", md["format-version"], c.version)
			}
			if c.version == 3 && md["next-row-id"] != float64(0) {
				t.Fatalf("upgraded table's next-row-id %v, want 0", md["next-row-id"])
			}
		})
	}
}
