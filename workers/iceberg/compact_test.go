package iceworker

import (
	"context"
	"slices"
	"strings"
	"testing"

	iceberggo "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// TestCompactKeepsRowsAndTimeTravel: a partitioned table from 200 small
// appends with a column added halfway; compaction cuts the file count to
// one per partition, the current rows are the same multiset, and time
// travel to an old snapshot works until that snapshot is expired.
func TestCompactKeepsRowsAndTimeTravel(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	appends := int64(200)
	if testing.Short() {
		appends = 40
	}
	var early int64
	for i := range appends {
		if i == appends/2 {
			txn := tbl.NewTransaction()
			if err := txn.UpdateSchema(true, false).AddColumn([]string{"score"}, iceberggo.PrimitiveTypes.Int64, "", false, nil).Commit(); err != nil {
				t.Fatal(err)
			}
			var err error
			if tbl, err = txn.Commit(ctx); err != nil {
				t.Fatalf("add column: %v", err)
			}
		}
		tbl = appendRows(t, tbl, i*3, i*3+3)
		if i == 10 {
			early = tbl.CurrentSnapshot().SnapshotID
		}
	}
	want := scanRows(t, tbl, 0)
	wantEarly := scanRows(t, tbl, early)
	filesBefore := len(snapshotFiles(t, tbl, tbl.CurrentSnapshot()))
	if filesBefore < int(appends) {
		t.Fatalf("test setup: %d data files from %d appends", filesBefore, appends)
	}

	out := mustRun(t, e.job(t, JobCompact, "events", nil))
	t.Log(out.Summary)
	tbl = e.load(t, "events")
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpReplace {
		t.Fatalf("compaction committed a %q snapshot, want replace", op)
	}
	if got := len(snapshotFiles(t, tbl, tbl.CurrentSnapshot())); got != 3 {
		t.Fatalf("data files after compaction = %d, want 3 (one per region)", got)
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by compaction: %d → %d rows", len(want), len(got))
	}
	if got := scanRows(t, tbl, early); !slices.Equal(got, wantEarly) {
		t.Fatalf("time travel to snapshot %d changed: %d → %d rows", early, len(wantEarly), len(got))
	}

	// Detection sees the compacted table as done.
	s, _ := readSettings(JobCompact, "", nil)
	f, err := e.job(t, JobCompact, "events", nil).observe(ctx, tbl, thresholdsFrom(JobCompact, s))
	if err != nil || f.DataFiles != 3 || decide(JobCompact, s, f).propose {
		t.Fatalf("figures after compaction = %+v, %v", f, err)
	}

	mustRun(t, e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"}))
	tbl = e.load(t, "events")
	if _, err := tbl.Scan(table.WithSnapshotID(early)).ToArrowTable(ctx); err == nil {
		t.Fatal("time travel to an expired snapshot still works")
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed by expiry: %d → %d rows", len(want), len(got))
	}
}

// TestCompactWithConcurrentWriter: a writer appends after the compaction
// has rewritten its files and before it commits; the compaction re-stages
// on the writer's snapshot and every appended row is present.
func TestCompactWithConcurrentWriter(t *testing.T) {
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(12) {
		tbl = appendRows(t, tbl, i*5, i*5+5)
	}
	j := e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"})
	wrote, rebased := false, false
	j.Progress = func(stage string, _ float64, msg string) {
		rebased = rebased || strings.Contains(msg, "re-staging")
		if stage == "committing" && !wrote {
			wrote = true
			appendRows(t, e.load(t, "events"), 1000, 1010) // the writer wins the race
		}
	}
	out := mustRun(t, j)
	t.Log(out.Summary)
	tbl = e.load(t, "events")
	if op := tbl.CurrentSnapshot().Summary.Operation; op != table.OpReplace {
		t.Fatalf("last snapshot is %q, want the compaction's replace", op)
	}
	got := scanRows(t, tbl, 0)
	for _, id := range []string{"id=1000", "id=1009"} {
		found := false
		for _, r := range got {
			if strings.HasPrefix(r, id+",") {
				found = true
			}
		}
		if !found {
			t.Errorf("the writer's row %s is missing after the compaction", id)
		}
	}
	if len(got) != 70 {
		t.Fatalf("rows after compaction and append = %d, want 70", len(got))
	}
	if !wrote || !rebased {
		t.Fatalf("writer ran: %v, compaction rebased: %v; the test did not exercise the race", wrote, rebased)
	}
}
