package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
)

// The Jobs page counts per job type the jobs finished in the last day, a
// bar an hour, and the share that failed, with units.
func TestJobsPageRates(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	c := e.admin()
	if r := e.get(c, "/jobs"); !r.has("job-rates-empty") {
		t.Fatalf("no jobs: %q", r.text("job-rates"))
	}
	now := time.Now()
	for i, j := range []struct {
		state plugin.JobState
		ago   time.Duration
	}{{plugin.JobSucceeded, 10 * time.Minute}, {plugin.JobSucceeded, 20 * time.Minute}, {plugin.JobFailed, 3 * time.Hour}, {plugin.JobSucceeded, 30 * time.Hour}} {
		at := persist.Micros(now.Add(-j.ago))
		if _, err := e.db.ExecContext(context.Background(), `INSERT INTO plugin_jobs(id, job_type, lane, state, created_at, updated_at, finished_at) VALUES (?,?,?,?,?,?,?)`,
			fmt.Sprintf("rate%d", i), "lance_compaction", "lance", string(j.state), at, at, at); err != nil {
			t.Fatal(err)
		}
	}
	r := e.get(c, "/jobs")
	row := r.doc.Find(`[data-testid="job-rate-row"][data-type="lance_compaction"]`)
	if row.Length() != 1 {
		t.Fatalf("no compaction row: %q", r.text("job-rates"))
	}
	for id, want := range map[string]string{"job-rate-finished": "3", "job-rate-failed": "1", "job-rate-failure": "33.33 %", "job-rate-per-hour": "0.12 jobs/h"} {
		if got := strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if n := row.Find(`[data-testid="job-rate-bar"]`).Length(); n != 2 {
		t.Errorf("%d bars, want 2 (two hours with finished jobs)", n)
	}
	if top := row.Find(`[data-testid="job-rate-top"]`).Text(); top != "2" || !strings.Contains(row.Find("svg").Text(), "jobs/h") {
		t.Errorf("y-axis tops at %q: %q", top, row.Find("svg").Text())
	}
	if row.Find("rect.rate-bar-failed").Length() != 1 {
		t.Error("the failed hour's bar has no failed part")
	}
}
