package plugin

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
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
	ms := func(n int64) time.Time {
		if n == 0 {
			return time.Time{}
		}
		return time.UnixMilli(n)
	}
	j.CreatedAt, j.UpdatedAt, j.StartedAt, j.FinishedAt = ms(created), ms(updated), ms(started), ms(finished)
	j.NextAttemptAt, j.DeadlineAt, j.LastProgressAt = ms(next), ms(deadline), ms(progress)
	return j, nil
}

func msOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func (st *jobStore) write(ctx context.Context, j *Job) error {
	params, _ := json.Marshal(orEmpty(j.Parameters))
	metrics, _ := json.Marshal(j.Metrics)
	if j.Metrics == nil {
		metrics = []byte("{}")
	}
	result, _ := json.Marshal(struct {
		Map  map[string]string `json:"map,omitempty"`
		JSON string            `json:"json,omitempty"`
	}{j.Result, j.ResultJSON})
	_, err := st.p.db.ExecContext(ctx, `INSERT INTO plugin_jobs(`+jobColumns+`)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
		max_attempts = excluded.max_attempts, worker_id = excluded.worker_id, percent = excluded.percent,
		stage = excluded.stage, message = excluded.message, metrics_json = excluded.metrics_json,
		result_json = excluded.result_json, result_summary = excluded.result_summary, error = excluded.error,
		updated_at = excluded.updated_at, started_at = excluded.started_at, finished_at = excluded.finished_at,
		next_attempt_at = excluded.next_attempt_at, deadline_at = excluded.deadline_at,
		last_progress_at = excluded.last_progress_at`,
		j.ID, j.Type, j.Lane, j.ObjectID, j.DedupeKey, string(params), j.Summary, j.Source, string(j.State),
		j.Attempts, j.MaxAttempts, j.WorkerID, j.Percent, j.Stage, j.Message, string(metrics), string(result),
		j.ResultSummary, j.Error, msOf(j.CreatedAt), msOf(j.UpdatedAt), msOf(j.StartedAt), msOf(j.FinishedAt),
		msOf(j.NextAttemptAt), msOf(j.DeadlineAt), msOf(j.LastProgressAt))
	if err != nil {
		return fmt.Errorf("plugin: write job %s: %w", j.ID, err)
	}
	return nil
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
	if _, err := st.p.db.ExecContext(ctx, `INSERT OR IGNORE INTO plugin_job_events(job_id, seq, at, message) VALUES (?,?,?,?)`,
		r.ID, r.seq, st.p.now().UnixMilli(), msg); err != nil {
		st.p.log.Warn("could not record job activity", "job", r.ID, "err", err)
	}
}

// commitLocked persists a job change, publishes it, and drops finished jobs
// from memory.
func (st *jobStore) commitLocked(ctx context.Context, r *jobRec) {
	r.UpdatedAt = st.p.now()
	if err := st.write(ctx, &r.Job); err != nil {
		st.p.log.Error("job not saved", "job", r.ID, "err", err)
	}
	if !r.State.Active() {
		delete(st.active, r.ID)
		if r.DedupeKey != "" && st.dedupe[r.DedupeKey] == r.ID {
			delete(st.dedupe, r.DedupeKey)
		}
	}
	st.p.events.publish(Event{Kind: EventJob, Job: r.Job.clone()})
}

// load brings active jobs back after a restart. Pending jobs stay pending.
// Jobs a previous process left assigned or running stay as they are, with
// their worker treated as gone: if that worker reconnects and still runs the
// job (its heartbeat lists it, or it reports progress) the job is adopted;
// if the worker reconnects without it, the attempt fails (and is retried if
// attempts remain); if nothing is heard, the job expires after
// JobOrphanExpiry.
func (st *jobStore) load(ctx context.Context) error {
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
	now := st.p.now()
	r := &jobRec{Job: Job{
		ID: "job_" + now.UTC().Format("20060102T150405") + "_" + randHex(5), Type: spec.Type, Lane: lane,
		ObjectID: spec.ObjectID, DedupeKey: spec.DedupeKey, Parameters: maps.Clone(spec.Parameters),
		Summary: truncate(spec.Summary, maxErrorLen), Source: source, State: JobPending,
		MaxAttempts: 1 + rt.Retries, CreatedAt: now, UpdatedAt: now,
	}}
	if err := st.write(ctx, &r.Job); err != nil {
		return Job{}, err
	}
	st.active[r.ID] = r
	if r.DedupeKey != "" {
		st.dedupe[r.DedupeKey] = r.ID
	}
	st.logLocked(ctx, r, "created (%s)", source)
	st.p.events.publish(Event{Kind: EventJob, Job: r.Job.clone()})
	return r.Job.clone(), nil
}

// dedupeActive reports whether an active job holds the key.
func (st *jobStore) dedupeActive(key string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.dedupe[key]
	return ok
}

func (st *jobStore) onConnect(s *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, r := range st.active {
		if r.WorkerID == s.workerID && r.State != JobPending {
			r.goneSince = time.Time{}
			r.fromBefore = true
		}
	}
}

func (st *jobStore) onDisconnect(s *session) {
	now := st.p.now()
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, r := range st.active {
		if r.WorkerID == s.workerID && r.State != JobPending && r.goneSince.IsZero() {
			r.goneSince = now
		}
	}
}

// onFirstHeartbeat settles jobs dispatched to an earlier session of this
// worker: listed ones are adopted, the others' attempts failed.
func (st *jobStore) onFirstHeartbeat(s *session, running []string) {
	ctx := st.p.root
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, r := range st.active {
		if r.WorkerID != s.workerID || !r.fromBefore || r.State == JobPending {
			continue
		}
		r.fromBefore = false
		if slices.Contains(running, r.ID) {
			r.lastAlive = st.p.now()
			st.logLocked(ctx, r, "worker %s reconnected and still runs it", s.workerID)
			continue
		}
		st.failAttemptLocked(ctx, r, "the worker reconnected without this job (it restarted or lost it)")
	}
}

func (st *jobStore) onHeartbeat(s *session, running []string) {
	if len(running) == 0 {
		return
	}
	now := st.p.now()
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, id := range running {
		if r, ok := st.active[id]; ok && r.WorkerID == s.workerID {
			r.lastAlive = now
		}
	}
}

func (st *jobStore) onProgress(s *session, pr *pluginpb.Progress) {
	ctx := st.p.root
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.active[pr.GetJobId()]
	if !ok || r.WorkerID != s.workerID || r.State == JobPending {
		return // finished, reassigned or unknown: a late report
	}
	now := st.p.now()
	if r.State == JobAssigned {
		r.State = JobRunning
		st.logLocked(ctx, r, "running on %s (attempt %d)", s.workerID, r.Attempts)
	}
	if pr.GetStage() != "" && pr.GetStage() != r.Stage {
		st.logLocked(ctx, r, "stage: %s", truncate(pr.GetStage(), 200))
	}
	r.Percent = min(100, max(0, pr.GetPercent()))
	r.Stage = truncate(pr.GetStage(), 200)
	r.Message = truncate(pr.GetMessage(), maxErrorLen)
	if len(pr.GetMetrics()) > 0 {
		r.Metrics = maps.Clone(pr.GetMetrics())
	}
	r.LastProgressAt, r.lastAlive, r.goneSince, r.fromBefore = now, now, time.Time{}, false
	st.commitLocked(ctx, r)
}

func (st *jobStore) onCompleted(s *session, c *pluginpb.Completed) {
	ctx := st.p.root
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.active[c.GetJobId()]
	if !ok || r.WorkerID != s.workerID || r.State == JobPending {
		return
	}
	now := st.p.now()
	r.LastProgressAt = now
	r.Result = maps.Clone(c.GetResult())
	r.ResultJSON = truncate(c.GetResultJson(), 64<<10)
	r.ResultSummary = truncate(c.GetSummary(), maxErrorLen)
	if c.GetSuccess() {
		r.State, r.FinishedAt, r.Percent, r.Error = JobSucceeded, now, 100, ""
		st.logLocked(ctx, r, "succeeded on %s: %s", s.workerID, r.ResultSummary)
		st.commitLocked(ctx, r)
		st.p.sched.wake(r.Lane)
		return
	}
	msg := c.GetError()
	if msg == "" {
		msg = "the worker reported failure without a reason"
	}
	if c.GetPermanent() && r.Attempts < r.MaxAttempts {
		st.logLocked(ctx, r, "the worker says a retry would fail the same way; not retrying")
		r.MaxAttempts = r.Attempts
	}
	st.failAttemptLocked(ctx, r, msg)
	st.p.sched.wake(r.Lane)
}

// failAttemptLocked ends the current attempt: back to pending after a
// backoff if attempts remain, else failed.
func (st *jobStore) failAttemptLocked(ctx context.Context, r *jobRec, msg string) {
	now := st.p.now()
	r.Error = truncate(msg, maxErrorLen)
	r.goneSince, r.fromBefore = time.Time{}, false
	if r.Attempts < r.MaxAttempts {
		backoff := st.p.types.settings(r.Type).Runtime.RetryBackoff
		for i := 1; i < r.Attempts && backoff < maxRetryBackoff; i++ {
			backoff *= 2
		}
		backoff = min(backoff, maxRetryBackoff)
		r.State, r.WorkerID, r.DeadlineAt = JobPending, "", time.Time{}
		r.NextAttemptAt = now.Add(backoff)
		st.logLocked(ctx, r, "attempt %d failed: %s; retrying in %s", r.Attempts, r.Error, backoff)
	} else {
		r.State, r.FinishedAt = JobFailed, now
		st.logLocked(ctx, r, "attempt %d failed: %s; no attempts left", r.Attempts, r.Error)
	}
	st.commitLocked(ctx, r)
}

// finish ends an active job by hand (cancel, expire), telling its worker.
func (st *jobStore) finish(ctx context.Context, id string, state JobState, why string) (Job, error) {
	st.mu.Lock()
	r, ok := st.active[id]
	if !ok {
		st.mu.Unlock()
		j, err := st.get(ctx, id)
		if err != nil {
			return Job{}, err
		}
		return j, nil // already finished: nothing to do
	}
	worker := r.WorkerID
	r.State, r.FinishedAt, r.Error = state, st.p.now(), why
	st.logLocked(ctx, r, "%s: %s", state, why)
	st.commitLocked(ctx, r)
	j := r.Job.clone()
	st.mu.Unlock()
	if worker != "" {
		st.p.sendJobCancel(worker, id, why)
	}
	return j, nil
}

func (p *Plugin) sendJobCancel(workerID, jobID, why string) {
	if s, ok := p.reg.get(workerID); ok {
		s.trySend(&pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Cancel{Cancel: &pluginpb.Cancel{
			JobId: jobID, Reason: why}}})
	}
}

// sweep applies attempt deadlines and expiry to a lane's active jobs.
func (st *jobStore) sweep(ctx context.Context, lane string) {
	now := st.p.now()
	type cancelNote struct{ worker, job, why string }
	var notes []cancelNote
	st.mu.Lock()
	for _, r := range st.active {
		if r.Lane != lane || r.State == JobPending {
			continue
		}
		last := latest(r.LastProgressAt, r.lastAlive, r.StartedAt)
		switch {
		case !r.goneSince.IsZero() && now.Sub(latest(last, r.goneSince)) >= st.p.cfg.JobOrphanExpiry:
			r.State, r.FinishedAt, r.Error = JobExpired, now,
				fmt.Sprintf("no progress for %s and its worker %s is gone", st.p.cfg.JobOrphanExpiry, r.WorkerID)
			st.logLocked(ctx, r, "expired: %s", r.Error)
			st.commitLocked(ctx, r)
		case now.Sub(last) >= st.p.cfg.JobIdleExpiry:
			notes = append(notes, cancelNote{r.WorkerID, r.ID, "expired"})
			r.State, r.FinishedAt, r.Error = JobExpired, now, fmt.Sprintf("no progress for %s", st.p.cfg.JobIdleExpiry)
			st.logLocked(ctx, r, "expired: %s", r.Error)
			st.commitLocked(ctx, r)
		case !r.DeadlineAt.IsZero() && !now.Before(r.DeadlineAt) && r.goneSince.IsZero():
			notes = append(notes, cancelNote{r.WorkerID, r.ID, "attempt deadline passed"})
			st.failAttemptLocked(ctx, r, "the attempt's deadline passed")
		}
	}
	st.mu.Unlock()
	for _, n := range notes {
		st.p.sendJobCancel(n.worker, n.job, n.why)
	}
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

func (st *jobStore) get(ctx context.Context, id string) (Job, error) {
	row := st.p.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM plugin_jobs WHERE id = ?`, id)
	j, err := scanJob(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, ErrJobNotFound
	}
	return j, err
}

// GetJob returns a job with its activity log.
func (p *Plugin) GetJob(ctx context.Context, id string) (Job, error) {
	p.jobs.mu.Lock()
	r, ok := p.jobs.active[id]
	var j Job
	if ok {
		j = r.Job.clone()
	}
	p.jobs.mu.Unlock()
	if !ok {
		var err error
		if j, err = p.jobs.get(ctx, id); err != nil {
			return Job{}, err
		}
	}
	rows, err := p.db.QueryContext(ctx, `SELECT at, message FROM plugin_job_events WHERE job_id = ? ORDER BY seq`, id)
	if err != nil {
		return Job{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var at int64
		var a Activity
		if err := rows.Scan(&at, &a.Message); err != nil {
			return Job{}, err
		}
		a.At = time.UnixMilli(at)
		j.Activity = append(j.Activity, a)
	}
	return j, rows.Err()
}

// ListJobs returns jobs newest first and the Before value of the next page
// ("" on the last page).
func (p *Plugin) ListJobs(ctx context.Context, f JobFilter) ([]Job, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultJobPage
	}
	limit = min(limit, MaxJobPage)
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.Lane != "" {
		add("lane = ?", f.Lane)
	}
	if f.Type != "" {
		add("job_type = ?", f.Type)
	}
	if f.State != "" {
		add("state = ?", string(f.State))
	}
	if f.ObjectID != "" {
		add("object_id = ?", f.ObjectID)
	}
	if f.Before != "" {
		var created int64
		err := p.db.QueryRowContext(ctx, `SELECT created_at FROM plugin_jobs WHERE id = ?`, f.Before).Scan(&created)
		if err != nil {
			return nil, "", fmt.Errorf("plugin: page cursor: %w", ErrJobNotFound)
		}
		where = append(where, "(created_at < ? OR (created_at = ? AND id < ?))")
		args = append(args, created, created, f.Before)
	}
	q := `SELECT ` + jobColumns + ` FROM plugin_jobs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at DESC, id DESC LIMIT ?"
	args = append(args, limit+1)
	rows, err := p.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, "", err
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// ActiveJobs returns the active jobs, oldest first (cheap: from memory).
func (p *Plugin) ActiveJobs() []Job {
	p.jobs.mu.Lock()
	out := make([]Job, 0, len(p.jobs.active))
	for _, r := range p.jobs.active {
		out = append(out, r.Job.clone())
	}
	p.jobs.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out
}

// ExpireJob marks an active job expired and tells its worker to stop.
func (p *Plugin) ExpireJob(ctx context.Context, id string) (Job, error) {
	return p.jobs.finish(ctx, id, JobExpired, "expired by an operator")
}

// CancelJob marks an active job canceled and tells its worker to stop.
func (p *Plugin) CancelJob(ctx context.Context, id string) (Job, error) {
	return p.jobs.finish(ctx, id, JobCanceled, "canceled by an operator")
}

// SubmitJob queues a job outside detection (the Lance task API). The job
// runs in spec.Lane, else its type's lane.
func (p *Plugin) SubmitJob(ctx context.Context, spec JobSpec) (Job, error) {
	if p.closed.Load() {
		return Job{}, ErrClosed
	}
	rt := p.types.settings(spec.Type).Runtime
	j, err := p.jobs.create(ctx, spec, SourceSubmitted, rt)
	if err == nil {
		p.sched.wake(j.Lane)
	}
	return j, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// prune deletes finished jobs (and their activity) older than retention.
func (st *jobStore) prune(ctx context.Context, retention time.Duration) (int64, error) {
	cutoff := st.p.now().Add(-retention).UnixMilli()
	res, err := st.p.db.ExecContext(ctx, `DELETE FROM plugin_jobs WHERE state IN (?,?,?,?) AND finished_at > 0 AND finished_at < ?`,
		string(JobSucceeded), string(JobFailed), string(JobCanceled), string(JobExpired), cutoff)
	if err != nil {
		return 0, fmt.Errorf("plugin: prune jobs: %w", err)
	}
	n, _ := res.RowsAffected()
	if n > 0 {
		if _, err := st.p.db.ExecContext(ctx, `DELETE FROM plugin_job_events WHERE job_id NOT IN (SELECT id FROM plugin_jobs)`); err != nil {
			return n, fmt.Errorf("plugin: prune job activity: %w", err)
		}
	}
	return n, nil
}
