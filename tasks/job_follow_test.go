package tasks

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/plugin"
)

// fakeJobs is a scheduler whose feed is a fixed list of events, closed after
// the last, so FollowJobs returns once it has applied them all.
type fakeJobs struct {
	mu       sync.Mutex
	events   []plugin.Event
	jobs     map[string]plugin.Job // what GetJob answers; missing = ErrJobNotFound
	specs    []plugin.JobSpec
	dup      bool // SubmitJob answers ErrDuplicateJob with job "old-1"
	stopped  bool
	subCount int
}

func (f *fakeJobs) SubmitJob(_ context.Context, spec plugin.JobSpec) (plugin.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, spec)
	if f.dup {
		return plugin.Job{ID: "old-1"}, plugin.ErrDuplicateJob
	}
	return plugin.Job{ID: "new-1"}, nil
}

func (f *fakeJobs) GetJob(_ context.Context, id string) (plugin.Job, error) {
	j, ok := f.jobs[id]
	if !ok {
		return plugin.Job{}, plugin.ErrJobNotFound
	}
	return j, nil
}

func (f *fakeJobs) Subscribe() (<-chan plugin.Event, func()) {
	ch := make(chan plugin.Event, len(f.events))
	for _, ev := range f.events {
		ch <- ev
	}
	close(ch)
	f.subCount++
	return ch, func() { f.stopped = true }
}

func jobEvent(id, source string, state plugin.JobState) plugin.Event {
	return plugin.Event{Kind: plugin.EventJob, Job: plugin.Job{ID: id, Source: source, State: state,
		ResultJSON: `{"fragments_removed": 3}`}}
}

func TestFollowJobs(t *testing.T) {
	cases := []struct {
		name   string
		events []plugin.Event
		jobs   map[string]plugin.Job // GetJob's answers for the reconcile pass
		want   Status
		code   string // the task's error code when failed
	}{
		{name: "a submitted job's success completes the task",
			events: []plugin.Event{jobEvent("job-1", plugin.SourceSubmitted, plugin.JobRunning), jobEvent("job-1", plugin.SourceSubmitted, plugin.JobSucceeded)},
			jobs:   map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobPending}},
			want:   StatusCompleted},
		{name: "a running event moves the task to running",
			events: []plugin.Event{jobEvent("job-1", plugin.SourceSubmitted, plugin.JobRunning)},
			jobs:   map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobPending}},
			want:   StatusRunning},
		{name: "events of detected jobs are not tasks' events",
			events: []plugin.Event{jobEvent("job-1", "detected", plugin.JobSucceeded)},
			jobs:   map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobPending}},
			want:   StatusSubmitted},
		{name: "worker and job-type events are ignored",
			events: []plugin.Event{{Kind: plugin.EventWorker, WorkerID: "w1", Job: plugin.Job{ID: "job-1", Source: plugin.SourceSubmitted, State: plugin.JobFailed}}},
			jobs:   map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobPending}},
			want:   StatusSubmitted},
		{name: "the start-up reconcile applies a job that ended while nobody listened",
			jobs: map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobFailed, Error: "engine said no"}},
			want: StatusFailed, code: FailJob},
		{name: "a job gone from the scheduler fails its task as restarted",
			jobs: map[string]plugin.Job{},
			want: StatusFailed, code: FailRestarted},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t, t.TempDir())
			tb := lanceTable(t, store, "mybucket", "ns", "tbl")
			s := newService(t, store, &fakeRunner{})
			task := mustGet(t, s, tb.ID, mustSubmit(t, s, tb, TypeCompact, "").ID)
			if task.JobID != "job-1" {
				t.Fatalf("job id %q, want job-1", task.JobID)
			}
			jobs := &fakeJobs{events: tc.events, jobs: tc.jobs}
			s.FollowJobs(context.Background(), jobs)
			got := mustGet(t, s, tb.ID, task.ID)
			if got.Status != tc.want {
				t.Fatalf("status %s, want %s (task %+v)", got.Status, tc.want, got)
			}
			if tc.code != "" && (got.Error == nil || got.Error.Code != tc.code) {
				t.Errorf("error %+v, want code %s", got.Error, tc.code)
			}
			if tc.want == StatusCompleted && got.Result["fragments_removed"] == nil {
				t.Errorf("result %v lost", got.Result)
			}
			if !jobs.stopped {
				t.Error("FollowJobs left its subscription open")
			}
		})
	}
}

func TestFollowJobsResumesWaitingTasks(t *testing.T) {
	store := openStore(t, t.TempDir())
	tb := lanceTable(t, store, "mybucket", "ns", "tbl")
	runner := &fakeRunner{fail: errors.New("no scheduler yet")}
	s := newService(t, store, runner)
	task := mustGet(t, s, tb.ID, mustSubmit(t, s, tb, TypeCleanup, `{"older_than": "7d"}`).ID)
	if task.JobID != "" {
		t.Fatalf("job id %q while the runner refuses", task.JobID)
	}
	runner.mu.Lock()
	runner.fail = nil
	runner.mu.Unlock()
	s.FollowJobs(context.Background(), &fakeJobs{jobs: map[string]plugin.Job{"job-1": {ID: "job-1", State: plugin.JobRunning}}})
	if got := runner.submitted(); len(got) != 1 || got[0].Type != string(TypeCleanup) {
		t.Fatalf("runner got %+v, want the waiting cleanup", got)
	}
	if got := mustGet(t, s, tb.ID, task.ID); got.JobID != "job-1" || got.Status != StatusRunning {
		t.Fatalf("task %+v: want linked to job-1 and running", got)
	}
}

func TestFollowJobsStopsWithContext(t *testing.T) {
	store := openStore(t, t.TempDir())
	s := newService(t, store, &fakeRunner{})
	ctx, cancel := context.WithCancel(context.Background())
	jobs := &openFeed{ch: make(chan plugin.Event)}
	done := make(chan struct{})
	go func() {
		s.FollowJobs(ctx, jobs)
		close(done)
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a timing assert
		t.Fatal("FollowJobs did not return after its context ended")
	}
}

// openFeed never sends and never closes its feed.
type openFeed struct {
	fakeJobs
	ch chan plugin.Event
}

func (f *openFeed) Subscribe() (<-chan plugin.Event, func()) { return f.ch, func() {} }

func TestPluginRunner(t *testing.T) {
	cases := []struct {
		name string
		dup  bool
		want string
	}{
		{name: "a new job", want: "new-1"},
		{name: "a task handed over twice answers the job already running it", dup: true, want: "old-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs := &fakeJobs{dup: tc.dup}
			id, err := PluginRunner{Jobs: jobs}.SubmitJob(context.Background(), "lance_compact", "tbl-1", map[string]string{"task_id": "abc"})
			if err != nil || id != tc.want {
				t.Fatalf("SubmitJob = %q, %v; want %q", id, err, tc.want)
			}
			spec := jobs.specs[0]
			if spec.DedupeKey != "lance-task:abc" || spec.Lane != "lance" || spec.ObjectID != "tbl-1" || spec.Type != "lance_compact" {
				t.Errorf("spec %+v", spec)
			}
		})
	}
}
