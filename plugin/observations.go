package plugin

import (
	"encoding/json"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin/pluginpb"
)

// ingestObservations hands a worker's observations to the observe store,
// stamping the worker id (and the receive time when the worker sent none).
func (p *Plugin) ingestObservations(s *session, obs []*pluginpb.Observation) {
	if p.cfg.Observe == nil || len(obs) == 0 {
		return
	}
	now := p.now()
	batch := make([]observe.Observation, 0, len(obs))
	for _, o := range obs {
		if o.GetObjectId() == "" {
			continue
		}
		f, err := catalog.ParseFormat(o.GetFormat())
		if err != nil {
			continue
		}
		at := now
		if ms := o.GetObservedAtUnixMs(); ms > 0 {
			at = time.UnixMilli(ms)
		}
		batch = append(batch, observe.Observation{
			ObjectID:   o.GetObjectId(),
			Format:     f,
			ObservedAt: at,
			WorkerID:   s.workerID,
			Attributes: json.RawMessage(o.GetAttributesJson()),
		})
	}
	stored, skipped := p.cfg.Observe.PutBatch(batch)
	if skipped > 0 {
		p.log.Warn("some observations were refused (invalid or oversized attributes JSON)",
			"worker", s.workerID, "skipped", skipped)
	}
	if stored == 0 {
		return
	}
	// Pages waiting on a targeted observe swap in the new figures; a sweep's
	// thousands of unchanged tables publish nothing.
	for _, o := range batch {
		if p.observer.isRunning(o.ObjectID) {
			p.events.publish(Event{Kind: EventObserved, ObjectID: o.ObjectID})
		}
	}
}
