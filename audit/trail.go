package audit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultQueueCap bounds the entries waiting for the database: a burst of
// several thousand writes fits while a batch is being inserted, and a
// database that stops answering costs at most this many entries of memory.
const DefaultQueueCap = 8192

// DefaultBlock is the longest Add waits for room in a full queue before it
// drops the entry (counted in floe_audit_entries_total{result="dropped"}
// and logged): a full queue means the database is far behind, and a
// request is never held longer than this for its record.
const DefaultBlock = 25 * time.Millisecond

// maxBatch bounds the entries one insert transaction carries: under load,
// entries queued while one batch is written go in the next, so the trail
// costs one transaction per batch, not one per request.
const maxBatch = 512

// batchLinger is how long the writer waits, after the first entry of a
// batch, for more to join it: each insert is a write transaction on the
// catalog's database, which also invalidates its read caches (on SQLite any
// commit does), so entries trickling in one per request are gathered
// instead of costing a transaction each. Records (and their events) reach
// the database at most this much later; no request waits for it.
const batchLinger = 50 * time.Millisecond

// DefaultRetention is how long entries are kept (--audit-retention).
const DefaultRetention = 90 * 24 * time.Hour

// pruneInterval is how often entries past the retention are deleted.
const pruneInterval = time.Hour

// Retry pauses of a batch the database refused (it is kept and retried;
// meanwhile new entries queue, and past the queue's cap they are dropped
// and counted).
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 5 * time.Second
)

// drainTimeout bounds the last insert at shutdown of what is still queued.
const drainTimeout = 5 * time.Second

// Config configures a Trail.
type Config struct {
	Store *Store
	Log   *slog.Logger
	// Retention deletes entries older than it; 0 keeps them forever.
	Retention time.Duration
	// QueueCap and Block: see DefaultQueueCap, DefaultBlock (0: those).
	QueueCap int
	Block    time.Duration
	// Metrics registers floe_audit_entries_total and
	// floe_audit_queue_length; nil registers nothing.
	Metrics prometheus.Registerer
}

// Trail queues entries and writes them in batches. New starts nothing;
// Run writes and prunes until its context ends.
type Trail struct {
	store     *Store
	log       *slog.Logger
	retention time.Duration
	block     time.Duration
	q         chan Entry

	stored, dropped, lost prometheus.Counter
	// added and settled count entries handed to Add and entries stored,
	// dropped or lost, for Flush.
	added, settled atomic.Int64

	// kick ends a batch's linger at once (Flush).
	kick chan struct{}

	mu      sync.Mutex
	wake    []chan struct{}
	lastLog time.Time // of a drop warning, so a full queue logs once a minute
}

// New builds a trail.
func New(cfg Config) *Trail {
	if cfg.QueueCap <= 0 {
		cfg.QueueCap = DefaultQueueCap
	}
	if cfg.Block <= 0 {
		cfg.Block = DefaultBlock
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	t := &Trail{store: cfg.Store, log: cfg.Log, retention: cfg.Retention, block: cfg.Block, q: make(chan Entry, cfg.QueueCap),
		kick: make(chan struct{}, 1)}
	entries := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "floe_audit_entries_total",
		Help: "Audit trail entries by result: stored, dropped (the queue stayed full), lost (the database refused them at shutdown).",
	}, []string{"result"})
	t.stored, t.dropped, t.lost = entries.WithLabelValues("stored"), entries.WithLabelValues("dropped"), entries.WithLabelValues("lost")
	if cfg.Metrics != nil {
		cfg.Metrics.MustRegister(entries, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "floe_audit_queue_length",
			Help: "Audit trail entries waiting to be written.",
		}, func() float64 { return float64(len(t.q)) }))
	}
	return t
}

// Store is the store the trail writes to.
func (t *Trail) Store() *Store { return t.store }

// Add queues e. It waits at most the trail's Block for room; past that the
// entry is dropped, counted and logged, never silently.
func (t *Trail) Add(e Entry) {
	t.added.Add(1)
	select {
	case t.q <- e:
		return
	default:
	}
	timer := time.NewTimer(t.block)
	defer timer.Stop()
	select {
	case t.q <- e:
	case <-timer.C:
		t.dropped.Inc()
		t.settled.Add(1)
		t.mu.Lock()
		warn := time.Since(t.lastLog) > time.Minute
		if warn {
			t.lastLog = time.Now()
		}
		t.mu.Unlock()
		if warn {
			t.log.Warn("the audit queue is full: entries are being dropped (floe_audit_entries_total{result=\"dropped\"} counts them); is the database slow or away?",
				"queue", cap(t.q))
		}
	}
}

// flushPoll is how often Flush looks whether the trail has caught up.
const flushPoll = time.Millisecond

// Flush waits until every entry added before the call is stored (or
// dropped), or ctx ends: tests and benchmarks charge the trail's
// background work to the requests that caused it.
func (t *Trail) Flush(ctx context.Context) error {
	target := t.added.Load()
	for t.settled.Load() < target {
		// Kick on every look, not once: the writer's select may take one
		// kick while entries are still queued, write those it has, and
		// start lingering on the rest; without a fresh kick Flush would
		// wait out that linger (up to batchLinger) for nothing.
		select {
		case t.kick <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(flushPoll):
		}
	}
	return nil
}

// Stored returns a channel that receives (without blocking the trail) after
// each batch is stored: event publishers wait on it. Call before Run.
func (t *Trail) Stored() <-chan struct{} {
	ch := make(chan struct{}, 1)
	t.mu.Lock()
	t.wake = append(t.wake, ch)
	t.mu.Unlock()
	return ch
}

func (t *Trail) notify() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ch := range t.wake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Run writes queued entries and prunes past the retention until ctx ends,
// then writes what is still queued.
func (t *Trail) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	if t.retention > 0 {
		wg.Go(func() { t.prune(ctx) })
	}
	defer wg.Wait()
	batch := make([]Entry, 0, maxBatch)
	linger := time.NewTimer(batchLinger)
	linger.Stop()
	for {
		select {
		case <-ctx.Done():
			t.drain(batch[:0])
			return nil
		case e := <-t.q:
			batch = append(batch[:0], e)
		}
		linger.Reset(batchLinger)
	fill:
		for len(batch) < maxBatch {
			select {
			case e := <-t.q:
				batch = append(batch, e)
			case <-linger.C:
				break fill
			case <-t.kick:
				break fill
			case <-ctx.Done():
				t.drain(batch)
				return nil
			}
		}
		linger.Stop()
		t.write(ctx, batch)
	}
}

// write inserts a batch, retrying while the database refuses; at shutdown
// the last attempts run on their own short deadline.
func (t *Trail) write(ctx context.Context, batch []Entry) {
	pause := retryFirst
	for {
		_, err := t.store.Insert(ctx, batch)
		if err == nil {
			t.stored.Add(float64(len(batch)))
			t.settled.Add(int64(len(batch)))
			t.notify()
			return
		}
		if ctx.Err() != nil {
			t.insertFinal(batch)
			return
		}
		t.log.Warn("audit entries not stored yet; retrying", "entries", len(batch), "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(pause*2, retryMax)
	}
}

// drain writes everything still queued, once, at shutdown.
func (t *Trail) drain(batch []Entry) {
	for {
		select {
		case e := <-t.q:
			batch = append(batch, e)
			continue
		default:
		}
		break
	}
	if len(batch) > 0 {
		t.insertFinal(batch)
	}
}

func (t *Trail) insertFinal(batch []Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	for start := 0; start < len(batch); start += maxBatch {
		part := batch[start:min(start+maxBatch, len(batch))]
		t.settled.Add(int64(len(part)))
		if _, err := t.store.Insert(ctx, part); err != nil {
			t.lost.Add(float64(len(part)))
			t.log.Error("audit entries lost at shutdown: the database refused them", "entries", len(part), "err", err)
			continue
		}
		t.stored.Add(float64(len(part)))
	}
	t.notify()
}

func (t *Trail) prune(ctx context.Context) {
	tick := time.NewTicker(pruneInterval)
	defer tick.Stop()
	for {
		if n, err := t.store.Prune(ctx, t.store.now().Add(-t.retention)); err != nil && ctx.Err() == nil {
			t.log.Warn("prune the audit trail", "err", err)
		} else if n > 0 {
			t.log.Info("pruned the audit trail", "entries", n, "retention", t.retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
