package icebergrest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// appendedTable makes ns.t with rows 0..50 appended in two commits.
func appendedTable(t *testing.T) (*testEnv, *table.Table) {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	cat := newClient(t, e.http.URL, "lake", "")
	if err := cat.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tbl := createEventsTable(t, ctx, cat, table.Identifier{"ns", "t"})
	var err error
	if tbl, err = tbl.AppendTable(ctx, batch(0, 30), 1024, nil); err != nil {
		t.Fatal(err)
	}
	if tbl, err = tbl.AppendTable(ctx, batch(30, 50), 1024, nil); err != nil {
		t.Fatal(err)
	}
	return e, tbl
}

// TestReadRowsDeleteFiles: an equality delete written by iceberg-go is
// flagged, not silently ignored.
func TestReadRowsDeleteFiles(t *testing.T) {
	ctx := context.Background()
	e, tbl := appendedTable(t)
	before, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 100)
	if err != nil || before.HasDeleteFiles {
		t.Fatalf("before delete: %+v, %v", before, err)
	}
	// The partition column travels along so the writer can place the file.
	s := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "region", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	b.Field(0).(*array.Int64Builder).Append(7)
	b.Field(1).(*array.StringBuilder).Append("us")
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	txn := tbl.NewTransaction()
	recs := func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	if err := txn.CommitEqualityDeletes(ctx, []int{1}, recs, nil); err != nil {
		t.Fatalf("equality delete: %v", err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatalf("commit delete: %v", err)
	}
	after, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !after.HasDeleteFiles || len(after.Rows) != 50 {
		t.Fatalf("after delete: flag %v, %d rows, notes %v", after.HasDeleteFiles, len(after.Rows), after.Notes)
	}
	md, err := iceberg.LoadTableMetadata(ctx, e.store.Storage(), mustTable(t, e, "t"))
	if err != nil || md.TotalDeleteFiles < 1 || md.SnapshotCount != 3 {
		t.Fatalf("metadata after delete: %+v, %v", md, err)
	}
}

// TestReadRowsUnreadableFile: a missing data file becomes a note and the
// page still shows the rest; limits and paging flags hold.
func TestReadRowsUnreadableFile(t *testing.T) {
	ctx := context.Background()
	e, tbl := appendedTable(t)
	small, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 5)
	if err != nil || len(small.Rows) != 5 || !small.More || small.FilesRead != 1 {
		t.Fatalf("limit 5: %d rows, more %v, files %d, %v", len(small.Rows), small.More, small.FilesRead, err)
	}
	if big, _ := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 10_000); len(big.Rows) != 50 || big.More {
		t.Fatalf("limit above max: %d rows, more %v", len(big.Rows), big.More)
	}
	files, err := tbl.Scan().PlanFiles(ctx)
	if err != nil || len(files) < 2 {
		t.Fatalf("plan files: %d, %v", len(files), err)
	}
	victim := files[0].File.FilePath()
	gone := files[0].File.Count()
	if err := os.Remove(strings.TrimPrefix(victim, "file://")); err != nil {
		t.Fatal(err)
	}
	rows, err := iceberg.ReadRows(ctx, e.store.Storage(), mustTable(t, e, "t"), 0, 200)
	if err != nil {
		t.Fatalf("iceberg.ReadRows with a missing file: %v", err)
	}
	if int64(len(rows.Rows)) != 50-gone || len(rows.Notes) != 1 || !strings.Contains(rows.Notes[0], "unreadable") {
		t.Fatalf("%d rows (want %d), notes %v", len(rows.Rows), 50-gone, rows.Notes)
	}
}
