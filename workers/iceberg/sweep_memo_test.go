package iceworker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepMemoOrphanEstimate: a remembered table is listed afresh every
// sweep (a new orphan shows at once), an append is read incrementally (its
// new files are referenced, not orphans), and after expiry the reach is
// read again (a file an expired snapshot named, planted again, is an
// orphan, not hidden by the remembered reach).
func TestSweepMemoOrphanEstimate(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(3) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	s, _ := readSettings(JobOrphans, "", nil)
	th := thresholdsFrom(JobOrphans, s)
	memo := newSweepMemo()
	observe := func(step string) Figures {
		t.Helper()
		f, err := e.job(t, JobOrphans, "events", nil).observeMemo(ctx, e.load(t, "events"), th, memo)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		exact, err := e.job(t, JobOrphans, "events", nil).scanOrphans(ctx, e.load(t, "events"), th.orphanAge)
		if err != nil {
			t.Fatal(err)
		}
		if f.OrphanFiles != int64(len(exact.old)) || f.OrphanBytes != exact.oldBytes {
			t.Errorf("%s: estimate %d files/%d bytes, the job's exact scan %d/%d", step, f.OrphanFiles, f.OrphanBytes, len(exact.old), exact.oldBytes)
		}
		return f
	}
	tests := []struct {
		step        string
		change      func()
		orphans     int64
		dataFilesAt int64 // data files the figures must show
	}{
		{"first sweep", func() {}, 0, 9},
		{"orphan planted, metadata unchanged", func() {
			plant(t, filepath.Join(Canonical(tbl.Location()), "data", "lost.parquet"), 5*24*time.Hour)
		}, 1, 9},
		{"append", func() { tbl = appendRows(t, e.load(t, "events"), 30, 40) }, 1, 12},
		{"compact then expire all but the last snapshot", func() {
			mustRun(t, e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"}))
			gone := snapshotFiles(t, tbl, tbl.CurrentSnapshot())
			mustRun(t, e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"}))
			if _, err := os.Stat(gone[0]); err == nil {
				t.Fatalf("expiry kept %s", gone[0])
			}
			plant(t, gone[0], 5*24*time.Hour) // named only by an expired snapshot
		}, 2, 3},
	}
	for _, tc := range tests {
		tc.change()
		f := observe(tc.step)
		if f.OrphanFiles != tc.orphans || f.DataFiles != tc.dataFilesAt {
			t.Errorf("%s: %d orphans, %d data files; want %d, %d", tc.step, f.OrphanFiles, f.DataFiles, tc.orphans, tc.dataFilesAt)
		}
	}
	cs, _ := readSettings(JobCompact, "", nil)
	f, err := e.job(t, JobCompact, "events", nil).observeMemo(ctx, e.load(t, "events"), thresholdsFrom(JobCompact, cs), memo)
	if err != nil || f.OrphanFiles != 2 {
		t.Fatalf("a compaction sweep after the orphan sweep reports %d orphans (%v), want the carried 2", f.OrphanFiles, err)
	}
	if e := memo.get(e.ref(t, "events").ID, e.load(t, "events").MetadataLocation()); e == nil || e.reach == nil {
		t.Fatal("the memo kept nothing for the table")
	}
	memo.keepOnly(map[string]bool{})
	if len(memo.m) != 0 || memo.paths != 0 {
		t.Fatalf("keepOnly left %d tables, %d paths", len(memo.m), memo.paths)
	}
}
