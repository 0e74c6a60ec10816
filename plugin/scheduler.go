package plugin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

// laneMaxActive bounds the assigned and running jobs of one lane, so one
// lane's flood cannot take every worker slot another lane's job types could
// use on shared workers.
const laneMaxActive = 64

// maxProposalsPerDetection bounds what one detection may return, whatever
// the job type's setting says.
const maxProposalsPerDetection = 10_000

// scheduler runs one loop per lane; lanes never wait on each other.
type scheduler struct {
	p     *Plugin
	lanes map[string]*lane

	mu         sync.Mutex
	detecting  map[string]bool      // job type → a detection is in flight
	lastDetect map[string]time.Time // job type → last scheduled detection start
}

type lane struct {
	name string
	kick chan struct{} // cap 1: look at the lane soon
}

func newScheduler(p *Plugin) *scheduler {
	s := &scheduler{p: p, lanes: map[string]*lane{}, detecting: map[string]bool{}, lastDetect: map[string]time.Time{}}
	for _, n := range Lanes {
		s.lanes[n] = &lane{name: n, kick: make(chan struct{}, 1)}
	}
	return s
}

func (s *scheduler) start(ctx context.Context) {
	for _, l := range s.lanes {
		s.p.wg.Go(func() { s.loop(ctx, l) })
	}
}

func (s *scheduler) wake(laneName string) {
	l, ok := s.lanes[laneOf(laneName)]
	if !ok {
		return
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (s *scheduler) wakeAll() {
	for n := range s.lanes {
		s.wake(n)
	}
}

func (s *scheduler) loop(ctx context.Context, l *lane) {
	t := time.NewTicker(s.p.cfg.SchedulerTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-l.kick:
		}
		s.step(ctx, l)
	}
}

// step is one pass over a lane: due detections start, deadlines and expiry
// apply, pending jobs go to workers.
func (s *scheduler) step(ctx context.Context, l *lane) {
	s.startDueDetections(ctx, l)
	s.p.jobs.sweep(ctx, l.name)
	s.p.dispatch(ctx, l.name)
}

func (s *scheduler) startDueDetections(ctx context.Context, l *lane) {
	now := s.p.now()
	for _, jt := range s.p.types.names() {
		if s.p.laneFor(jt) != l.name {
			continue
		}
		rt := s.p.types.settings(jt).Runtime
		if !rt.Enabled || !s.p.canDetect(jt) {
			continue
		}
		s.mu.Lock()
		due := !s.detecting[jt] && now.Sub(s.lastDetect[jt]) >= rt.DetectionInterval
		if due {
			s.detecting[jt] = true
			s.lastDetect[jt] = now
		}
		s.mu.Unlock()
		if !due {
			continue
		}
		s.p.wg.Go(func() {
			defer func() {
				s.mu.Lock()
				delete(s.detecting, jt)
				s.mu.Unlock()
			}()
			if s.p.cfg.Shared {
				// Replicas take turns: only the one that wins the job
				// type's row runs this interval's detection.
				won, err := s.p.claimDetection(ctx, jt, rt.DetectionInterval)
				if err != nil && ctx.Err() == nil {
					s.p.log.Warn("could not claim a scheduled detection", "job_type", jt, "err", err)
				}
				if !won {
					return
				}
			}
			res, err := s.p.runNow(ctx, jt, SourceDetection)
			if err != nil {
				if ctx.Err() == nil {
					s.p.log.Warn("scheduled detection failed", "job_type", jt, "err", err)
				}
				return
			}
			if len(res.Created) > 0 {
				s.p.log.Info("detection queued jobs", "job_type", jt, "created", len(res.Created), "deduped", res.Deduped)
			}
		})
	}
}

func (p *Plugin) canDetect(jobType string) bool {
	for _, s := range p.reg.live(p.now()) {
		if c, ok := s.capability(jobType); ok && c.GetCanDetect() {
			return true
		}
	}
	return false
}

// RunResult tells what one detect-and-dispatch did.
type RunResult struct {
	Proposals int   // proposals the worker returned
	Created   []Job // jobs queued
	Deduped   int   // proposals dropped: an active job had the dedupe key
	Capped    int   // proposals dropped over max_jobs_per_detection
	Disabled  int   // proposals dropped: maintenance configuration disabled it
}

// RunDetection asks a worker that can detect jobType for proposals, using
// the job type's settings, and returns them without queueing anything.
func (p *Plugin) RunDetection(ctx context.Context, jobType string) ([]Proposal, error) {
	d, err := p.DetectWhy(ctx, jobType)
	return d.Proposals, err
}

// Detection is what one detection found: the proposals, and the tables the
// worker read and did not propose with why (Summary), when it says.
type Detection struct {
	Proposals []Proposal
	Skipped   []Proposal
}

// DetectWhy is RunDetection that also returns the worker's reasons for the
// tables it did not propose ("5 fragments, threshold 8").
func (p *Plugin) DetectWhy(ctx context.Context, jobType string) (Detection, error) {
	var why []Proposal
	start := time.Now()
	out, err := p.runDetection(ctx, jobType, &why)
	p.metrics.detected(jobType, time.Since(start), err)
	return Detection{Proposals: out, Skipped: why}, err
}

func (p *Plugin) runDetection(ctx context.Context, jobType string, why *[]Proposal) ([]Proposal, error) {
	set := p.types.settings(jobType)
	d := p.types.descriptor(jobType)
	sess := p.pickDetector(jobType)
	if sess == nil {
		return nil, fmt.Errorf("%w (job type %s, detection)", ErrNoWorker, jobType)
	}
	ctx, cancel := context.WithTimeout(ctx, set.Runtime.DetectionTimeout)
	defer cancel()
	cluster, err := p.clusterContext(ctx, sess, detectScope)
	if err != nil {
		return nil, fmt.Errorf("mint the worker's API key: %w", err)
	}
	deadline, _ := ctx.Deadline()
	call, err := p.startCall(sess, &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Detect{Detect: &pluginpb.Detect{
		JobType: jobType, SettingsJson: settingsJSON(descriptorFromProto(d), set.Values), Cluster: cluster,
		MaxProposals: int32(min(set.Runtime.MaxJobsPerDetection, maxProposalsPerDetection)), DeadlineUnixMs: deadline.UnixMilli(),
	}}})
	if err != nil {
		return nil, err
	}
	defer call.Close()
	var out []Proposal
	for {
		m, err := call.Next(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("detection of %s timed out after %s; raise the detection timeout or check worker %s",
					jobType, set.Runtime.DetectionTimeout, sess.workerID)
			}
			return nil, err
		}
		switch b := m.GetBody().(type) {
		case *pluginpb.WorkerMessage_Proposals:
			for _, pr := range b.Proposals.GetProposals() {
				if len(out) >= maxProposalsPerDetection {
					break
				}
				out = append(out, Proposal{ObjectID: pr.GetObjectId(), DedupeKey: pr.GetDedupeKey(),
					Parameters: pr.GetParameters(), Summary: pr.GetSummary()})
			}
		case *pluginpb.WorkerMessage_DetectionDone:
			call.Finish()
			for _, sk := range b.DetectionDone.GetSkipped() {
				if len(*why) >= maxProposalsPerDetection {
					break
				}
				*why = append(*why, Proposal{ObjectID: sk.GetObjectId(), Summary: sk.GetSummary()})
			}
			if e := b.DetectionDone.GetError(); e != "" {
				return out, fmt.Errorf("worker %s: detection of %s failed: %s", sess.workerID, jobType, e)
			}
			return out, nil
		}
	}
}

// pickDetector chooses the live worker able to detect jobType with the
// fewest detections of ours in flight.
func (p *Plugin) pickDetector(jobType string) *session {
	var best *session
	bestLoad := 0
	for _, s := range p.reg.live(p.now()) {
		c, ok := s.capability(jobType)
		if !ok || !c.GetCanDetect() {
			continue
		}
		load := p.pending.countFor(s)
		if best == nil || load < bestLoad {
			best, bestLoad = s, load
		}
	}
	return best
}

// RunNow detects and queues the proposals as jobs (the console's Run now).
func (p *Plugin) RunNow(ctx context.Context, jobType string) (RunResult, error) {
	return p.runNow(ctx, jobType, SourceRunNow)
}

func (p *Plugin) runNow(ctx context.Context, jobType, source string) (RunResult, error) {
	props, err := p.RunDetection(ctx, jobType)
	if err != nil {
		return RunResult{}, err
	}
	found := len(props)
	props, disabled, err := p.reviewProposals(ctx, jobType, props)
	if err != nil {
		return RunResult{}, fmt.Errorf("review %s proposals against maintenance configuration: %w", jobType, err)
	}
	rt := p.types.settings(jobType).Runtime
	res := RunResult{Proposals: found, Disabled: disabled}
	seen := map[string]bool{}
	for _, pr := range props {
		key := pr.DedupeKey
		if key == "" {
			key = jobType + ":" + pr.ObjectID
		}
		if seen[key] {
			res.Deduped++
			continue
		}
		seen[key] = true
		if len(res.Created) >= rt.MaxJobsPerDetection {
			res.Capped++
			continue
		}
		j, err := p.jobs.create(ctx, JobSpec{Type: jobType, ObjectID: pr.ObjectID, Parameters: pr.Parameters,
			DedupeKey: key, Summary: pr.Summary}, source, rt)
		switch {
		case errors.Is(err, ErrDuplicateJob):
			res.Deduped++
		case err != nil:
			return res, err
		default:
			res.Created = append(res.Created, j)
		}
	}
	if len(res.Created) > 0 {
		p.sched.wake(p.laneFor(jobType))
	}
	return res, nil
}

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
