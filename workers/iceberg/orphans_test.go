package iceworker

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestRemoveOrphans: planted old orphans go, a planted young one stays,
// every referenced file stays, and the dry run deletes nothing.
func TestRemoveOrphans(t *testing.T) {
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(4) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	loc := Canonical(tbl.Location())
	referenced := tree(t, loc)
	oldData := filepath.Join(loc, "data", "region=eu", "00000-lost.parquet")
	oldMeta := filepath.Join(loc, "metadata", "snap-lost.avro")
	oldDeep := filepath.Join(loc, "data", "tmp", "a", "b.parquet")
	young := filepath.Join(loc, "data", "inflight.parquet")
	for _, p := range []string{oldData, oldMeta, oldDeep} {
		plant(t, p, 4*24*time.Hour)
	}
	plant(t, young, time.Hour)
	want := scanRows(t, tbl, 0)

	before := tree(t, loc)
	dry := mustRun(t, e.job(t, JobOrphans, "events", map[string]string{"dry_run": "true"}))
	if !maps.Equal(tree(t, loc), before) {
		t.Fatal("the dry run changed the table's files")
	}
	if dry.Result["orphan_files"] != "3" || dry.Result["young_unreferenced_files"] != "1" {
		t.Fatalf("dry run result = %v", dry.Result)
	}

	out := mustRun(t, e.job(t, JobOrphans, "events", nil))
	t.Log(out.Summary)
	after := tree(t, loc)
	for _, p := range []string{oldData, oldMeta, oldDeep} {
		if _, ok := after[p]; ok {
			t.Errorf("old orphan %s survived", p)
		}
	}
	if _, ok := after[young]; !ok {
		t.Error("the young unreferenced file was deleted")
	}
	for p, h := range referenced {
		if after[p] != h {
			t.Errorf("referenced file %s was changed or deleted", p)
		}
	}
	if got := scanRows(t, e.load(t, "events"), 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d → %d", len(want), len(got))
	}
}

// TestLanceAdapterTableSurvivesEveryJob: a Lance dataset registered
// through an Iceberg adapter (placeholder schema, table_type=lance, Lance
// files in its location, all old) keeps every byte through every job, and
// detection proposes nothing for it. A table without the property but with
// Lance files in its location is refused by orphan removal too.
func TestLanceAdapterTableSurvivesEveryJob(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	placeholder := iceberggo.NewSchema(0, iceberggo.NestedField{ID: 1, Name: "placeholder", Type: iceberggo.PrimitiveTypes.String})
	for _, tc := range []struct {
		name  string
		props iceberggo.Properties
	}{
		{"docs", iceberggo.Properties{"table_type": "LANCE"}},
		{"unmarked", nil},
	} {
		tbl, err := e.cat.CreateTable(ctx, table.Identifier{"ns", tc.name}, placeholder, withProps(tc.props)...)
		if err != nil {
			t.Fatal(err)
		}
		loc := Canonical(tbl.Location())
		for _, p := range []string{"_versions/1.manifest", "_versions/2.manifest", "data/0a1b.lance", "_transactions/0-x.txn", "_indices/ix/index.idx"} {
			plant(t, filepath.Join(loc, p), 30*24*time.Hour)
		}
		before := tree(t, loc)
		for _, jt := range JobTypes {
			params := map[string]string{}
			if jt == JobExpire {
				params["max_snapshot_age_hours"] = "0"
			}
			_, err := e.job(t, jt, tc.name, params).Run(ctx)
			if tc.props != nil || jt == JobOrphans {
				if err == nil || !isPermanent(err) {
					t.Errorf("%s on %s: err = %v, want a permanent refusal", jt, tc.name, err)
				}
			}
			if !maps.Equal(tree(t, loc), before) {
				t.Fatalf("%s changed the files of Lance table %s", jt, tc.name)
			}
		}
	}
	s, _ := readSettings(JobOrphans, "", nil)
	f, err := e.job(t, JobOrphans, "docs", nil).observe(ctx, e.load(t, "docs"), thresholdsFrom(JobOrphans, s))
	if err != nil || !f.Lance {
		t.Fatalf("observe Lance table = %+v, %v", f, err)
	}
	for _, jt := range JobTypes {
		if v := decide(jt, s, f); v.propose {
			t.Errorf("%s proposed for a Lance table: %s", jt, v.summary)
		}
	}
}
