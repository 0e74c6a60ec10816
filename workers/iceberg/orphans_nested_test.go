package iceworker

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestRemoveOrphansSparesNestedTables: a table registered (or left from
// before floe refused it) inside another table's location keeps every
// file when the outer table's orphans are removed, by the job and by
// detection's estimate; a real orphan of the outer table still goes.
func TestRemoveOrphansSparesNestedTables(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	outer := e.createTable(t, "outer", false, nil)
	outer = appendRows(t, outer, 0, 10)
	inner := e.createTable(t, "inner", false, nil)
	appendRows(t, inner, 100, 110)
	root := Canonical(outer.Location())
	nestedLoc := filepath.Join(root, "legacy", "inner")
	// floe refuses this at create; a legacy row can still hold it.
	if _, err := e.db.ExecContext(ctx, `UPDATE tables SET location = ? WHERE id = ?`, nestedLoc, e.ref(t, "inner").ID); err != nil {
		t.Fatal(err)
	}
	innerFiles := []string{filepath.Join(nestedLoc, "data", "00000-a.parquet"), filepath.Join(nestedLoc, "metadata", "v1.metadata.json")}
	for _, p := range innerFiles {
		plant(t, p, 10*24*time.Hour)
	}
	lost := filepath.Join(root, "data", "lost.parquet")
	plant(t, lost, 10*24*time.Hour)
	beside := filepath.Join(root, "legacy", "inner-not", "x.parquet") // shares a prefix, not the directory
	plant(t, beside, 10*24*time.Hour)

	if got := nestedIndex([]TableRef{{ID: "o", Location: root}, {ID: "i", Location: nestedLoc}, {ID: "b", Location: nestedLoc + "-not"}}); !slices.Equal(got["o"], []string{nestedLoc, nestedLoc + "-not"}) || len(got["i"]) != 0 {
		t.Fatalf("nestedIndex = %v", got)
	}

	s, _ := readSettings(JobOrphans, "", nil)
	f, err := e.job(t, JobOrphans, "outer", nil).observeMemo(ctx, e.load(t, "outer"), thresholdsFrom(JobOrphans, s), newSweepMemo())
	if err != nil {
		t.Fatal(err)
	}
	if f.OrphanFiles != 2 {
		t.Fatalf("the estimate counts %d orphans, want 2 (lost and beside; not the nested table's)", f.OrphanFiles)
	}
	out := mustRun(t, e.job(t, JobOrphans, "outer", nil))
	t.Log(out.Summary)
	after := tree(t, root)
	for _, p := range innerFiles {
		if _, ok := after[p]; !ok {
			t.Errorf("the nested table's file %s was deleted", p)
		}
	}
	for _, p := range []string{lost, beside} {
		if _, ok := after[p]; ok {
			t.Errorf("orphan %s survived", p)
		}
	}
	if out.Result["nested_tables_spared"] != "1" || out.Result["nested_table_files_spared"] != "2" {
		t.Fatalf("result = %v", out.Result)
	}
}
