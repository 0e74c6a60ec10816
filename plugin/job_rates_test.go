package plugin

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floe/floe/persist"
)

// JobRates counts per type and hour the jobs that finished in the last
// day, failed and expired ones as failures, canceled ones apart; jobs
// still running or finished before the day are not counted.
func TestJobRates(t *testing.T) {
	ctx := context.Background()
	db, st := openStore(t, t.TempDir())
	p, err := New(Config{DB: db, Store: st, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	n := 0
	job := func(typ string, state JobState, ago time.Duration) {
		t.Helper()
		n++
		at := persist.Micros(now.Add(-ago))
		finished := at
		if state.Active() {
			finished = 0
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO plugin_jobs(id, job_type, lane, state, created_at, updated_at, finished_at) VALUES (?,?,?,?,?,?,?)`,
			fmt.Sprintf("j%d", n), typ, "lance", string(state), at, at, finished); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		job("lance_compaction", JobSucceeded, 30*time.Minute) // the last hour
	}
	job("lance_compaction", JobFailed, 90*time.Minute)
	job("lance_compaction", JobExpired, 23*time.Hour+30*time.Minute) // the first hour
	job("lance_compaction", JobSucceeded, 25*time.Hour)              // before the day
	job("lance_compaction", JobRunning, time.Minute)                 // not finished
	job("iceberg_expire_snapshots", JobCanceled, 2*time.Hour)
	job("iceberg_expire_snapshots", JobSucceeded, -time.Minute) // a clock ahead: the last hour

	got, err := p.JobRates(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].JobType != "iceberg_expire_snapshots" || got[1].JobType != "lance_compaction" {
		t.Fatalf("types %+v", got)
	}
	ice, lc := got[0], got[1]
	if lc.Finished != 5 || lc.Failed != 2 || lc.FailedPerHour[22] != 1 || lc.FailedPerHour[0] != 1 || lc.FailedPerHour[23] != 0 || lc.Canceled != 0 || lc.PerHour[23] != 3 || lc.PerHour[22] != 1 || lc.PerHour[0] != 1 {
		t.Errorf("compaction %+v", lc)
	}
	if r := lc.FailureRate(); r != 0.4 {
		t.Errorf("failure rate %v", r)
	}
	if ice.Finished != 2 || ice.Failed != 0 || ice.Canceled != 1 || ice.PerHour[22] != 1 || ice.PerHour[23] != 1 {
		t.Errorf("expire snapshots %+v", ice)
	}
	if (JobTypeRate{}).FailureRate() != 0 {
		t.Error("no job, no failure rate")
	}
}
