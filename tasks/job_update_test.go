package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestJobLinkage(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	r := &fakeRunner{}
	s := newService(t, store, r)
	ctx := context.Background()

	task := mustSubmit(t, s, tb, TypeCompact, `{"target_rows_per_fragment": 500}`)
	jobs := r.submitted()
	if len(jobs) != 1 {
		t.Fatalf("runner got %d jobs, want 1", len(jobs))
	}
	j := jobs[0]
	if j.Type != "lance_compact" || j.ObjectID != tb.ID || j.Params["target_rows_per_fragment"] != "500" ||
		j.Params["compaction_mode"] != "reencode" || j.Params["task_id"] != task.ID ||
		j.Params["bucket"] != "mybucket" || j.Params["namespace"] != "ns" || j.Params["table"] != "tbl" {
		t.Fatalf("job = %+v", j)
	}
	if got := mustGet(t, s, tb.ID, task.ID); got.JobID != j.ID || got.Status != StatusSubmitted {
		t.Fatalf("after submit: %+v", got)
	}

	started := time.Date(2026, 5, 1, 10, 0, 0, 123456000, time.UTC)
	done := started.Add(3 * time.Second)
	steps := []struct {
		name    string
		update  JobUpdate
		changed bool
		status  Status
	}{
		{"queued changes nothing", JobUpdate{JobID: j.ID, State: "pending"}, false, StatusSubmitted},
		{"running", JobUpdate{JobID: j.ID, State: "running", StartedAt: started}, true, StatusRunning},
		{"running again", JobUpdate{JobID: j.ID, State: "RUNNING", StartedAt: done}, false, StatusRunning},
		{"completed", JobUpdate{JobID: j.ID, State: "completed", CompletedAt: done,
			Result: map[string]any{"fragments_removed": 4, "fragments_added": 1}}, true, StatusCompleted},
		{"failed after completed", JobUpdate{JobID: j.ID, State: "failed", Error: "late"}, false, StatusCompleted},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			changed, err := s.OnJobUpdate(ctx, st.update)
			if err != nil || changed != st.changed {
				t.Fatalf("OnJobUpdate = %v, %v; want changed %v", changed, err, st.changed)
			}
			if got := mustGet(t, s, tb.ID, task.ID); got.Status != st.status {
				t.Fatalf("status %s, want %s", got.Status, st.status)
			}
		})
	}
	got := mustGet(t, s, tb.ID, task.ID)
	if !got.StartedAt.Equal(started) || !got.CompletedAt.Equal(done) || got.Error != nil {
		t.Fatalf("completed task = %+v", got)
	}
	if n := got.Result["fragments_removed"]; n == nil || n.(interface{ String() string }).String() != "4" {
		t.Fatalf("result = %v", got.Result)
	}

	// A job that fails straight from submitted records both times and the message.
	bad := mustSubmit(t, s, tb, TypeCleanup, `{"older_than": "7d"}`)
	badJob := mustGet(t, s, tb.ID, bad.ID).JobID
	if ok, err := s.OnJobUpdate(ctx, JobUpdate{JobID: badJob, State: "failed", Error: "column x not found"}); !ok || err != nil {
		t.Fatalf("fail: %v %v", ok, err)
	}
	got = mustGet(t, s, tb.ID, bad.ID)
	if got.Status != StatusFailed || got.Error == nil || got.Error.Code != FailJob || got.Error.Message != "column x not found" ||
		got.StartedAt.IsZero() || got.CompletedAt.IsZero() {
		t.Fatalf("failed task = %+v (error %+v)", got, got.Error)
	}
	if ok, _ := s.OnJobUpdate(ctx, JobUpdate{JobID: badJob, State: "completed"}); ok {
		t.Fatal("a failed task changed")
	}
	if ok, err := s.OnJobUpdate(ctx, JobUpdate{JobID: "job-unknown", State: "completed"}); ok || err != nil {
		t.Fatalf("unknown job = %v, %v", ok, err)
	}
}

// A worker may report before SubmitJob has returned the job id; the update
// must still reach the task.
func TestJobUpdateBeforeLink(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	r := &fakeRunner{}
	s := newService(t, store, r)
	r.during = func(jobID string) {
		for _, st := range []string{"running", "completed", "running"} { // the late running must not undo completed
			if _, err := s.OnJobUpdate(context.Background(), JobUpdate{JobID: jobID, State: st,
				Result: map[string]any{"ok": true}}); err != nil {
				t.Errorf("OnJobUpdate: %v", err)
			}
		}
	}
	task := mustSubmit(t, s, tb, TypeOptimizeIndices, "")
	got := mustGet(t, s, tb.ID, task.ID)
	if got.Status != StatusCompleted || got.Result["ok"] != true || got.StartedAt.IsZero() {
		t.Fatalf("task = %+v", got)
	}
}

func TestNoRunnerTasksWait(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	r := &fakeRunner{fail: errors.New("no worker offers lance_compact")}
	s := newService(t, store, r)
	task := mustSubmit(t, s, tb, TypeCompact, "")
	if got := mustGet(t, s, tb.ID, task.ID); got.Status != StatusSubmitted || got.JobID != "" {
		t.Fatalf("refused task = %+v", got)
	}
	// A worker arrives: Resume hands the waiting task over, once.
	r.mu.Lock()
	r.fail = nil
	r.mu.Unlock()
	for i, want := range []int{1, 0} {
		n, err := s.Resume(context.Background())
		if err != nil || n != want {
			t.Fatalf("Resume #%d = %d, %v; want %d", i+1, n, err, want)
		}
	}
	if got := mustGet(t, s, tb.ID, task.ID); got.JobID != "job-1" {
		t.Fatalf("after Resume: %+v", got)
	}
	nilRunner := newService(t, store, nil)
	mustSubmit(t, nilRunner, tb, TypeCompact, "")
	if n, err := nilRunner.Resume(context.Background()); n != 0 || err != nil {
		t.Fatalf("Resume without runner = %d, %v", n, err)
	}
}

func TestRestart(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, dir)
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	gone := lanceTable(t, store, "mybucket", "ns", "gone")
	r1 := &fakeRunner{}
	s1 := newService(t, store, r1)
	ctx := context.Background()
	running := mustSubmit(t, s1, tb, TypeCompact, "")
	queued := mustSubmit(t, s1, tb, TypeCompact, "")
	completed := mustSubmit(t, s1, tb, TypeCompact, "")
	orphan := mustSubmit(t, s1, gone, TypeCompact, "")
	s1.OnJobUpdate(ctx, JobUpdate{JobID: "job-1", State: "running"})
	s1.OnJobUpdate(ctx, JobUpdate{JobID: "job-3", State: "completed"})
	r1.mu.Lock()
	r1.fail = errors.New("no worker")
	r1.mu.Unlock()
	unlinked := mustSubmit(t, s1, tb, TypeCleanup, `{"retain_versions": 2}`)
	if _, err := store.DropTable(ctx, catalogRef("gone")); err != nil {
		t.Fatalf("DropTable: %v", err)
	}

	// A new process: the catalog reopened on the same file, a new runner.
	store2 := openStore(t, dir)
	r2 := &fakeRunner{prefix: "second-"}
	s2 := newService(t, store2, r2)
	// The running task keeps following its job, which the plugin keeps.
	got := mustGet(t, s2, tb.ID, running.ID)
	if got.Status != StatusRunning || got.JobID != "job-1" {
		t.Fatalf("running task after restart = %+v", got)
	}
	if got := mustGet(t, s2, tb.ID, completed.ID); got.Status != StatusCompleted {
		t.Fatalf("completed task changed: %+v", got)
	}
	if got := mustGet(t, s2, tb.ID, queued.ID); got.Status != StatusSubmitted || got.JobID != "" {
		t.Fatalf("submitted task before Resume = %+v", got)
	}
	n, err := s2.Resume(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Resume = %d, %v; want 2 (queued and unlinked)", n, err)
	}
	jobs := r2.submitted()
	if len(jobs) != 2 || jobs[0].Params["task_id"] != queued.ID || jobs[1].Params["task_id"] != unlinked.ID {
		t.Fatalf("re-submitted jobs = %+v", jobs)
	}
	if got := mustGet(t, s2, tb.ID, queued.ID); got.JobID != jobs[0].ID || got.Status != StatusSubmitted {
		t.Fatalf("queued after Resume = %+v", got)
	}
	if got := mustGet(t, s2, gone.ID, orphan.ID); got.Status != StatusFailed || !strings.Contains(got.Error.Message, "dropped") {
		t.Fatalf("task of a dropped table after Resume = %+v", got)
	}
	// The old process's job ids no longer move re-submitted tasks.
	if ok, _ := s2.OnJobUpdate(ctx, JobUpdate{JobID: "job-2", State: "completed"}); ok {
		t.Fatal("an old job id moved a re-submitted task")
	}
	// Reconcile settles the running task from its job: a job that did not
	// survive fails it with the restart reason; never left running.
	lostJob := func(ctx context.Context, id string) (JobUpdate, error) {
		if id == "job-1" {
			return JobUpdate{}, ErrJobGone
		}
		return JobUpdate{State: "pending"}, nil
	}
	if _, err := s2.Reconcile(ctx, lostJob); err != nil {
		t.Fatal(err)
	}
	got = mustGet(t, s2, tb.ID, running.ID)
	if got.Status != StatusFailed || got.Error == nil || got.Error.Code != FailRestarted ||
		!strings.Contains(got.Error.Message, "floe restarted") || got.CompletedAt.IsZero() {
		t.Fatalf("running task whose job is gone = %+v (error %+v)", got, got.Error)
	}
}

// TestRestartAdoptedJob: a running task whose job survived the restart ends
// with the job's outcome.
func TestRestartAdoptedJob(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, dir)
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	s1 := newService(t, store, &fakeRunner{})
	ctx := context.Background()
	task := mustSubmit(t, s1, tb, TypeCompact, "")
	s1.OnJobUpdate(ctx, JobUpdate{JobID: "job-1", State: "running"})

	store2 := openStore(t, dir)
	s2 := newService(t, store2, &fakeRunner{prefix: "second-"})
	done := func(ctx context.Context, id string) (JobUpdate, error) {
		return JobUpdate{State: "succeeded", Result: map[string]any{"fragments_removed": 11}}, nil
	}
	if _, err := s2.Reconcile(ctx, done); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, s2, tb.ID, task.ID)
	if got.Status != StatusCompleted || got.Result["fragments_removed"] == nil {
		t.Fatalf("adopted task = %+v", got)
	}
}

// Updates for jobs that are no task's stay bounded.
func TestEarlyUpdatesBounded(t *testing.T) {
	store := openStore(t, t.TempDir())
	s := newService(t, store, nil)
	for i := range maxEarlyUpdates + 100 {
		s.OnJobUpdate(context.Background(), JobUpdate{JobID: fmt.Sprintf("other-%d", i), State: "running"})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.early) > maxEarlyUpdates || len(s.earlyOrd) > 2*maxEarlyUpdates {
		t.Fatalf("early %d, order %d", len(s.early), len(s.earlyOrd))
	}
}
