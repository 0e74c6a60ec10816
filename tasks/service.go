package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
)

// JobRunner hands a task to whatever executes it (the plugin channel's job
// scheduler). objectID is the table id; params are the task's params with
// every non-string value JSON-encoded, plus task_id, bucket, namespace and
// table so a worker can name what it works on.
type JobRunner interface {
	SubmitJob(ctx context.Context, jobType, objectID string, params map[string]string) (jobID string, err error)
}

// Service stores tasks and links them to jobs. It is safe for concurrent use.
type Service struct {
	db     *persist.DB
	store  *catalog.Store
	runner JobRunner
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	claimed  map[string]bool     // task ids being handed to the runner right now
	early    map[string]earlyJob // job updates that arrived before their job id was stored
	earlyOrd []string            // early's keys, oldest first, for eviction
}

// earlyJob is a job update held until the job id is linked to its task.
type earlyJob struct {
	at     time.Time
	update JobUpdate
}

// Caps and timeouts of the job link.
const (
	// maxEarlyUpdates bounds the updates held for job ids not (yet) linked
	// to a task; most are jobs that are not tasks at all (scheduled
	// maintenance), so the oldest are dropped.
	maxEarlyUpdates = 1024
	// earlyUpdateTTL: a task's job id is stored milliseconds after the
	// runner returns it, so anything older is not a task's job.
	earlyUpdateTTL = time.Minute
	// submitTimeout bounds one hand-over to the runner so a stuck scheduler
	// cannot hold a client's request; the task then waits as submitted.
	submitTimeout = 10 * time.Second
	// startupTimeout bounds the recovery queries Load runs.
	startupTimeout = 30 * time.Second
)

// New returns the task service over db, which the task migrations
// (Migrations) have been applied to; it reads nothing. runner may be nil:
// tasks then wait as submitted.
func New(db *persist.DB, store *catalog.Store, runner JobRunner, log *slog.Logger) (*Service, error) {
	if db == nil {
		return nil, errors.New("tasks: an open database is required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{
		db: db, store: store, runner: runner, log: log, now: time.Now,
		claimed: map[string]bool{}, early: map[string]earlyJob{},
	}, nil
}

// Load recovers what a previous process left unfinished; the composition
// root calls it once, before the task API serves. A task left running
// without a job is marked failed (code FloeRestarted) because nothing can
// re-attach it; a task left submitted forgets its old job id and is handed
// to the runner again by Resume (FollowJobs runs it). On an error the
// service still works: the stale rows stay as they are and the next start
// tries again.
func (s *Service) Load(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	if err := s.recover(ctx); err != nil {
		return fmt.Errorf("tasks: recover unfinished tasks: %w", err)
	}
	return nil
}

// recover fails the tasks a previous process left running and unlinks the
// submitted ones from jobs that process owned.
func (s *Service) recover(ctx context.Context) error {
	// A running task with a job keeps following that job: the plugin keeps
	// its jobs across a restart, adopts the ones a worker is still running,
	// retries or expires the rest, and Reconcile carries the outcome here.
	// Only a running task with no job to follow cannot end any other way.
	now := micros(s.now())
	res, err := s.db.ExecContext(ctx, `UPDATE lance_tasks
		SET status = 'failed', completed_at = ?, error_code = ?, error_message = ?,
		    started_at = CASE WHEN started_at = 0 THEN ? ELSE started_at END
		WHERE status = 'running' AND job_id = ''`, now, FailRestarted, restartMessage, now)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		s.log.Warn("tasks: marked tasks failed that were running without a job when floe stopped", "count", n)
	}
	// Submitted tasks are handed to the runner again by Resume; the runner
	// deduplicates on the task id, so a job that survived is reused.
	_, err = s.db.ExecContext(ctx, `UPDATE lance_tasks SET job_id = '' WHERE status = 'submitted' AND job_id <> ''`)
	return err
}

// Resume hands every submitted task that has no job yet to the runner,
// oldest first. Call it once after New when the runner is ready, and again
// whenever the runner may take work it refused before (a worker connected).
// It returns how many tasks were handed over.
func (s *Service) Resume(ctx context.Context) (int, error) {
	if s.runner == nil {
		return 0, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM lance_tasks
		WHERE status = 'submitted' AND job_id = '' ORDER BY created_at, id`)
	if err != nil {
		return 0, err
	}
	list, err := scanTasks(rows)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range list {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if s.dispatch(ctx, t) {
			n++
		}
	}
	return n, nil
}

// micros and fromMicros are persist's one time encoding.
func micros(t time.Time) int64 { return persist.Micros(t) }

func fromMicros(n int64) time.Time { return persist.FromMicros(n) }
