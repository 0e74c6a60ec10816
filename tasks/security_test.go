package tasks

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
)

// process is one floe process as far as tasks care: the database, the
// catalog, the plugin scheduler and the task service over them.
type process struct {
	db    *persist.DB
	store *catalog.Store
	p     *plugin.Plugin
	s     *Service
	// stopRun ends the plugin's Run and waits for it.
	stopRun func() error
}

func startProcess(t *testing.T, dir string, opts plugin.Options) *process {
	t.Helper()
	ctx := context.Background()
	db, err := persist.Open(ctx, persist.Options{Path: filepath.Join(dir, "catalog.db")})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, testMigrations()...); err != nil {
		t.Fatal(err)
	}
	store, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "warehouse")})
	if err != nil {
		t.Fatal(err)
	}
	opts.SchedulerTick = time.Second
	p, err := plugin.New(plugin.Config{DB: db, Store: store, Logger: slog.New(slog.DiscardHandler), Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(db, store, PluginRunner{Jobs: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	return &process{db: db, store: store, p: p, s: s, stopRun: func() error { cancel(); return <-ran }}
}

func (pr *process) stop(t *testing.T) {
	t.Helper()
	if err := pr.stopRun(); err != nil {
		t.Error(err)
	}
	pr.store.Close()
	pr.db.Close()
}

// TestSecurity_RestartSettlesOrphanedJobs: a compaction that was running
// when floe was killed is settled once the restart grace passes without its
// worker coming back — failed with a sentence, attempts left or not (issue
// 23 item 9: it used to be re-queued while its task stayed "running") — and
// the task that follows it shows that at once, not after the orphan expiry.
// (Issue 15, item 6.)
func TestSecurity_RestartSettlesOrphanedJobs(t *testing.T) {
	const grace = 30 * time.Second
	cases := []struct {
		name        string
		maxAttempts int
		wantJob     plugin.JobState
		wantTask    Status
	}{
		{name: "no attempts left: the job fails and so does its task", maxAttempts: 1,
			wantJob: plugin.JobFailed, wantTask: StatusFailed},
		// Issue 23 item 9: a re-queued job left its task "running" while the
		// console showed it pending; whether the attempt finished is
		// unknown, so the job now ends, and its task with it.
		{name: "attempts left: the job still ends, and so does its task", maxAttempts: 3,
			wantJob: plugin.JobFailed, wantTask: StatusFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				opts := plugin.Options{JobRestartGrace: grace, JobOrphanExpiry: 15 * time.Minute, DisableScheduler: true}
				first := startProcess(t, dir, opts)
				tb := lanceTable(t, first.store, "mybucket", "ns", "tbl")
				task, err := first.s.Submit(ctx, tb, TypeCompact, nil)
				synctest.Wait() // the job is handed over off the request path
				task = mustGet(t, first.s, tb.ID, task.ID)
				first.stop(t)
				if err != nil || task.JobID == "" {
					t.Fatalf("submit: %+v %v", task, err)
				}

				// What kill -9 leaves behind: the job running on a worker,
				// the task following it as running.
				db, err := persist.Open(ctx, persist.Options{Path: filepath.Join(dir, "catalog.db")})
				if err != nil {
					t.Fatal(err)
				}
				started := persist.Micros(time.Now())
				if _, err := db.ExecContext(ctx, `UPDATE plugin_jobs SET state = 'running', worker_id = 'w-gone',
					attempts = 1, max_attempts = ?, started_at = ?, last_progress_at = ? WHERE id = ?`,
					tc.maxAttempts, started, started, task.JobID); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, `UPDATE lance_tasks SET status = 'running', started_at = ? WHERE id = ?`,
					started, task.ID); err != nil {
					t.Fatal(err)
				}
				db.Close()

				opts.DisableScheduler = false
				second := startProcess(t, dir, opts)
				defer second.stop(t)
				follow, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { second.s.FollowJobs(follow, second.p); close(done) }()
				defer func() { cancel(); <-done }()

				time.Sleep(grace - 2*time.Second) // inside the grace the worker may still come back
				synctest.Wait()
				if j, _ := second.p.GetJob(ctx, task.JobID); j.State != plugin.JobRunning {
					t.Fatalf("job settled inside the grace: %s", j.State)
				}
				if got := mustGet(t, second.s, tb.ID, task.ID); got.Status != StatusRunning {
					t.Fatalf("task %s inside the grace", got.Status)
				}

				time.Sleep(4 * time.Second) // past the grace, far short of the 15m orphan expiry
				synctest.Wait()
				j, err := second.p.GetJob(ctx, task.JobID)
				if err != nil || j.State != tc.wantJob || j.Error != plugin.JobRestartedError {
					t.Fatalf("job after the grace: %s %q %v; want %s with the restart sentence", j.State, j.Error, err, tc.wantJob)
				}
				got := mustGet(t, second.s, tb.ID, task.ID)
				if got.Status != tc.wantTask {
					t.Fatalf("task %s, want %s (%+v)", got.Status, tc.wantTask, got)
				}
				if tc.wantTask == StatusFailed && (got.Error == nil || got.Error.Code != FailRestarted || got.Error.Message == "") {
					t.Fatalf("task error %+v, want %s with a sentence", got.Error, FailRestarted)
				}
			})
		})
	}
}
