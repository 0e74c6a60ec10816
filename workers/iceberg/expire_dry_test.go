package iceworker

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExpireDryRunMatchesRun: a dry run of snapshot expiry commits and
// deletes nothing, and names exactly the files (and their bytes) the real
// run with the same settings then deletes, file for file (issue 24).
func TestExpireDryRunMatchesRun(t *testing.T) {
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(6) {
		tbl = appendRows(t, tbl, i*10, i*10+10)
	}
	// A compaction, so some data files are needed only by old snapshots.
	mustRun(t, e.job(t, JobCompact, "events", map[string]string{"min_input_files": "2"}))
	tbl = e.load(t, "events")
	loc := Canonical(tbl.Location())
	snapsBefore := len(tbl.Metadata().Snapshots())
	before := tree(t, loc)
	settings := map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1"}

	dry := mustRun(t, e.job(t, JobExpire, "events", map[string]string{"max_snapshot_age_hours": "0", "retain_last": "1", "dry_run": "true"}))
	t.Log(dry.Summary)
	if after := tree(t, loc); !maps.Equal(before, after) {
		t.Fatal("a dry run changed the table's files")
	}
	if n := len(e.load(t, "events").Metadata().Snapshots()); n != snapsBefore {
		t.Fatalf("a dry run changed the snapshots: %d → %d", snapsBefore, n)
	}
	var listed []string
	if dry.Result["files"] != "" {
		listed = strings.Split(dry.Result["files"], "\n")
	}
	if n, _ := strconv.Atoi(dry.Result["files_would_delete"]); n != len(listed) || n == 0 {
		t.Fatalf("dry run counts %s files and lists %d", dry.Result["files_would_delete"], len(listed))
	}
	if dry.Result["snapshots_would_expire"] != strconv.Itoa(snapsBefore-1) {
		t.Fatalf("dry run would expire %s snapshots, want %d", dry.Result["snapshots_would_expire"], snapsBefore-1)
	}

	var wantBytes int64
	for _, rel := range listed {
		st, err := os.Stat(filepath.Join(loc, rel))
		if err != nil {
			t.Fatalf("the dry run lists %s: %v", rel, err)
		}
		wantBytes += st.Size()
	}
	if dry.Result["bytes_would_delete"] != strconv.FormatInt(wantBytes, 10) {
		t.Fatalf("dry run says %s bytes; its files hold %d", dry.Result["bytes_would_delete"], wantBytes)
	}

	mustRun(t, e.job(t, JobExpire, "events", settings))
	after := tree(t, loc)
	var deleted []string
	for p := range before {
		if _, ok := after[p]; !ok {
			rel, err := filepath.Rel(loc, p)
			if err != nil {
				t.Fatal(err)
			}
			deleted = append(deleted, rel)
		}
	}
	slices.Sort(deleted)
	slices.Sort(listed)
	if !slices.Equal(deleted, listed) {
		t.Fatalf("the run deleted\n%s\nthe dry run listed\n%s", strings.Join(deleted, "\n"), strings.Join(listed, "\n"))
	}
}
