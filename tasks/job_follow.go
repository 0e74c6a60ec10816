package tasks

import (
	"context"
	"errors"
	"time"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
)

// Jobs is the part of the plugin's job scheduler the task link uses:
// submitting a task's job, reading one back, and its change feed.
// *plugin.Plugin satisfies it.
type Jobs interface {
	SubmitJob(ctx context.Context, spec plugin.JobSpec) (plugin.Job, error)
	GetJob(ctx context.Context, id string) (plugin.Job, error)
	Subscribe() (<-chan plugin.Event, func())
}

// reconcileInterval is how often FollowJobs asks the scheduler for the state
// of every open task's job, in case a job event was dropped for a slow
// subscriber.
const reconcileInterval = 30 * time.Second

// PluginRunner runs tasks as plugin jobs in the lance lane. A task is
// submitted at most once per task id: a second hand-over of the same task
// (Resume after a restart) answers the job already running it.
type PluginRunner struct{ Jobs Jobs }

// SubmitJob implements JobRunner. The job is submitted by the principal
// the caller's context carries (identity.NewContext: the task API's and
// the console's callers), or by floe itself when it hands over a task a
// previous process accepted (Resume), whose submitter was decided then.
func (r PluginRunner) SubmitJob(ctx context.Context, typ, obj string, params map[string]string) (string, error) {
	by, ok := identity.FromContext(ctx)
	if !ok {
		by = identity.Principal{Kind: identity.System, ID: "task-resume"}
	}
	j, err := r.Jobs.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: obj, Parameters: params,
		DedupeKey: "lance-task:" + params["task_id"], Summary: "task API " + typ, Lane: "lance", By: by})
	if errors.Is(err, plugin.ErrDuplicateJob) {
		return j.ID, nil
	}
	return j.ID, err
}

// FollowJobs keeps tasks in step with the jobs running them until ctx ends
// or the feed closes: it hands submitted tasks left by a previous process to
// the runner, settles tasks whose jobs ended while floe was down, applies
// every job event of a submitted job, and reconciles now and then.
func (s *Service) FollowJobs(ctx context.Context, jobs Jobs) {
	events, stop := jobs.Subscribe()
	defer stop()
	// Subscribe before resuming, so no event of a resumed task's job is
	// missed between its submission and the loop below.
	if _, err := s.Resume(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("resume submitted tasks", "err", err)
	}
	lookup := func(ctx context.Context, id string) (JobUpdate, error) {
		j, err := jobs.GetJob(ctx, id)
		if errors.Is(err, plugin.ErrJobNotFound) {
			return JobUpdate{}, ErrJobGone
		}
		return jobUpdate(j), err
	}
	reconcile := func() {
		if _, err := s.Reconcile(ctx, lookup); err != nil && ctx.Err() == nil {
			s.log.Warn("reconcile tasks", "err", err)
		}
	}
	// Settle tasks that were running when floe last stopped without waiting
	// for the first tick.
	reconcile()
	tick := time.NewTicker(reconcileInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			// Scheduled jobs (detected, not submitted) are never tasks; a
			// remote event's job is followed by the replica where it runs.
			if ev.Kind != plugin.EventJob || ev.Remote || ev.Job.Source != plugin.SourceSubmitted {
				continue
			}
			if _, err := s.OnJobUpdate(ctx, jobUpdate(ev.Job)); err != nil && ctx.Err() == nil {
				s.log.Warn("task follow job", "job", ev.Job.ID, "err", err)
			}
		case <-tick.C:
			reconcile()
		}
	}
}

// jobUpdate reads what a task needs from a plugin job. A job the scheduler
// settled because floe restarted under it fails its task as restarted.
func jobUpdate(j plugin.Job) JobUpdate {
	msg := j.Error
	if msg == plugin.JobRestartedError {
		msg = restartMessage
	}
	return JobUpdate{JobID: j.ID, State: string(j.State), StartedAt: j.StartedAt,
		CompletedAt: j.FinishedAt, Result: JobResult(j.ResultJSON, j.Result), Error: msg}
}
