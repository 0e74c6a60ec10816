package plugin

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/persist"
)

// maxActivityPerJob bounds a job's log; a job retried many times keeps its
// first lines and the most recent ones are what operators read anyway.
const maxActivityPerJob = 200

// maxErrorLen bounds stored error and message text from workers.
const maxErrorLen = 4000

// maxActiveJobs bounds the jobs waiting or running at once (they live in
// memory); a detection or a client that queues more is told to wait.
const maxActiveJobs = 10_000

// ErrTooManyJobs: the active-job cap is reached.
var ErrTooManyJobs = errors.New("too many jobs are waiting or running; retry when some finish")

// jobRec is an active job plus what only the scheduler needs.
type jobRec struct {
	Job
	seq        int       // activity lines written
	lastAlive  time.Time // last progress or heartbeat listing it
	goneSince  time.Time // worker disconnected at; zero while connected
	fromBefore bool      // dispatched to an earlier session of its worker
	// orphanSince is when this process loaded the job still assigned or
	// running from a previous one (floe died under it); zero once its worker
	// has said whether it still runs it. Past JobRestartGrace the sweep
	// settles it.
	orphanSince time.Time
}

// jobStore keeps active jobs in memory and every job in SQLite. All writes
// go through its mutex; reads of finished jobs go to the database.
type jobStore struct {
	p      *Plugin
	mu     sync.Mutex
	active map[string]*jobRec
	dedupe map[string]string // dedupe key → active job id
}

func newJobStore(p *Plugin) *jobStore {
	return &jobStore{p: p, active: make(map[string]*jobRec), dedupe: make(map[string]string)}
}

const jobColumns = `id, job_type, lane, object_id, dedupe_key, parameters_json, summary, source, state, attempts,
	max_attempts, worker_id, percent, stage, message, metrics_json, result_json, result_summary, error, created_at,
	updated_at, started_at, finished_at, next_attempt_at, deadline_at, last_progress_at`

type scanner interface{ Scan(...any) error }

func scanJob(r scanner) (Job, error) {
	var j Job
	var params, metrics, result, state string
	var created, updated, started, finished, next, deadline, progress int64
	if err := r.Scan(&j.ID, &j.Type, &j.Lane, &j.ObjectID, &j.DedupeKey, &params, &j.Summary, &j.Source, &state,
		&j.Attempts, &j.MaxAttempts, &j.WorkerID, &j.Percent, &j.Stage, &j.Message, &metrics, &result,
		&j.ResultSummary, &j.Error, &created, &updated, &started, &finished, &next, &deadline, &progress); err != nil {
		return Job{}, err
	}
	j.State = JobState(state)
	_ = json.Unmarshal([]byte(params), &j.Parameters)
	_ = json.Unmarshal([]byte(metrics), &j.Metrics)
	var res struct {
		Map  map[string]string `json:"map"`
		JSON string            `json:"json"`
	}
	_ = json.Unmarshal([]byte(result), &res)
	j.Result, j.ResultJSON = res.Map, res.JSON
	us := persist.FromMicros
	j.CreatedAt, j.UpdatedAt, j.StartedAt, j.FinishedAt = us(created), us(updated), us(started), us(finished)
	j.NextAttemptAt, j.DeadlineAt, j.LastProgressAt = us(next), us(deadline), us(progress)
	return j, nil
}

// write stores a job under this replica's lease. With Options.Shared the
// update only lands while this replica still holds the lease (or nobody
// does): lost reports that another replica has taken the job over, and the
// caller must forget it.
func (st *jobStore) write(ctx context.Context, j *Job) (lost bool, err error) {
	landed, err := st.writeIf(ctx, j, nil)
	return err == nil && st.p.cfg.Shared && !landed, err
}

// rowIs is a compare-and-set condition on a stored job row: a write under
// it lands only while the row still shows this state and attempt count
// (and worker, with checkWorker). The dispatcher writes outside the job
// mutex, so a change made meanwhile must win over its stale view.
type rowIs struct {
	state       JobState
	attempts    int
	worker      string
	checkWorker bool
}

// writeIf is write under cond (nil: none) and the lease rule; landed
// reports whether the row was written.
func (st *jobStore) writeIf(ctx context.Context, j *Job, cond *rowIs) (landed bool, err error) {
	params, _ := json.Marshal(orEmpty(j.Parameters))
	metrics, _ := json.Marshal(j.Metrics)
	if j.Metrics == nil {
		metrics = []byte("{}")
	}
	result, _ := json.Marshal(struct {
		Map  map[string]string `json:"map,omitempty"`
		JSON string            `json:"json,omitempty"`
	}{j.Result, j.ResultJSON})
	now := st.p.now()
	var conds []string
	var args []any
	if st.p.cfg.Shared {
		conds = append(conds, `(plugin_jobs.owner = excluded.owner OR plugin_jobs.lease_until < ?)`)
		args = append(args, persist.Micros(now))
	}
	if cond != nil {
		conds = append(conds, `plugin_jobs.state = ? AND plugin_jobs.attempts = ?`)
		args = append(args, string(cond.state), cond.attempts)
		if cond.checkWorker {
			conds = append(conds, `plugin_jobs.worker_id = ?`)
			args = append(args, cond.worker)
		}
	}
	guard := ""
	if len(conds) > 0 {
		guard = " WHERE " + strings.Join(conds, " AND ")
	}
	res, err := st.p.db.ExecContext(ctx, `INSERT INTO plugin_jobs(`+jobColumns+`, owner, lease_until)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
		max_attempts = excluded.max_attempts, worker_id = excluded.worker_id, percent = excluded.percent,
		stage = excluded.stage, message = excluded.message, metrics_json = excluded.metrics_json,
		result_json = excluded.result_json, result_summary = excluded.result_summary, error = excluded.error,
		updated_at = excluded.updated_at, started_at = excluded.started_at, finished_at = excluded.finished_at,
		next_attempt_at = excluded.next_attempt_at, deadline_at = excluded.deadline_at,
		last_progress_at = excluded.last_progress_at, owner = excluded.owner, lease_until = excluded.lease_until`+guard,
		append([]any{j.ID, j.Type, j.Lane, j.ObjectID, j.DedupeKey, string(params), j.Summary, j.Source, string(j.State),
			j.Attempts, j.MaxAttempts, j.WorkerID, j.Percent, j.Stage, j.Message, string(metrics), string(result),
			j.ResultSummary, j.Error, persist.Micros(j.CreatedAt), persist.Micros(j.UpdatedAt), persist.Micros(j.StartedAt), persist.Micros(j.FinishedAt),
			persist.Micros(j.NextAttemptAt), persist.Micros(j.DeadlineAt), persist.Micros(j.LastProgressAt), st.p.cfg.ReplicaID,
			persist.Micros(now.Add(st.p.cfg.JobLease))}, args...)...)
	if err != nil {
		return false, fmt.Errorf("plugin: write job %s: %w", j.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("plugin: write job %s: %w", j.ID, err)
	}
	return n > 0, nil
}

// insertActivity stores one activity line whose sequence number was
// reserved under the job mutex (see reserveLineLocked); it needs no lock.
func (st *jobStore) insertActivity(ctx context.Context, l activityLine) {
	if _, err := st.p.db.ExecContext(ctx, `INSERT INTO plugin_job_events(job_id, seq, at, message) VALUES (?,?,?,?) ON CONFLICT DO NOTHING`,
		l.jobID, l.seq, persist.Micros(l.at), l.message); err != nil {
		st.p.log.Warn("could not record job activity", "job", l.jobID, "err", err)
	}
}

// activityLine is a job's activity line waiting to be stored.
type activityLine struct {
	jobID   string
	seq     int
	at      time.Time
	message string
}

// reserveLineLocked numbers an activity line for r, to be stored after the
// lock is released; ok is false once the job's log is full.
func (st *jobStore) reserveLineLocked(r *jobRec, format string, args ...any) (activityLine, bool) {
	if r.seq >= maxActivityPerJob {
		return activityLine{}, false
	}
	r.seq++
	return activityLine{jobID: r.ID, seq: r.seq, at: st.p.now(), message: truncate(fmt.Sprintf(format, args...), maxErrorLen)}, true
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// logLocked appends an activity line (persisted) for an active job.
func (st *jobStore) logLocked(ctx context.Context, r *jobRec, format string, args ...any) {
	if r.seq >= maxActivityPerJob {
		return
	}
	r.seq++
	msg := truncate(fmt.Sprintf(format, args...), maxErrorLen)
	if _, err := st.p.db.ExecContext(ctx, `INSERT INTO plugin_job_events(job_id, seq, at, message) VALUES (?,?,?,?) ON CONFLICT DO NOTHING`,
		r.ID, r.seq, persist.Micros(st.p.now()), msg); err != nil {
		st.p.log.Warn("could not record job activity", "job", r.ID, "err", err)
	}
}

// commitLocked persists a job change, publishes it, and drops finished jobs
// from memory.
func (st *jobStore) commitLocked(ctx context.Context, r *jobRec) {
	r.UpdatedAt = st.p.now()
	lost, err := st.write(ctx, &r.Job)
	if err != nil {
		st.p.log.Error("job not saved", "job", r.ID, "err", err)
	}
	if lost {
		// Another replica took the job over after this one's lease ran
		// out (a stall past JobLease); its state there wins.
		st.p.log.Warn("job taken over by another replica; this one forgets it", "job", r.ID)
		st.forgetLocked(r)
		return
	}
	if !r.State.Active() {
		st.p.metrics.jobFinished(&r.Job)
		st.forgetLocked(r)
	}
	st.p.events.publish(Event{Kind: EventJob, Job: r.Job.clone()})
}

// load brings active jobs back after a restart. Pending jobs stay pending.
// Jobs a previous process left assigned or running stay as they are, with
// their worker treated as gone: if that worker reconnects within
// JobRestartGrace and still runs the job (its heartbeat lists it, or it
// reports progress) the job is adopted; if the worker reconnects without it,
// the attempt fails at once and is retried if attempts remain; if nothing is
// heard within the grace, the job fails with JobRestartedError and is not
// retried (whether the attempt finished is unknown), and a task following
// it fails with it.
func (st *jobStore) load(ctx context.Context) error {
	if st.p.cfg.Shared {
		// Replicas share the table: active jobs belong to whoever holds
		// their lease, and the lease loop claims released or expired ones.
		return nil
	}
	rows, err := st.p.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM plugin_jobs WHERE state IN (?,?,?)`,
		string(JobPending), string(JobAssigned), string(JobRunning))
	if err != nil {
		return fmt.Errorf("plugin: load jobs: %w", err)
	}
	defer rows.Close()
	now := st.p.now()
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return fmt.Errorf("plugin: load jobs: %w", err)
		}
		r := &jobRec{Job: j, lastAlive: j.LastProgressAt}
		if j.State != JobPending {
			r.goneSince = now
			r.fromBefore = true
			r.orphanSince = now
		}
		st.active[j.ID] = r
		if j.DedupeKey != "" {
			st.dedupe[j.DedupeKey] = j.ID
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var seqs = map[string]int{}
	for id := range st.active {
		var n sql.NullInt64
		_ = st.p.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM plugin_job_events WHERE job_id = ?`, id).Scan(&n)
		seqs[id] = int(n.Int64)
	}
	for id, n := range seqs {
		st.active[id].seq = n
	}
	return nil
}

// create makes a pending job unless its dedupe key is taken by an active job
// (then it returns that job and ErrDuplicateJob).
func (st *jobStore) create(ctx context.Context, spec JobSpec, source string, rt Runtime) (Job, error) {
	if spec.Type == "" {
		return Job{}, errors.New("a job needs a type")
	}
	lane := spec.Lane
	if lane == "" {
		lane = st.p.laneFor(spec.Type)
	}
	lane = laneOf(lane)
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.active) >= maxActiveJobs {
		return Job{}, ErrTooManyJobs
	}
	if spec.DedupeKey != "" {
		if id, ok := st.dedupe[spec.DedupeKey]; ok {
			if r, ok := st.active[id]; ok {
				return r.Job.clone(), ErrDuplicateJob
			}
		}
	}
	// Detection also yields to any active job of the same type on the same
	// object, whatever its dedupe key: a job submitted through the task API
	// (or left running by a previous process) must not be doubled by a
	// detection that names it differently.
	if source != SourceSubmitted && spec.ObjectID != "" {
		for _, r := range st.active {
			if r.Type == spec.Type && r.ObjectID == spec.ObjectID {
				return r.Job.clone(), ErrDuplicateJob
			}
		}
	}
	now := st.p.now()
	r := &jobRec{Job: Job{
		ID: "job_" + now.UTC().Format("20060102T150405") + "_" + randHex(5), Type: spec.Type, Lane: lane,
		ObjectID: spec.ObjectID, DedupeKey: spec.DedupeKey, Parameters: maps.Clone(spec.Parameters),
		Summary: truncate(spec.Summary, maxErrorLen), Source: source, State: JobPending,
		MaxAttempts: 1 + rt.Retries, CreatedAt: now, UpdatedAt: now,
	}}
	if st.p.cfg.Shared {
		// Another replica may hold an active job this one does not know.
		if j, ok, err := st.activeElsewhere(ctx, spec, source); err != nil {
			return Job{}, err
		} else if ok {
			return j, ErrDuplicateJob
		}
	}
	if _, err := st.write(ctx, &r.Job); err != nil {
		return Job{}, err
	}
	st.active[r.ID] = r
	if r.DedupeKey != "" {
		st.dedupe[r.DedupeKey] = r.ID
	}
	st.logLocked(ctx, r, "created (%s)", source)
	st.p.metrics.jobCreated(r.Type, source)
	st.p.events.publish(Event{Kind: EventJob, Job: r.Job.clone()})
	return r.Job.clone(), nil
}
