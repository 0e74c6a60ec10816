package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/web/sessions"
)

// services are the long-lived parts behind every surface.
type services struct {
	observe *observe.Store
	plugin  *plugin.Plugin
	preview *preview.Broker
	tasks   *tasks.Service
	// sessions is used only to delete expired sessions; the console keeps
	// its own store over the same table.
	sessions *sessions.Store
}

// Intervals of the housekeeping loop: expired sessions and minted worker keys
// are deleted, and tasks are reconciled with their jobs in case a job event
// was dropped by a slow subscriber.
const (
	housekeepingInterval = 30 * time.Second
)

func newServices(ctx context.Context, db *persist.DB, st *catalog.Store, log *slog.Logger, lanceURL, icebergURL string) (*services, error) {
	sess, err := sessions.New(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	obs, err := observe.New(db, 0)
	if err != nil {
		return nil, err
	}
	p, err := plugin.New(plugin.Config{DB: db, Store: st, Observe: obs, Logger: log, LanceURL: lanceURL, IcebergURL: icebergURL,
		Reviewer: st, // maintenance configuration (S3 Tables API) has the last word on proposals
		Options:  plugin.Options{ConsoleVersion: version}})
	if err != nil {
		obs.Close()
		return nil, err
	}
	ts, err := tasks.New(db, st, taskRunner{p}, log)
	if err != nil {
		p.Shutdown(ctx)
		obs.Close()
		return nil, err
	}
	return &services{observe: obs, plugin: p, preview: preview.New(p, obs), tasks: ts, sessions: sess}, nil
}

// run links task status to job events and does housekeeping until ctx ends.
func (s *services) run(ctx context.Context, st *catalog.Store, log *slog.Logger) {
	if _, err := s.tasks.Resume(ctx); err != nil {
		log.Warn("resume submitted tasks", "err", err)
	}
	events, stop := s.plugin.Subscribe()
	defer stop()
	tick := time.NewTicker(housekeepingInterval)
	defer tick.Stop()
	lookup := func(ctx context.Context, id string) (tasks.JobUpdate, error) {
		j, err := s.plugin.GetJob(ctx, id)
		if errors.Is(err, plugin.ErrJobNotFound) {
			return tasks.JobUpdate{}, tasks.ErrJobGone
		}
		return jobUpdate(j), err
	}
	// Settle tasks that were running when floe last stopped without waiting
	// for the first tick.
	if _, err := s.tasks.Reconcile(ctx, lookup); err != nil && ctx.Err() == nil {
		log.Warn("reconcile tasks", "err", err)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind == plugin.EventJob && ev.Job.Source == plugin.SourceSubmitted {
				if _, err := s.tasks.OnJobUpdate(ctx, jobUpdate(ev.Job)); err != nil {
					log.Warn("task follow job", "job", ev.Job.ID, "err", err)
				}
			}
		case <-tick.C:
			if _, err := s.tasks.Reconcile(ctx, lookup); err != nil && ctx.Err() == nil {
				log.Warn("reconcile tasks", "err", err)
			}
			if err := s.sessions.DeleteExpired(ctx); err != nil && ctx.Err() == nil {
				log.Warn("delete expired sessions", "err", err)
			}
			if err := st.DeleteExpiredAPIKeys(ctx); err != nil && ctx.Err() == nil {
				log.Warn("delete expired api keys", "err", err)
			}
		}
	}
}

func (s *services) close() { s.observe.Close() }

// taskRunner turns a Lance task into a plugin job in the lance lane.
type taskRunner struct{ p *plugin.Plugin }

func (r taskRunner) SubmitJob(ctx context.Context, typ, obj string, params map[string]string) (string, error) {
	j, err := r.p.SubmitJob(ctx, plugin.JobSpec{Type: typ, ObjectID: obj, Parameters: params,
		DedupeKey: "lance-task:" + params["task_id"], Summary: "task API " + typ, Lane: "lance"})
	if errors.Is(err, plugin.ErrDuplicateJob) {
		return j.ID, nil
	}
	return j.ID, err
}

func jobUpdate(j plugin.Job) tasks.JobUpdate {
	return tasks.JobUpdate{JobID: j.ID, State: string(j.State), StartedAt: j.StartedAt,
		CompletedAt: j.FinishedAt, Result: tasks.JobResult(j.ResultJSON, j.Result), Error: j.Error}
}
