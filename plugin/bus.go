package plugin

// Events across replicas: each local job, worker and job-type change is
// also sent through the bus as a small note (ids only: NOTIFY payloads are
// capped at 8000 bytes and the row is in the shared database), and each
// note from another replica is re-read here and published to this
// replica's subscribers, marked Remote.

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/floe/floe/persist/notify"
)

// Bus topics of the plugin's events.
const (
	busTopicJob     = "plugin.job"
	busTopicWorker  = "plugin.worker"
	busTopicJobType = "plugin.job_type"
)

// busNote is the wire form of one event: which job, worker or job type
// changed.
type busNote struct {
	ID string `json:"id"`
}

// forwardEvent sends a local event to the other replicas; never blocks.
func (p *Plugin) forwardEvent(e Event) {
	var topic, id string
	switch e.Kind {
	case EventJob:
		topic, id = busTopicJob, e.Job.ID
	case EventWorker:
		topic, id = busTopicWorker, e.WorkerID
	case EventJobType:
		topic, id = busTopicJobType, e.JobType
	default:
		return
	}
	if err := p.cfg.Bus.Publish(topic, busNote{ID: id}); err != nil {
		p.log.Warn("event not sent to other replicas", "kind", e.Kind, "err", err)
	}
}

// relayRemoteEvents publishes other replicas' events to this replica's
// subscribers until ctx ends. A job is re-read from the database so pages
// render its current state; a job type's descriptors and settings are
// reloaded so this replica's forms and scheduler see the change.
func (p *Plugin) relayRemoteEvents(ctx context.Context, msgs <-chan notify.Message, stop func()) {
	defer stop()
	for {
		var m notify.Message
		var ok bool
		select {
		case <-ctx.Done():
			return
		case m, ok = <-msgs:
			if !ok {
				return
			}
		}
		if m.Resync {
			// Notes may have been lost: a worker event makes listing pages
			// re-read, and the live hub's periodic resync re-reads jobs.
			p.events.publish(Event{Kind: EventWorker, Remote: true})
			continue
		}
		var n busNote
		if json.Unmarshal(m.Data, &n) != nil || n.ID == "" {
			continue
		}
		switch m.Topic {
		case busTopicJob:
			j, err := p.jobs.get(ctx, n.ID) // the row, not a local copy: the other replica wrote it
			if err != nil {
				if !errors.Is(err, ErrJobNotFound) && ctx.Err() == nil {
					p.log.Warn("remote job event: job not read", "job", n.ID, "err", err)
				}
				continue
			}
			p.events.publish(Event{Kind: EventJob, Job: j, Remote: true})
		case busTopicWorker:
			p.events.publish(Event{Kind: EventWorker, WorkerID: n.ID, Remote: true})
		case busTopicJobType:
			if err := p.types.reload(ctx); err != nil && ctx.Err() == nil {
				p.log.Warn("remote job type event: job types not reloaded", "job_type", n.ID, "err", err)
			}
			p.events.publish(Event{Kind: EventJobType, JobType: n.ID, Remote: true})
		}
	}
}
