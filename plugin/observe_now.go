package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
)

// Targeted observes: when a table changed (a commit through a catalog, a
// finished job, a page that saw storage ahead of the last observation) the
// console asks one worker to observe just that table, instead of waiting for
// the next detection sweep.
const (
	// observeDebounce gathers the requests for one table that arrive
	// together (a writer committing many times a second, several pages
	// open) into one observe; it is also the floor on how stale figures are
	// after a change.
	observeDebounce = 500 * time.Millisecond
	// observeQueueCap bounds the tables waiting for an observe; past it new
	// requests are dropped (the detection sweep still covers them).
	observeQueueCap = 1000
	// observeConcurrency is how many targeted observes run at once: each
	// holds a worker detection slot, which scheduled sweeps also need.
	observeConcurrency = 2
	// observeBatch is how many tables of one format go in one request.
	observeBatch = 20
	// observeTimeout bounds one targeted observe.
	observeTimeout = 60 * time.Second
)

// observer is the queue of tables waiting for a targeted observe.
type observer struct {
	mu      sync.Mutex
	due     map[string]time.Time // object id -> when to observe it
	running map[string]bool
	wake    chan struct{}
}

func newObserver() *observer {
	return &observer{due: map[string]time.Time{}, running: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// ObserveNow asks for fresh figures of one table soon (debounced, bounded,
// never blocking). It reports whether the request was queued; false means
// the queue is full or the channel is closed, and the next sweep will do.
func (p *Plugin) ObserveNow(objectID string) bool {
	if objectID == "" || p.closed.Load() {
		return false
	}
	o := p.observer
	o.mu.Lock()
	_, queued := o.due[objectID]
	if !queued {
		if len(o.due) >= observeQueueCap {
			o.mu.Unlock()
			return false
		}
		o.due[objectID] = p.now().Add(observeDebounce)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// observeAfterJob asks for fresh figures of a table a job just changed,
// unless its worker already sent an observation since the job started (the
// Lance worker observes after each job; the Iceberg worker does not).
func (p *Plugin) observeAfterJob(objectID string, started time.Time) {
	if objectID == "" || p.cfg.Observe == nil {
		return
	}
	for _, f := range []catalog.Format{catalog.FormatLance, catalog.FormatIceberg} {
		if _, at, _, ok := p.cfg.Observe.Rows(objectID, f); ok && !at.Before(started) {
			return
		}
	}
	p.ObserveNow(objectID)
}

// observeLoop runs due observes until ctx ends.
func (p *Plugin) observeLoop(ctx context.Context) {
	o := p.observer
	sem := make(chan struct{}, observeConcurrency)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		ids, next := o.take(p.now())
		if len(ids) > 0 {
			for _, batch := range p.groupByFormat(ctx, ids) {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				p.wg.Go(func() {
					defer func() { <-sem }()
					p.observeTables(ctx, batch)
					o.finish(batch.ids)
					select {
					case o.wake <- struct{}{}:
					default:
					}
				})
			}
			continue
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(next.Sub(p.now()), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// take removes and returns the due tables that are not being observed
// already, and says when the next one falls due.
func (o *observer) take(now time.Time) (ids []string, next time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, at := range o.due {
		if o.running[id] {
			continue // observed again once the running observe ends
		}
		if !at.After(now) {
			ids = append(ids, id)
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	for _, id := range ids {
		delete(o.due, id)
		o.running[id] = true
	}
	slices.Sort(ids)
	return ids, next
}

func (o *observer) isRunning(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.running[id]
}

func (o *observer) finish(ids []string) {
	o.mu.Lock()
	for _, id := range ids {
		delete(o.running, id)
	}
	o.mu.Unlock()
}

type observeBatchReq struct {
	lane string
	ids  []string
	refs []*pluginpb.ObjectRef
}

// groupByFormat resolves ids to catalog entries and groups them by the
// lane that observes their format. Tables gone from the catalog are dropped
// (and released).
func (p *Plugin) groupByFormat(ctx context.Context, ids []string) []observeBatchReq {
	byLane := map[string][]observeBatchReq{}
	var lanes, gone []string
	for _, id := range ids {
		t, err := p.store.GetTableByID(ctx, id)
		if err != nil {
			gone = append(gone, id)
			continue
		}
		lane := laneOfFormat(t.Format)
		bs := byLane[lane]
		if len(bs) == 0 {
			lanes = append(lanes, lane)
		}
		if len(bs) == 0 || len(bs[len(bs)-1].ids) >= observeBatch {
			bs = append(bs, observeBatchReq{lane: lane})
		}
		last := &bs[len(bs)-1]
		last.ids = append(last.ids, id)
		last.refs = append(last.refs, &pluginpb.ObjectRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name, Location: t.Location})
		byLane[lane] = bs
	}
	p.observer.finish(gone)
	var out []observeBatchReq
	for _, l := range lanes {
		out = append(out, byLane[l]...)
	}
	return out
}

func laneOfFormat(f catalog.Format) string { return strings.ToLower(string(f)) }

// observeTables sends one observe-only, targeted Detect to a worker of the
// batch's lane and waits for it to finish; the observations arrive through
// the stream like a sweep's.
func (p *Plugin) observeTables(ctx context.Context, b observeBatchReq) {
	jobType, sess := p.observerFor(b.lane)
	if sess == nil {
		return // no worker of that format: the page keeps its last figures
	}
	ctx, cancel := context.WithTimeout(ctx, observeTimeout)
	defer cancel()
	if err := p.observeVia(ctx, sess, jobType, b.refs); err != nil && ctx.Err() == nil {
		p.log.Info("targeted observe did not finish", "worker", sess.workerID, "tables", len(b.ids), "err", err)
	}
}

// observerFor picks a detecting job type of the lane and the least loaded
// live worker that detects it.
func (p *Plugin) observerFor(lane string) (string, *session) {
	for _, jt := range p.types.names() {
		if p.laneFor(jt) != lane {
			continue
		}
		if s := p.pickDetector(jt); s != nil {
			return jt, s
		}
	}
	return "", nil
}

func (p *Plugin) observeVia(ctx context.Context, sess *session, jobType string, refs []*pluginpb.ObjectRef) error {
	cluster, err := p.clusterContext(ctx, sess, detectScope)
	if err != nil {
		return fmt.Errorf("mint the worker's API key: %w", err)
	}
	set := p.types.settings(jobType)
	d := p.types.descriptor(jobType)
	deadline, _ := ctx.Deadline()
	call, err := p.startCall(sess, &pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Detect{Detect: &pluginpb.Detect{
		JobType: jobType, SettingsJson: settingsJSON(descriptorFromProto(d), set.Values), Cluster: cluster,
		DeadlineUnixMs: deadline.UnixMilli(), Objects: refs, ObserveOnly: true,
	}}})
	if err != nil {
		return err
	}
	defer call.Close()
	for {
		m, err := call.Next(ctx)
		if err != nil {
			return err
		}
		if b, ok := m.GetBody().(*pluginpb.WorkerMessage_DetectionDone); ok {
			call.Finish()
			if e := b.DetectionDone.GetError(); e != "" {
				return errors.New(e)
			}
			return nil
		}
		// Proposals are ignored: an observe-only request queues nothing.
	}
}
