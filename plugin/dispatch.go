package plugin

// Dispatch: pending jobs matched to workers with free slots, lane by lane:
// a plan first, then the assignments it names.

import (
	"context"
	"sort"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

// workerBucket keys the ClusterContext minted for a worker and a bucket.
type workerBucket struct{ worker, bucket string }

type dispatchCand struct {
	id       string
	jobType  string
	objectID string
}

// dispatch sends a lane's due pending jobs to the live workers with the most
// free slots. The plan is made under the job lock; the database is written
// outside it (see assign), and messages are queued without blocking (a full
// queue skips that worker until the next pass).
func (p *Plugin) dispatch(ctx context.Context, laneName string) {
	if plan := p.dispatchPlan(ctx, laneName); len(plan) > 0 {
		p.assign(ctx, plan)
	}
}

// dispatchPlan is dispatch's first half: the due candidates, the reads and
// key mints they need (all before the job lock), and the plan.
func (p *Plugin) dispatchPlan(ctx context.Context, laneName string) []assignment {
	now := p.now()
	st := p.jobs
	st.mu.Lock()
	var cands []dispatchCand
	laneActive := 0
	for _, r := range st.active {
		if r.Lane != laneName {
			continue
		}
		if r.State == JobPending {
			if !r.NextAttemptAt.After(now) {
				cands = append(cands, dispatchCand{r.ID, r.Type, r.ObjectID})
			}
		} else {
			laneActive++
		}
	}
	st.mu.Unlock()
	if len(cands) == 0 || laneActive >= laneMaxActive {
		return nil
	}
	sessions := p.reg.live(now)
	if p.cfg.Shared {
		cands = p.releaseUnrunnable(ctx, cands, sessions)
	}
	if len(sessions) == 0 || len(cands) == 0 {
		return nil
	}
	// Everything that needs I/O happens before the assignment lock. Each
	// Execute carries a key scoped to its job's bucket, so keys are minted
	// per worker and bucket (the lane fixes the role).
	clusters := map[workerBucket]*pluginpb.ClusterContext{}
	refs := map[string]*pluginpb.ObjectRef{}
	settings := map[string]Settings{}
	for _, c := range cands {
		if _, ok := settings[c.jobType]; !ok {
			settings[c.jobType] = p.types.settings(c.jobType)
		}
		if _, ok := refs[c.objectID]; !ok && len(refs) < laneMaxActive {
			refs[c.objectID] = p.objectRef(ctx, c.objectID)
		}
	}
	for _, s := range sessions {
		for _, c := range cands {
			capb, ok := s.capability(c.jobType)
			ref, known := refs[c.objectID]
			if !ok || !capb.GetCanExecute() || !known {
				continue
			}
			scope := executeScope(laneName, ref)
			wb := workerBucket{s.workerID, scope.bucket}
			if _, done := clusters[wb]; done {
				continue
			}
			cc, err := p.clusterContext(ctx, s, scope)
			if err != nil {
				p.log.Warn("could not mint a worker API key", "worker", s.workerID, "bucket", scope.bucket, "err", err)
			}
			clusters[wb] = cc // nil after an error: this pass skips the pair
		}
	}
	return p.planAssignments(laneName, laneActive, cands, sessions, refs, settings, clusters, now)
}

// assignment is one pending job the dispatcher means to hand to a worker.
type assignment struct {
	job    Job // as it is stored once assigned
	prev   int // attempts before this one: the row must still be pending with it
	worker *session
	msg    *pluginpb.ConsoleMessage
}

// planAssignments picks, under the job mutex, a worker for each due
// candidate the lane, the job types' concurrency and the workers' free
// slots allow. It changes nothing: assign stores and sends the plan.
func (p *Plugin) planAssignments(laneName string, laneActive int, cands []dispatchCand, sessions []*session,
	refs map[string]*pluginpb.ObjectRef, settings map[string]Settings, clusters map[workerBucket]*pluginpb.ClusterContext, now time.Time) []assignment {
	st := p.jobs
	st.mu.Lock()
	defer st.mu.Unlock()
	byType := map[string]int{}
	byWorker := map[string]int{}
	byWorkerType := map[[2]string]int{}
	for _, r := range st.active {
		if r.State == JobAssigned || r.State == JobRunning {
			byType[r.Type]++
			byWorker[r.WorkerID]++
			byWorkerType[[2]string{r.WorkerID, r.Type}]++
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		return st.active[cands[i].id] != nil && st.active[cands[j].id] != nil &&
			st.active[cands[i].id].CreatedAt.Before(st.active[cands[j].id].CreatedAt)
	})
	var plan []assignment
	for _, c := range cands {
		if laneActive >= laneMaxActive {
			break
		}
		r, ok := st.active[c.id]
		if !ok || r.State != JobPending {
			continue
		}
		if _, known := refs[c.objectID]; !known {
			continue // not resolved this pass (cap): no key scoped to it yet
		}
		set := settings[c.jobType]
		if byType[c.jobType] >= set.Runtime.GlobalConcurrency {
			continue
		}
		var best *session
		bestFree := 0
		for _, s := range sessions {
			capb, ok := s.capability(c.jobType)
			if !ok || !capb.GetCanExecute() || clusters[workerBucket{s.workerID, refs[c.objectID].GetBucket()}] == nil {
				continue
			}
			free := min(max(1, int(capb.GetMaxExecuteSlots())), set.Runtime.PerWorkerConcurrency) -
				byWorkerType[[2]string{s.workerID, c.jobType}]
			if total := s.totalSlots(); total > 0 {
				free = min(free, total-byWorker[s.workerID])
			}
			if free > bestFree {
				best, bestFree = s, free
			}
		}
		if best == nil {
			continue
		}
		deadline := now.Add(set.Runtime.ExecutionTimeout)
		j := r.Job.clone()
		j.Attempts++
		j.State, j.WorkerID, j.DeadlineAt, j.NextAttemptAt = JobAssigned, best.workerID, deadline, time.Time{}
		j.Percent, j.Stage, j.Message = 0, "", ""
		if j.StartedAt.IsZero() {
			j.StartedAt = now
		}
		j.UpdatedAt = now
		msg := &pluginpb.ConsoleMessage{RequestId: p.newRequestID(), Body: &pluginpb.ConsoleMessage_Execute{Execute: &pluginpb.Execute{
			Job: &pluginpb.JobSpec{
				JobId: j.ID, JobType: j.Type, ObjectId: j.ObjectID, Parameters: j.Parameters,
				Attempt: int32(j.Attempts), DeadlineUnixMs: deadline.UnixMilli(), Cluster: clusters[workerBucket{best.workerID, refs[j.ObjectID].GetBucket()}],
				SettingsJson: settingsJSON(descriptorFromProto(p.types.descriptor(j.Type)), set.Values), Object: refs[j.ObjectID],
			}}}}
		plan = append(plan, assignment{job: j, prev: r.Attempts, worker: best, msg: msg})
		byType[c.jobType]++
		byWorker[best.workerID]++
		byWorkerType[[2]string{best.workerID, c.jobType}]++
		laneActive++
	}
	return plan
}

// assign carries out a plan without writing to the database under the job
// mutex: each assignment is stored first, as a compare-and-set on the
// pending row the plan saw, so a cancel, an expiry or another replica's
// takeover meanwhile wins; only then, under the mutex, is the job still
// pending in memory marked assigned and its Execute queued for the worker,
// so a worker never reports on a job whose assignment is not stored yet.
// A job whose Execute cannot be queued (the worker's queue is full) is put
// back to pending, in memory and in its row; the next pass retries it.
func (p *Plugin) assign(ctx context.Context, plan []assignment) {
	st := p.jobs
	stored := make([]bool, len(plan))
	for i := range plan {
		a := &plan[i]
		landed, err := st.writeIf(ctx, &a.job, &rowIs{state: JobPending, attempts: a.prev})
		if err != nil {
			p.log.Error("job not assigned: not saved", "job", a.job.ID, "err", err)
			continue
		}
		stored[i] = landed
	}
	var lines []activityLine
	var undo []Job // rows to put back to pending
	st.mu.Lock()
	now := p.now()
	// Other lanes may have given the same workers jobs since the plan:
	// a worker's total slots are checked again against what it runs now.
	busy := map[string]int{}
	for _, r := range st.active {
		if r.State == JobAssigned || r.State == JobRunning {
			busy[r.WorkerID]++
		}
	}
	for i, a := range plan {
		r, ok := st.active[a.job.ID]
		unchanged := ok && r.State == JobPending && r.Attempts == a.prev
		total := a.worker.totalSlots()
		switch {
		case !unchanged:
			// Changed since the plan: that change wrote its row after
			// the plan's (or made the plan's compare-and-set miss).
			continue
		case !stored[i] && p.cfg.Shared:
			// The row left this replica's lease: another replica took
			// the job over, and its state there wins.
			p.log.Warn("job taken over by another replica; this one forgets it", "job", r.ID)
			st.forgetLocked(r)
			continue
		case !stored[i]:
			p.log.Warn("job not assigned: its stored row no longer matches; the next pass retries", "job", r.ID)
			continue
		case total > 0 && busy[a.worker.workerID] >= total, !a.worker.trySend(a.msg):
			// No slot left, or that worker's queue is full: the next
			// pass retries.
			undo = append(undo, r.Job.clone())
			continue
		}
		busy[a.worker.workerID]++
		p.metrics.jobSent(r.Type, now.Sub(latest(r.CreatedAt, r.NextAttemptAt))) // due since
		r.Job.Attempts, r.State, r.WorkerID, r.DeadlineAt, r.NextAttemptAt = a.job.Attempts, a.job.State, a.job.WorkerID, a.job.DeadlineAt, a.job.NextAttemptAt
		r.Percent, r.Stage, r.Message, r.StartedAt, r.UpdatedAt = a.job.Percent, a.job.Stage, a.job.Message, a.job.StartedAt, a.job.UpdatedAt
		r.lastAlive, r.goneSince, r.fromBefore, r.orphanSince = now, time.Time{}, false, time.Time{}
		if l, ok := st.reserveLineLocked(r, "attempt %d sent to %s", r.Attempts, a.worker.workerID); ok {
			lines = append(lines, l)
		}
		st.p.events.publish(Event{Kind: EventJob, Job: r.Job.clone()})
	}
	st.mu.Unlock()
	for _, l := range lines {
		st.insertActivity(ctx, l)
	}
	for _, j := range undo {
		assigned := planned(plan, j.ID)
		if _, err := st.writeIf(ctx, &j, &rowIs{state: JobAssigned, attempts: assigned.Attempts,
			worker: assigned.WorkerID, checkWorker: true}); err != nil {
			p.log.Error("job not put back to pending", "job", j.ID, "err", err)
		}
	}
}

// planned is the assigned form of job id in plan.
func planned(plan []assignment, id string) Job {
	for _, a := range plan {
		if a.job.ID == id {
			return a.job
		}
	}
	return Job{}
}

// releaseUnrunnable hands the pending jobs none of this replica's workers
// can run to the other replicas (Options.Shared) and returns the rest. The
// release is stored first, outside the job mutex; the job is then forgotten
// here if it is still the pending job that was released.
func (p *Plugin) releaseUnrunnable(ctx context.Context, cands []dispatchCand, sessions []*session) []dispatchCand {
	runnable := func(jobType string) bool {
		for _, s := range sessions {
			if c, ok := s.capability(jobType); ok && c.GetCanExecute() {
				return true
			}
		}
		return false
	}
	keep := cands[:0]
	for _, c := range cands {
		if runnable(c.jobType) {
			keep = append(keep, c)
			continue
		}
		p.jobs.release(ctx, c.id)
	}
	return keep
}
