package iceworker

import (
	"context"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// deletesTable builds a v2 merge-on-read partitioned table of 8 appends
// (40 rows), then deletes rows with a position delete (id < 4, written
// by iceberg-go's merge-on-read Delete) and an equality delete on id
// (ids 20 and 21). It returns the table and the ids that must be gone.
func deletesTable(t *testing.T, e *testEnv, name string) (*table.Table, []int64) {
	t.Helper()
	ctx := context.Background()
	tbl := e.createTable(t, name, true, iceberggo.Properties{"write.delete.mode": "merge-on-read", "format-version": "2"})
	for i := range int64(8) {
		tbl = appendRows(t, tbl, i*5, i*5+5)
	}
	var err error
	if tbl, err = tbl.Delete(ctx, iceberggo.LessThan(iceberggo.Reference("id"), int64(4)), nil); err != nil {
		t.Fatalf("position delete: %v", err)
	}
	// Equality deletes on a partitioned table carry the partition source
	// column beside the key.
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "region", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	for _, id := range []int64{20, 21} {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append([]string{"eu", "us", "ap"}[(id/3)%3])
	}
	rec := b.NewRecordBatch()
	b.Release()
	txn := tbl.NewTransaction()
	var batches iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	if err := txn.CommitEqualityDeletes(ctx, []int{1}, batches, nil); err != nil {
		t.Fatalf("equality delete: %v", err)
	}
	if tbl, err = txn.Commit(ctx); err != nil {
		t.Fatalf("commit the equality delete: %v", err)
	}
	rec.Release()
	return tbl, []int64{0, 1, 2, 3, 20, 21}
}

// TestCompactAppliesDeleteFiles: a table with position and equality
// delete files compacts into files that hold exactly the live rows (the
// deleted rows are gone from the files themselves, not only hidden); the
// scan is the same before and after; orphan removal and expiry count the
// delete files as referenced and delete none while a snapshot needs them.
func TestCompactAppliesDeleteFiles(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl, gone := deletesTable(t, e, "events")
	s, _ := readSettings(JobCompact, "", nil)
	f, err := e.job(t, JobCompact, "events", nil).observe(ctx, tbl, thresholdsFrom(JobCompact, s))
	if err != nil {
		t.Fatal(err)
	}
	if f.DeleteFiles < 2 {
		t.Fatalf("test setup: %d delete files, want position and equality ones", f.DeleteFiles)
	}
	want := scanRows(t, tbl, 0)
	if len(want) != 40-len(gone) {
		t.Fatalf("test setup: scan shows %d rows, want %d", len(want), 40-len(gone))
	}
	deleteFiles := liveDeleteFiles(t, tbl)

	// Orphan removal, with every file past its age threshold, keeps every
	// delete file.
	before := tree(t, Canonical(tbl.Location()))
	oj := e.job(t, JobOrphans, "events", map[string]string{"older_than_hours": "1"})
	oj.Now = func() time.Time { return time.Now().Add(48 * time.Hour) } // every file is old
	out := mustRun(t, oj)
	if out.Result["orphan_files"] != "0" {
		t.Fatalf("orphan removal found orphans in a table with none: %v", out.Result)
	}
	after := tree(t, Canonical(tbl.Location()))
	if !maps.Equal(before, after) {
		t.Fatalf("orphan removal deleted referenced files (%s)", out.Summary)
	}

	out = mustRun(t, e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"}))
	t.Log(out.Summary)
	if out.Result["delete_files_applied"] == "0" || out.Result["rows"] != itoa(int64(len(want))) {
		t.Fatalf("result = %v, want the delete files applied and %d rows written", out.Result, len(want))
	}
	tbl = e.load(t, "events")
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by compaction: %d → %d", len(want), len(got))
	}
	// The new data files hold only live rows: read them with no delete
	// files at all and the deleted ids must be absent.
	var physical int64
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		physical += task.File.Count()
		task.DeleteFiles, task.EqualityDeleteFiles, task.DeletionVectorFiles = nil, nil, nil
	}
	_, recs, err := tbl.Scan().ReadTasks(ctx, tasks)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		for i := range ids.Len() {
			seen[ids.Value(i)] = true
		}
		rec.Release()
	}
	for _, id := range gone {
		if seen[id] {
			t.Errorf("deleted id %d is still in a compacted data file", id)
		}
	}
	if physical != int64(len(want)) || len(seen) != len(want) {
		t.Fatalf("compacted files hold %d rows (%d distinct ids), want %d", physical, len(seen), len(want))
	}

	// Expiry of every older snapshot deletes only files no remaining
	// snapshot names: delete files the current snapshot still lists stay.
	mustRun(t, e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"}))
	tbl = e.load(t, "events")
	for _, p := range liveDeleteFiles(t, tbl) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a delete file the current snapshot names is gone: %v", err)
		}
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by expiry: %d → %d", len(want), len(got))
	}
	mustRun(t, e.job(t, JobManifests, "events", map[string]string{"min_manifests": "2"}))
	if got := scanRows(t, e.load(t, "events"), 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by the manifest rewrite: %d → %d", len(want), len(got))
	}
	t.Logf("%d delete files before compaction, %d after", len(deleteFiles), len(liveDeleteFiles(t, e.load(t, "events"))))
}

// TestCompactWithConcurrentDelete: a writer deletes rows after the
// compaction rewrote its files and before it commits; the compaction must
// not re-stage its files (they hold the rows the writer deleted), so it
// fails with a sentence, and the writer's delete holds.
func TestCompactWithConcurrentDelete(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, iceberggo.Properties{"write.delete.mode": "merge-on-read", "format-version": "2"})
	for i := range int64(8) {
		tbl = appendRows(t, tbl, i*5, i*5+5)
	}
	j := e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"})
	deleted := false
	j.Progress = func(stage string, _ float64, _ string) {
		if stage == "committing" && !deleted {
			deleted = true
			if _, err := e.load(t, "events").Delete(ctx, iceberggo.EqualTo(iceberggo.Reference("id"), int64(7)), nil); err != nil {
				t.Errorf("the writer's delete: %v", err)
			}
		}
	}
	_, err := j.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "run it again") {
		t.Fatalf("compaction over a concurrent delete: %v, want a failure with a sentence", err)
	}
	for _, r := range scanRows(t, e.load(t, "events"), 0) {
		if strings.HasPrefix(r, "id=7,") {
			t.Fatal("the writer's deleted row is back")
		}
	}
	if got := len(scanRows(t, e.load(t, "events"), 0)); got != 39 {
		t.Fatalf("rows after the concurrent delete = %d, want 39", got)
	}
}

// liveDeleteFiles lists the delete files the current snapshot names.
func liveDeleteFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	fs, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mans, err := tbl.CurrentSnapshot().Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range mans {
		for en, err := range m.Entries(fs, true) {
			if err != nil {
				t.Fatal(err)
			}
			if isDeleteContent(en.DataFile().ContentType()) {
				out = append(out, Canonical(en.DataFile().FilePath()))
			}
		}
	}
	return out
}
