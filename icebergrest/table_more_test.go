package icebergrest

import (
	"context"
	"errors"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// TestStagedCreateAndTransaction: iceberg-go's staged create (stage-create,
// then a commit with assert-create) and its transaction endpoint.
func TestStagedCreateAndTransaction(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberggo.NewSchema(0, iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true})
	ident := table.Identifier{"ns", "staged"}
	tbl, err := cat.CreateTable(ctx, ident, schema, icecatalog.WithStagedUpdates(table.NewSetPropertiesUpdate(iceberggo.Properties{"stage": "yes"})))
	if err != nil {
		t.Fatalf("staged create: %v", err)
	}
	if tbl.Properties()["stage"] != "yes" {
		t.Fatalf("properties = %v", tbl.Properties())
	}
	entry, err := e.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "staged"})
	if err != nil || entry.MetadataLocation == "" {
		t.Fatalf("entry after staged create = %+v, %v", entry, err)
	}
	if err := cat.CommitTransaction(ctx, []table.TableCommit{{
		Identifier:   ident,
		Requirements: []table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())},
		Updates:      []table.Update{table.NewSetPropertiesUpdate(iceberggo.Properties{"txn": "1"})},
	}}); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	again, err := cat.LoadTable(ctx, ident)
	if err != nil || again.Properties()["txn"] != "1" {
		t.Fatalf("after transaction: %v, %v", again.Properties(), err)
	}
	md, err := iceberg.LoadTableMetadata(ctx, e.store.Storage(), mustTable(t, e, "staged"))
	if err != nil {
		t.Fatal(err)
	}
	if md.SnapshotCount != 0 || md.TotalRecords != -1 || len(md.Columns) != 1 {
		t.Fatalf("metadata of an empty table = %+v", md)
	}
	rows, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "staged"), 0, 0)
	if err != nil || len(rows.Rows) != 0 || len(rows.Notes) == 0 || len(rows.Columns) != 1 {
		t.Fatalf("rows of an empty table = %+v, %v", rows, err)
	}
}

func mustTable(t *testing.T, e *testEnv, name string) catalog.Table {
	t.Helper()
	tb, err := e.store.GetTable(context.Background(), catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestNestedSchemaRendering: nested types come out readable, ids are
// assigned afresh, and a Lance-typed table is refused by the read side.
func TestNestedSchemaRendering(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatUnset)
	e.call(t, "POST", "/v1/lake/namespaces", "", map[string]any{"namespace": []string{"ns"}})
	code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{
		"name": "nested",
		"schema": map[string]any{"type": "struct", "fields": []any{
			map[string]any{"id": 10, "name": "id", "required": true, "type": "long"},
			map[string]any{"id": 11, "name": "addr", "required": false, "type": map[string]any{"type": "struct", "fields": []any{
				map[string]any{"id": 12, "name": "city", "required": false, "type": "string"},
				map[string]any{"id": 13, "name": "geo", "required": false, "type": map[string]any{"type": "list", "element-id": 14, "element": "double", "element-required": true}},
			}}},
			map[string]any{"id": 15, "name": "attrs", "required": false, "type": map[string]any{"type": "map", "key-id": 16, "key": "string", "value-id": 17, "value": "decimal(9, 2)", "value-required": false}},
		}},
		"partition-spec": map[string]any{"fields": []any{map[string]any{"source-id": 10, "name": "id_bucket", "transform": "bucket[8]"}}},
		"write-order":    map[string]any{"order-id": 1, "fields": []any{map[string]any{"source-id": 12, "transform": "identity", "direction": "asc", "null-order": "nulls-first"}}},
		"properties":     map[string]string{"owner": "me"},
	})
	if code != 200 {
		t.Fatalf("create: %d %v", code, body)
	}
	md, err := iceberg.LoadTableMetadata(context.Background(), e.store.Storage(), mustTable(t, e, "nested"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"id":       "long",
		"addr":     "struct<city: string, geo: list<double>>",
		"addr.geo": "list<double>",
		"attrs":    "map<string, decimal(9, 2)>",
	}
	got := map[string]string{}
	for _, c := range md.Columns {
		got[c.Path] = c.Type
	}
	for p, typ := range want {
		if got[p] != typ {
			t.Errorf("column %s = %q, want %q (all: %v)", p, got[p], typ, got)
		}
	}
	if md.Columns[0].ID != 1 {
		t.Errorf("ids not assigned afresh: first id %d", md.Columns[0].ID)
	}
	if len(md.PartitionSpec) != 1 || md.PartitionSpec[0].SourceName != "id" || md.PartitionSpec[0].FieldID != 1000 || md.PartitionSpec[0].Transform != "bucket[8]" {
		t.Errorf("partition spec = %+v", md.PartitionSpec)
	}
	if len(md.SortOrder) != 1 || md.SortOrder[0].SourceName != "addr.city" {
		t.Errorf("sort order = %+v", md.SortOrder)
	}
	if len(md.Properties) != 1 || md.Properties[0] != (iceberg.Property{Key: "owner", Value: "me"}) {
		t.Errorf("properties = %+v", md.Properties)
	}
	lance := mustTable(t, e, "nested")
	lance.Format = catalog.FormatLance
	if _, err := iceberg.LoadTableMetadata(context.Background(), e.store.Storage(), lance); err == nil {
		t.Error("a Lance table was read as Iceberg")
	}
}

// TestMultiLevelNamespaces: iceberg-go sends nested namespaces with the
// unit separator (%1F); a child needs its parent; listing by parent works.
func TestMultiLevelNamespaces(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"sales", "eu"}, nil); err == nil {
		t.Fatal("a child namespace was created without its parent")
	}
	for _, ns := range []table.Identifier{{"sales"}, {"sales", "eu"}, {"sales", "us"}} {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
			t.Fatalf("create %v: %v", ns, err)
		}
	}
	kids, err := cat.ListNamespaces(ctx, table.Identifier{"sales"})
	if err != nil || len(kids) != 2 || kids[0][1] != "eu" {
		t.Fatalf("children of sales = %v, %v", kids, err)
	}
	ident := table.Identifier{"sales", "eu", "orders"}
	tbl := createEventsTable(t, ctx, cat, ident)
	if _, err := tbl.AppendTable(ctx, batch(0, 3), 1024, nil); err != nil {
		t.Fatalf("append in nested namespace: %v", err)
	}
	if ok, err := cat.CheckTableExists(ctx, ident); !ok || err != nil {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	if err := cat.DropNamespace(ctx, table.Identifier{"sales", "eu"}); !errors.Is(err, icecatalog.ErrNamespaceNotEmpty) {
		t.Fatalf("dropping a non-empty namespace = %v", err)
	}
	sum, err := cat.UpdateNamespaceProperties(ctx, table.Identifier{"sales", "us"}, []string{"absent"}, iceberggo.Properties{"tier": "gold"})
	if err != nil || len(sum.Updated) != 1 || len(sum.Missing) != 1 {
		t.Fatalf("properties update = %+v, %v", sum, err)
	}
}
