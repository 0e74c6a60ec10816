package lancerest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/floe/floe/plugin"
)

// fakeJobs plays the plugin channel: one worker offering lance_restore and
// lance_drop_index (or none), jobs ending in the state the test picks.
type fakeJobs struct {
	mu       sync.Mutex
	worker   bool
	end      plugin.JobState
	dup      bool
	lastSpec plugin.JobSpec
}

func (f *fakeJobs) SubmitJob(_ context.Context, spec plugin.JobSpec) (plugin.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastSpec = spec
	if f.dup {
		return plugin.Job{ID: "j-running", State: plugin.JobRunning}, plugin.ErrDuplicateJob
	}
	return plugin.Job{ID: "j-1", State: plugin.JobPending}, nil
}

func (f *fakeJobs) GetJob(_ context.Context, id string) (plugin.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return plugin.Job{ID: id, State: f.end, Error: "open /secret/path: boom"}, nil
}

func (f *fakeJobs) Snapshot() []plugin.WorkerInfo {
	if !f.worker {
		return nil
	}
	return []plugin.WorkerInfo{{ID: "w", Capabilities: []plugin.Capability{{JobType: RestoreJobType, CanExecute: true}, {JobType: DropIndexJobType, CanExecute: true}}}}
}

// TestRestoreTable: RestoreTable submits a lance_restore job for the table
// and answers when it ends; refusals come before any job.
func TestRestoreTable(t *testing.T) {
	e := newTestEnv(t, false)
	e.seed()
	jobs := &fakeJobs{worker: true, end: plugin.JobSucceeded}
	srv := httptest.NewServer(New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Jobs: jobs}).Handler())
	t.Cleanup(srv.Close)
	e.srv = srv
	e.must("POST", "/v1/table/lnc$ns$t1/declare", "")
	writeVersions(t, filepath.Join(e.warehouse, "lnc", "ns", "t1.lance"), v2(1), v2(2), v2(3))
	set := func(worker bool, end plugin.JobState, dup bool) {
		jobs.mu.Lock()
		jobs.worker, jobs.end, jobs.dup = worker, end, dup
		jobs.mu.Unlock()
	}
	path := "/v1/table/lnc$ns$t1/restore"
	e.run(t, []step{
		{name: "restores", path: path, body: `{"version":2}`, status: 200, code: -1, want: []string{`{"transaction_id":"j-1"}`}},
		{name: "no version", path: path, body: `{}`, status: 400, code: 13},
		{name: "version 0", path: path, body: `{"version":0}`, status: 400, code: 13},
		{name: "missing version", path: path, body: `{"version":7}`, status: 404, code: 11},
		{name: "other branch", path: path, body: `{"version":2,"branch":"dev"}`, status: 406, code: 0},
		{name: "readonly key", path: path, key: "ro", body: `{"version":2}`, status: 403, code: 15},
		{name: "missing table", path: "/v1/table/lnc$ns$nope/restore", body: `{"version":2}`, status: 404, code: 4},
	})
	if got := jobs.lastSpec; got.Type != RestoreJobType || got.Parameters["version"] != "2" || got.Parameters["table"] != "t1" || got.ObjectID == "" {
		t.Fatalf("job spec = %+v", got)
	}
	set(false, plugin.JobSucceeded, false)
	e.run(t, []step{{name: "no worker", path: path, body: `{"version":2}`, status: 503, code: 17}})
	set(true, plugin.JobSucceeded, true)
	e.run(t, []step{{name: "already restoring", path: path, body: `{"version":2}`, status: 409, code: 14, want: []string{"j-running"}}})
	set(true, plugin.JobFailed, false)
	e.run(t, []step{{name: "job failed", path: path, body: `{"version":2}`, status: 500, code: 18, want: []string{"j-1", "/jobs/j-1"}, notWant: []string{"secret", "boom"}}})

	// Without the plugin channel the operation is the spec's Unsupported.
	e.srv = httptest.NewServer(New(Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	t.Cleanup(e.srv.Close)
	e.run(t, []step{{name: "no plugin channel", path: path, body: `{"version":2}`, status: 406, code: 0}})
}
