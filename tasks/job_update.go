package tasks

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// JobUpdate is what the integrator passes from a plugin job event.
type JobUpdate struct {
	JobID string
	// State is the job's state name. Recognised (case-insensitive):
	// running, in_progress, started → running; completed, succeeded,
	// success, done → completed; failed, error, cancelled, canceled,
	// timeout, timed_out, expired, lost → failed. Anything else (pending,
	// queued, assigned) leaves the task as it is.
	State       string
	StartedAt   time.Time      // zero: now, if the task had not started
	CompletedAt time.Time      // zero: now, when terminal
	Result      map[string]any // stored as the task's result when terminal
	Error       string         // the failure message when failed
}

// statusOf maps a job state name to the task status it implies.
func statusOf(state string) (Status, bool) {
	switch strings.ToLower(strings.TrimSpace(state)) {
	case "running", "in_progress", "started":
		return StatusRunning, true
	case "completed", "succeeded", "success", "done":
		return StatusCompleted, true
	case "failed", "error", "cancelled", "canceled", "timeout", "timed_out", "expired", "lost":
		return StatusFailed, true
	}
	return "", false
}

func rank(s Status) int {
	switch s {
	case StatusRunning:
		return 1
	case StatusCompleted, StatusFailed:
		return 2
	}
	return 0
}

// OnJobUpdate moves the task linked to u.JobID along: submitted → running,
// submitted|running → completed or failed. Terminal tasks never change, so
// late or repeated events are harmless. An update for a job id not linked to
// any task is held briefly (the runner may report before SubmitJob returned
// the id to us) and otherwise ignored: most such jobs are not tasks. It
// reports whether a task changed.
func (s *Service) OnJobUpdate(ctx context.Context, u JobUpdate) (bool, error) {
	st, ok := statusOf(u.State)
	if !ok || u.JobID == "" {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed, err := s.applyJob(ctx, "job_id", u.JobID, st, u)
	if err != nil || changed {
		return changed, err
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM lance_tasks WHERE job_id = ?`, u.JobID).Scan(&n); err != nil {
		return false, fmt.Errorf("tasks: job update: %w", err)
	}
	if n == 0 {
		s.holdEarly(u, st)
	}
	return false, nil
}

// applyJob writes the transition st for the task whose column key equals
// val. Callers hold s.mu, or own the task (finish).
func (s *Service) applyJob(ctx context.Context, key, val string, st Status, u JobUpdate) (bool, error) {
	now := s.now()
	started := u.StartedAt
	if started.IsZero() {
		started = now
	}
	var (
		q    string
		args []any
	)
	switch st {
	case StatusRunning:
		q = `UPDATE lance_tasks SET status = 'running', started_at = ? WHERE ` + key + ` = ? AND status = 'submitted'`
		args = []any{micros(started), val}
	default:
		done := u.CompletedAt
		if done.IsZero() {
			done = now
		}
		res, err := encodeObject(u.Result)
		if err != nil {
			res = "{}"
		}
		code, msg := "", ""
		if st == StatusFailed {
			code, msg = FailJob, u.Error
			if msg == restartMessage {
				code = FailRestarted
			}
			if msg == "" {
				msg = "the job running this task failed without saying why; see the job in the console"
			}
		}
		q = `UPDATE lance_tasks SET status = ?, completed_at = ?, result = ?, error_code = ?, error_message = ?,
			started_at = CASE WHEN started_at = 0 THEN ? ELSE started_at END
			WHERE ` + key + ` = ? AND status IN ('submitted', 'running')`
		args = []any{string(st), micros(done), res, code, msg, micros(started), val}
	}
	r, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("tasks: job update: %w", err)
	}
	n, _ := r.RowsAffected()
	return n > 0, nil
}

// finish fails or completes a task directly (not through a job).
func (s *Service) finish(ctx context.Context, u JobUpdate, taskID string) {
	st, _ := statusOf(u.State)
	if _, err := s.applyJob(ctx, "id", taskID, st, u); err != nil {
		s.log.Warn("tasks: could not record the task's end", "task_id", taskID, "err", err)
	}
}

// holdEarly keeps the most advanced update for an unlinked job id. Caller
// holds s.mu.
func (s *Service) holdEarly(u JobUpdate, st Status) {
	now := s.now()
	if old, ok := s.early[u.JobID]; ok {
		if os, _ := statusOf(old.update.State); rank(os) > rank(st) {
			return
		}
		s.early[u.JobID] = earlyJob{at: old.at, update: u}
		return
	}
	// Drop what is too old or over the cap, oldest first.
	for len(s.earlyOrd) > 0 {
		id := s.earlyOrd[0]
		e, ok := s.early[id]
		if ok && len(s.early) < maxEarlyUpdates && now.Sub(e.at) < earlyUpdateTTL {
			break
		}
		delete(s.early, id)
		s.earlyOrd = s.earlyOrd[1:]
	}
	s.early[u.JobID] = earlyJob{at: now, update: u}
	s.earlyOrd = append(s.earlyOrd, u.JobID)
	if len(s.earlyOrd) > 2*maxEarlyUpdates {
		// Linked ids leave early but stay in earlyOrd until they reach the
		// front; rebuild so the order list stays bounded too.
		live := s.earlyOrd[:0:0]
		for _, id := range s.earlyOrd {
			if _, ok := s.early[id]; ok {
				live = append(live, id)
			}
		}
		s.earlyOrd = live
	}
}

// link records the job id of a task and applies any update that arrived
// for that job before the id was known.
func (s *Service) link(ctx context.Context, taskID, jobID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.db.ExecContext(ctx, `UPDATE lance_tasks SET job_id = ? WHERE id = ? AND job_id = ''`, jobID, taskID)
	if err != nil {
		s.log.Error("tasks: could not record the job of a task", "task_id", taskID, "job_id", jobID, "err", err)
		return
	}
	e, ok := s.early[jobID]
	if !ok {
		return
	}
	delete(s.early, jobID) // its earlyOrd entry is skipped when reached
	st, _ := statusOf(e.update.State)
	if _, err := s.applyJob(ctx, "job_id", jobID, st, e.update); err != nil {
		s.log.Warn("tasks: could not apply an early job update", "job_id", jobID, "err", err)
	}
}
