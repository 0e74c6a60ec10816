package iceworker

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/warehouse"
)

// TestRemoveOrphansOnS3: on a real S3 store (SeaweedFS), planted old
// orphans go, a planted young one and every referenced object stay, and
// the dry run deletes nothing. An object's age is its LastModified, which
// no client can set: the old orphans are written first, then the test
// waits for a whole new second (LastModified has one-second precision),
// takes that second as the cut, writes the young one, and runs the job
// with its clock at cut + the 1 h threshold. Everything before the cut is
// old, everything after it young, by the store's own timestamps.
func TestRemoveOrphansOnS3(t *testing.T) {
	ctx := context.Background()
	e, files, b := newS3Env(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(3) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	if !strings.HasPrefix(tbl.Location(), "s3://") {
		t.Fatalf("table location %q is not on the store", tbl.Location())
	}
	want := scanRows(t, tbl, 0)
	referenced := objects(t, b, tbl.Location())
	put := func(rel string) string {
		t.Helper()
		l, err := warehouse.Parse(strings.TrimRight(tbl.Location(), "/") + "/" + rel)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteFile(ctx, l, []byte("planted "+rel)); err != nil {
			t.Fatal(err)
		}
		return l.String()
	}
	old := []string{put("data/region=eu/00000-lost.parquet"), put("metadata/snap-lost.avro"), put("data/tmp/a/b.parquet")}
	time.Sleep(1500 * time.Millisecond)
	cut := time.Now().Truncate(time.Second)
	young := put("data/inflight.parquet")
	job := func(params map[string]string) *Job {
		j := e.job(t, JobOrphans, "events", params)
		j.Files = files
		j.Now = func() time.Time { return cut.Add(time.Hour) }
		return j
	}

	before := objects(t, b, tbl.Location())
	dry := mustRun(t, job(map[string]string{"dry_run": "true", "older_than_hours": "1"}))
	if !maps.Equal(objects(t, b, tbl.Location()), before) {
		t.Fatal("the dry run changed the table's objects")
	}
	if dry.Result["orphan_files"] != "3" || dry.Result["young_unreferenced_files"] != "1" {
		t.Fatalf("dry run result = %v", dry.Result)
	}

	out := mustRun(t, job(map[string]string{"older_than_hours": "1"}))
	t.Log(out.Summary)
	after := objects(t, b, tbl.Location())
	for _, p := range old {
		if after[p] {
			t.Errorf("old orphan %s survived", p)
		}
	}
	if !after[young] {
		t.Error("the young unreferenced object was deleted")
	}
	for p := range referenced {
		if !after[p] {
			t.Errorf("referenced object %s was deleted", p)
		}
	}
	if got := scanRows(t, e.load(t, "events"), 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d → %d", len(want), len(got))
	}
}
