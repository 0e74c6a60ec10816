package iceworker

import (
	"context"
	"slices"
	"testing"
)

// TestRewriteManifests: twelve appends leave twelve data manifests; the
// rewrite merges them, detection proposed it before and not after, and the
// rows are the same.
func TestRewriteManifests(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tbl := e.createTable(t, "events", true, nil)
	for i := range int64(12) {
		tbl = appendRows(t, tbl, i*4, i*4+4)
	}
	want := scanRows(t, tbl, 0)
	s, _ := readSettings(JobManifests, "", nil)
	th := thresholdsFrom(JobManifests, s)
	f, err := e.job(t, JobManifests, "events", nil).observe(ctx, tbl, th)
	if err != nil || f.DataManifests != 12 || !decide(JobManifests, s, f).propose {
		t.Fatalf("before: %+v, %v", f, err)
	}
	out := mustRun(t, e.job(t, JobManifests, "events", nil))
	t.Log(out.Summary)
	tbl = e.load(t, "events")
	f, err = e.job(t, JobManifests, "events", nil).observe(ctx, tbl, th)
	if err != nil || f.DataManifests >= 12 || decide(JobManifests, s, f).propose {
		t.Fatalf("after: %+v, %v", f, err)
	}
	if got := scanRows(t, tbl, 0); !slices.Equal(got, want) {
		t.Fatalf("rows changed: %d → %d", len(want), len(got))
	}
}
