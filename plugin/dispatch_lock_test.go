package plugin

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/floe/floe/persist"
)

// The dispatcher never waits for the database while it holds the job
// mutex: with every write of the process held up, a dispatch that has a
// job to assign blocks on its write with the mutex free (progress, cancels
// and pages go on), and the worker hears of the job only once its
// assignment is stored.
func TestDispatchWritesOutsideTheJobMutex(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, stop := newBubblePlugin(t, dir, Options{DisableScheduler: true})
		defer stop()
		ctx := context.Background()
		if err := p.types.store(ctx, compactDescriptor("v1")); err != nil {
			t.Fatal(err)
		}
		fw := injectWorker(p, "w1", capability("lance_compact", "lance"))
		// A first dispatch mints the worker's key, so the second needs no
		// write before its plan.
		first, err := p.SubmitJob(ctx, JobSpec{Type: "lance_compact", ObjectID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		p.dispatch(ctx, "lance")
		synctest.Wait()
		if j, _ := p.GetJob(ctx, first.ID); j.State != JobAssigned || fw.count(isExecute) != 1 {
			t.Fatalf("first job: %s, %d executes", j.State, fw.count(isExecute))
		}
		second, err := p.SubmitJob(ctx, JobSpec{Type: "lance_compact", ObjectID: "t2"})
		if err != nil {
			t.Fatal(err)
		}

		held, release := make(chan struct{}), make(chan struct{})
		go p.db.Write(ctx, func(*persist.Tx) error { close(held); <-release; return nil })
		<-held
		dispatched := make(chan struct{})
		go func() { p.dispatch(ctx, "lance"); close(dispatched) }()
		synctest.Wait() // the dispatcher waits for the write queue
		if !p.jobs.mu.TryLock() {
			close(release)
			t.Fatal("the dispatcher holds the job mutex while it waits for the database")
		}
		p.jobs.mu.Unlock()
		if n := fw.count(isExecute); n != 1 {
			t.Fatalf("the worker got %d executes before the assignment was stored, want 1", n)
		}

		close(release)
		<-dispatched
		synctest.Wait()
		j, _ := p.GetJob(ctx, second.ID)
		if j.State != JobAssigned || j.Attempts != 1 || fw.count(isExecute) != 2 {
			t.Fatalf("second job: %s, attempt %d, %d executes", j.State, j.Attempts, fw.count(isExecute))
		}
		var state string
		var attempts int
		if err := p.db.QueryRowContext(ctx, `SELECT state, attempts FROM plugin_jobs WHERE id = ?`, second.ID).Scan(&state, &attempts); err != nil ||
			state != string(JobAssigned) || attempts != 1 {
			t.Fatalf("stored row: %s, attempt %d (%v)", state, attempts, err)
		}
	})
}

// An assignment planned before a cancel does not overwrite it: the cancel
// wins in memory and in the stored row, and the worker is not sent the job.
func TestDispatchLosesToACancelMeanwhile(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, stop := newBubblePlugin(t, dir, Options{DisableScheduler: true})
		defer stop()
		ctx := context.Background()
		if err := p.types.store(ctx, compactDescriptor("v1")); err != nil {
			t.Fatal(err)
		}
		fw := injectWorker(p, "w1", capability("lance_compact", "lance"))
		j, err := p.SubmitJob(ctx, JobSpec{Type: "lance_compact", ObjectID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		plan := p.dispatchPlan(ctx, "lance")
		if len(plan) != 1 {
			t.Fatalf("plan of %d assignments, want 1", len(plan))
		}
		if _, err := p.CancelJob(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		p.assign(ctx, plan)
		synctest.Wait()
		got, _ := p.GetJob(ctx, j.ID)
		var state string
		if err := p.db.QueryRowContext(ctx, `SELECT state FROM plugin_jobs WHERE id = ?`, j.ID).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if got.State != JobCanceled || state != string(JobCanceled) || fw.count(isExecute) != 0 {
			t.Fatalf("after a cancel raced the assignment: memory %s, row %s, %d executes", got.State, state, fw.count(isExecute))
		}
	})
}
