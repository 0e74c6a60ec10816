package icebergrest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

var arrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// batch builds rows id = from..to-1, region alternating eu/us, name "n<id>"
// except every fifth row, which is null.
func batch(from, to int64) arrow.Table {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		if i%5 == 0 {
			b.Field(1).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		}
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us"}[i%2])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(arrowSchema, []arrow.RecordBatch{rec})
}

func newClient(t testing.TB, url, warehouse, token string) *rest.Catalog {
	t.Helper()
	opts := []rest.Option{rest.WithWarehouseLocation(warehouse)}
	if token != "" {
		opts = append(opts, rest.WithOAuthToken(token))
	}
	cat, err := rest.NewCatalog(context.Background(), "floe", url, opts...)
	if err != nil {
		t.Fatalf("rest.NewCatalog: %v", err)
	}
	return cat
}

func createEventsTable(t testing.TB, ctx context.Context, cat *rest.Catalog, ident table.Identifier) *table.Table {
	t.Helper()
	schema := iceberggo.NewSchema(0,
		iceberggo.NestedField{ID: 1, Name: "id", Type: iceberggo.PrimitiveTypes.Int64, Required: true},
		iceberggo.NestedField{ID: 2, Name: "name", Type: iceberggo.PrimitiveTypes.String},
		iceberggo.NestedField{ID: 3, Name: "region", Type: iceberggo.PrimitiveTypes.String},
	)
	spec := iceberggo.NewPartitionSpec(iceberggo.PartitionField{SourceIDs: []int{3}, FieldID: 1000, Name: "region", Transform: iceberggo.IdentityTransform{}})
	tbl, err := cat.CreateTable(ctx, ident, schema, icecatalog.WithPartitionSpec(&spec))
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	return tbl
}

func scanIDs(t testing.TB, ctx context.Context, tbl *table.Table) []int64 {
	t.Helper()
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer at.Release()
	var ids []int64
	idx := at.Schema().FieldIndices("id")[0]
	for _, c := range at.Column(idx).Data().Chunks() {
		ids = append(ids, c.(*array.Int64).Int64Values()...)
	}
	slices.Sort(ids)
	return ids
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestIcebergGoClient drives the real iceberg-go REST client: namespace,
// partitioned table, two appends, a scan, and then the console's read side.
func TestIcebergGoClient(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, false)
	env.bucket(t, "lake", catalog.FormatIceberg)
	_, secret, err := env.store.CreateAPIKey(ctx, "test", catalog.RoleReadWrite, "lake", 0)
	if err != nil {
		t.Fatal(err)
	}
	cat := newClient(t, env.http.URL, "lake", secret)

	if err := cat.CreateNamespace(ctx, table.Identifier{"sales"}, iceberggo.Properties{"owner": "ops"}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	props, err := cat.LoadNamespaceProperties(ctx, table.Identifier{"sales"})
	if err != nil || props["owner"] != "ops" {
		t.Fatalf("namespace properties = %v, %v", props, err)
	}
	ident := table.Identifier{"sales", "events"}
	tbl := createEventsTable(t, ctx, cat, ident)

	if tbl, err = tbl.AppendTable(ctx, batch(0, 30), 1024, nil); err != nil {
		t.Fatalf("first append: %v", err)
	}
	if tbl, err = tbl.AppendTable(ctx, batch(30, 50), 1024, nil); err != nil {
		t.Fatalf("second append: %v", err)
	}
	reloaded, err := cat.LoadTable(ctx, ident)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got := scanIDs(t, ctx, reloaded); !slices.Equal(got, seq(0, 50)) {
		t.Fatalf("scan ids = %v", got)
	}
	var names []string
	for id, err := range cat.ListTables(ctx, table.Identifier{"sales"}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, id[len(id)-1])
	}
	if !slices.Equal(names, []string{"events"}) {
		t.Fatalf("list tables = %v", names)
	}

	entry, err := env.store.GetTable(ctx, catalog.TableRef{Bucket: "lake", Namespace: []string{"sales"}, Name: "events"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := iceberg.LoadTableMetadata(ctx, env.store.Storage(), entry)
	if err != nil {
		t.Fatalf("iceberg.LoadTableMetadata: %v", err)
	}
	if len(md.Snapshots) != 2 || md.SnapshotCount != 2 {
		t.Fatalf("snapshots = %d (%d)", len(md.Snapshots), md.SnapshotCount)
	}
	// Newest first.
	if md.Snapshots[0].AddedRecords != 20 || md.Snapshots[0].TotalRecords != 50 ||
		md.Snapshots[1].AddedRecords != 30 || md.Snapshots[1].TotalRecords != 30 {
		t.Fatalf("snapshot records = %+v", md.Snapshots)
	}
	if md.TotalRecords != 50 || md.TotalDataFiles < 2 {
		t.Fatalf("summary records=%d files=%d", md.TotalRecords, md.TotalDataFiles)
	}
	if len(md.PartitionSpec) != 1 || md.PartitionSpec[0].Transform != "identity" || md.PartitionSpec[0].SourceName != "region" {
		t.Fatalf("partition spec = %+v", md.PartitionSpec)
	}

	rows, err := iceberg.ReadRows(ctx, env.store.Storage(), entry, 0, 200)
	if err != nil {
		t.Fatalf("iceberg.ReadRows: %v", err)
	}
	if len(rows.Rows) != 50 || len(rows.Columns) != 3 || rows.Columns[0].Name != "id" {
		t.Fatalf("rows = %d, columns = %+v, notes = %v", len(rows.Rows), rows.Columns, rows.Notes)
	}
	var nulls int
	for _, r := range rows.Rows {
		if r[1].Null {
			nulls++
			if r[1].Text != "" {
				t.Fatalf("null cell carries text %q", r[1].Text)
			}
		}
	}
	if nulls != 10 {
		t.Fatalf("null names = %d, want 10", nulls)
	}
	// The first snapshot alone holds 30 rows.
	first, err := iceberg.ReadRows(ctx, env.store.Storage(), entry, md.Snapshots[1].ID, 200)
	if err != nil || len(first.Rows) != 30 {
		t.Fatalf("iceberg.ReadRows(first snapshot) = %v rows, %v", first, err)
	}

	// Drop without purge keeps files; the metadata can be registered again.
	if err := cat.DropTable(ctx, ident); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if !fileExists(entry.MetadataLocation) {
		t.Fatalf("drop without purge deleted %s", entry.MetadataLocation)
	}
	back, err := cat.RegisterTable(ctx, ident, entry.MetadataLocation)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if got := scanIDs(t, ctx, back); len(got) != 50 {
		t.Fatalf("registered table scan = %d rows", len(got))
	}
	if _, err := cat.RenameTable(ctx, ident, table.Identifier{"sales", "events2"}); err != nil {
		t.Fatalf("rename: %v", err)
	}
	if ok, _ := cat.CheckTableExists(ctx, ident); ok {
		t.Fatal("old name still exists after rename")
	}
	if err := cat.PurgeTable(ctx, table.Identifier{"sales", "events2"}); err != nil {
		t.Fatalf("purge: %v", err)
	}
	if fileExists(entry.MetadataLocation) {
		t.Fatal("purge kept the files")
	}
	if err := cat.DropNamespace(ctx, table.Identifier{"sales"}); err != nil {
		t.Fatalf("drop namespace: %v", err)
	}
}

// TestConcurrentAppends: two clients append to one table at once; exactly
// one commit wins, the loser gets CommitFailed, reloads, re-appends, and
// both appends survive.
func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, true)
	env.bucket(t, "lake", catalog.FormatUnset)
	setup := newClient(t, env.http.URL, "lake", "")
	if err := setup.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	ident := table.Identifier{"ns", "t"}
	createEventsTable(t, ctx, setup, ident)

	clients := []*rest.Catalog{newClient(t, env.http.URL, "lake", ""), newClient(t, env.http.URL, "lake", "")}
	tables := make([]*table.Table, 2)
	for i, c := range clients {
		tb, err := c.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		tables[i] = tb // both start from the same metadata
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			_, errs[i] = tables[i].AppendTable(ctx, batch(int64(i*100), int64(i*100+10)), 1024, nil)
		})
	}
	wg.Wait()
	var wins, losses int
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, table.ErrCommitFailed) || errors.Is(err, rest.ErrCommitFailed):
			losses++
			tb, err := clients[i].LoadTable(ctx, ident)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.AppendTable(ctx, batch(int64(i*100), int64(i*100+10)), 1024, nil); err != nil {
				t.Fatalf("retry append: %v", err)
			}
		default:
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if wins != 1 || losses != 1 {
		t.Fatalf("wins=%d losses=%d (errs %v)", wins, losses, errs)
	}
	final, err := setup.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	want := append(seq(0, 10), seq(100, 110)...)
	if got := scanIDs(t, ctx, final); !slices.Equal(got, want) {
		t.Fatalf("ids after both appends = %v", got)
	}
}
