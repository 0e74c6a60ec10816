package plugin

// Job life as workers report it: connects, heartbeats, progress and
// completion, plus attempt deadlines and expiry.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

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
		r.fromBefore, r.orphanSince = false, time.Time{}
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
	r.LastProgressAt, r.lastAlive, r.goneSince, r.fromBefore, r.orphanSince = now, now, time.Time{}, false, time.Time{}
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
		st.p.observeAfterJob(r.ObjectID, r.StartedAt)
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
	r.goneSince, r.fromBefore, r.orphanSince = time.Time{}, false, time.Time{}
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

// JobRestartedError is the error of a job that was assigned or running
// when floe stopped and whose worker did not come back with it within
// Options.JobRestartGrace. Callers may compare a job's Error to it.
const JobRestartedError = "floe restarted while this job ran and its worker did not report it within the restart grace; whether the attempt finished is unknown, so the job is not retried: check the table and submit it again"

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
		case !r.orphanSince.IsZero() && now.Sub(r.orphanSince) >= st.p.cfg.JobRestartGrace:
			// Its worker may be connected yet silent about it: tell it to
			// stop before the job runs elsewhere.
			notes = append(notes, cancelNote{r.WorkerID, r.ID, "floe restarted and settled this job"})
			// No retry, as for a job whose replica died (ReplicaLostError):
			// the attempt may have finished, or may still run somewhere.
			// The job ends here with a sentence, and the task following it
			// with it, so the task API and the console say the same thing.
			r.MaxAttempts = r.Attempts
			st.failAttemptLocked(ctx, r, JobRestartedError)
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
