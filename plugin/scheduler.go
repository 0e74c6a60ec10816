package plugin

import (
	"context"
	"errors"
	"fmt"
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
