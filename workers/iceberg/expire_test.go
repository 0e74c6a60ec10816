package iceworker

import (
	"context"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestExpireRemovesExactlyUnreachable: ten appends, a tag on the second
// snapshot and a branch on the fourth; expiring everything but the last
// snapshot keeps the tag's and branch's snapshots (and their files) and
// deletes exactly the files no remaining snapshot references.
func TestExpireRemovesExactlyUnreachable(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	var snaps []int64
	for i := range int64(10) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
		snaps = append(snaps, tbl.CurrentSnapshot().SnapshotID)
	}
	// A compaction first, so some data files are only reachable from old
	// snapshots (the appends alone never drop a data file).
	mustRun(t, e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"}))
	tbl = e.load(t, "events")
	_, _, err := e.cat.CommitTable(ctx, table.Identifier{"ns", "events"}, nil, []table.Update{
		table.NewSetSnapshotRefUpdate("audit", snaps[1], table.TagRef, 0, 0, 0),
		table.NewSetSnapshotRefUpdate("dev", snaps[3], table.BranchRef, 0, 0, 0),
	})
	if err != nil {
		t.Fatalf("set refs: %v", err)
	}
	tbl = e.load(t, "events")
	loc := Canonical(tbl.Location())
	before := tree(t, loc)
	wantRows := scanRows(t, tbl, 0)
	tagRows := scanRows(t, tbl, snaps[1])

	// What must stay: every file of the remaining snapshots (main head,
	// tag, branch with retain_last 1), computed with iceberg-go directly.
	kept := map[int64]bool{tbl.CurrentSnapshot().SnapshotID: true, snaps[1]: true, snaps[3]: true}
	stay := map[string]bool{}
	gone := map[string]bool{}
	for _, s := range tbl.Metadata().Snapshots() {
		for _, f := range snapshotFiles(t, tbl, &s) {
			if kept[s.SnapshotID] {
				stay[f] = true
			} else {
				gone[f] = true
			}
		}
	}
	for f := range stay {
		delete(gone, f)
	}
	if len(gone) == 0 {
		t.Fatal("test setup: no data file is reachable only from expiring snapshots")
	}

	out := mustRun(t, e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"}))
	t.Log(out.Summary)

	tbl = e.load(t, "events")
	var ids []int64
	for _, s := range tbl.Metadata().Snapshots() {
		ids = append(ids, s.SnapshotID)
	}
	slices.Sort(ids)
	wantIDs := slices.Sorted(maps.Keys(kept))
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("snapshots after expiry = %v, want %v", ids, wantIDs)
	}
	refs := maps.Collect(tbl.Metadata().Refs())
	if r, ok := refs["audit"]; !ok || r.SnapshotID != snaps[1] {
		t.Fatalf("tag audit = %+v, %v", r, ok)
	}
	if r, ok := refs["dev"]; !ok || r.SnapshotID != snaps[3] {
		t.Fatalf("branch dev = %+v, %v", r, ok)
	}
	after := tree(t, loc)
	for f := range gone {
		if _, ok := after[f]; ok {
			t.Errorf("unreachable data file %s survived", f)
		}
	}
	for f := range stay {
		if _, ok := after[f]; !ok {
			t.Errorf("referenced data file %s was deleted", f)
		}
	}
	// Nothing but data files, manifests and manifest lists of dropped
	// snapshots went; metadata JSON files all stay.
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reachOf(ctx, fs, tbl.Metadata().Snapshots())
	if err != nil {
		t.Fatal(err)
	}
	for f := range before {
		if _, ok := after[f]; ok {
			continue
		}
		if r.has(f) {
			t.Errorf("%s was deleted but a remaining snapshot needs it", f)
		}
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s reported gone but exists", f)
		}
	}
	if len(before)-len(after) < len(gone) {
		t.Fatalf("deleted %d files, fewer than the %d unreachable data files", len(before)-len(after), len(gone))
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, wantRows) {
		t.Fatalf("current rows changed: %d → %d", len(wantRows), len(got))
	}
	if got := scanRows(t, tbl, snaps[1]); !slices.Equal(got, tagRows) {
		t.Fatalf("tag rows changed: %d → %d", len(tagRows), len(got))
	}
	if _, err := tbl.Scan(table.WithSnapshotID(snaps[5])).ToArrowTable(ctx); err == nil {
		t.Fatal("time travel to an expired snapshot still works")
	}
}
