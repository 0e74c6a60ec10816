package audit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/floe/floe/persist"
)

// Sink is where events go: a webhook, a NATS server.
type Sink interface {
	// Name keys the sink's delivery cursor; it is stable across restarts
	// and holds no secret (a hash of a URL, never the URL).
	Name() string
	// Send delivers events in order, all or an error; an error is retried
	// with the same events, so a sink may deliver one more than once.
	Send(ctx context.Context, events []CloudEvent) error
	// Close releases the sink's connections.
	Close() error
}

// Delivery tuning.
const (
	// sendBatch bounds the events one Send carries and one cursor write
	// covers.
	sendBatch = 100
	// pollInterval is how often a publisher looks for entries written by
	// other processes (the CLI, replicas) that its own trail did not wake
	// it for.
	pollInterval = 2 * time.Second
	// settle is how long a gap in seq is waited on before it is passed:
	// on PostgreSQL a replica's insert may commit after a later seq, and
	// its row would be skipped if the cursor ran past it at once. A gap
	// older than this is a rolled-back insert or a pruned row.
	settle = 5 * time.Second
	// leaseFor is how long one replica delivers to a sink before another
	// may take over (replicas share a PostgreSQL catalog).
	leaseFor = 30 * time.Second
	// Backoff of a sink that fails: from sendFirst, doubling to sendMax;
	// the cursor stays until it succeeds (at least once).
	sendFirst = 250 * time.Millisecond
	sendMax   = 30 * time.Second
)

// Publisher delivers the trail's entries to one sink, oldest first, from
// the sink's cursor in the database.
type Publisher struct {
	store  *Store
	sink   Sink
	log    *slog.Logger
	wake   <-chan struct{}
	holder string
	now    func() time.Time

	// Delivered counts events the sink accepted (tests, metrics).
	delivered func(n int)
}

// NewPublisher builds a publisher; wake (a Trail's Stored channel, or nil)
// says new entries are there. Load before Run.
func NewPublisher(store *Store, sink Sink, wake <-chan struct{}, log *slog.Logger) *Publisher {
	if log == nil {
		log = slog.Default()
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Publisher{store: store, sink: sink, log: log.With("sink", sink.Name()), wake: wake,
		holder: hex.EncodeToString(b[:]), now: time.Now, delivered: func(int) {}}
}

// Load makes the sink's cursor if it has none: a new sink starts at the
// newest entry, so it is not sent the whole retained trail.
func (p *Publisher) Load(ctx context.Context) error {
	last, err := p.store.lastSeq(ctx)
	if err != nil {
		return err
	}
	_, err = p.store.db.ExecContext(ctx, `INSERT INTO audit_sinks(name, delivered) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
		p.sink.Name(), last)
	if err != nil {
		return fmt.Errorf("audit: sink %s: %w", p.sink.Name(), err)
	}
	return nil
}

// errNotHolder: another replica holds the sink's lease.
var errNotHolder = errors.New("audit: another replica delivers to this sink")

// lease takes or renews the sink's lease and returns its cursor.
func (p *Publisher) lease(ctx context.Context) (int64, error) {
	now := persist.Micros(p.now())
	var delivered int64
	err := p.store.db.Write(ctx, func(tx *persist.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE audit_sinks SET holder = ?, lease_until = ? WHERE name = ? AND (holder = ? OR lease_until < ?)`,
			p.holder, now+leaseFor.Microseconds(), p.sink.Name(), p.holder, now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errNotHolder
		}
		return tx.QueryRowContext(ctx, `SELECT delivered FROM audit_sinks WHERE name = ?`, p.sink.Name()).Scan(&delivered)
	})
	return delivered, err
}

// advance records delivery up to seq (never backwards).
func (p *Publisher) advance(ctx context.Context, seq int64) error {
	_, err := p.store.db.ExecContext(ctx, `UPDATE audit_sinks SET delivered = ?, lease_until = ? WHERE name = ? AND holder = ? AND delivered < ?`,
		seq, persist.Micros(p.now().Add(leaseFor)), p.sink.Name(), p.holder, seq)
	return err
}

// Run delivers until ctx ends.
func (p *Publisher) Run(ctx context.Context) error {
	defer p.sink.Close()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		more, err := p.round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil && !errors.Is(err, errNotHolder) {
			p.log.Warn("event delivery", "err", err)
		}
		if more {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-p.wake:
		case <-tick.C:
		}
	}
}

// round delivers one batch; more says another may be waiting.
func (p *Publisher) round(ctx context.Context) (more bool, err error) {
	// Look before taking the lease: an idle sink costs a read per poll,
	// not a write (each write also drops the catalog's read caches).
	var seen int64
	if err := p.store.db.QueryRowContext(ctx, `SELECT delivered FROM audit_sinks WHERE name = ?`, p.sink.Name()).Scan(&seen); err != nil {
		return false, fmt.Errorf("audit: sink %s: %w", p.sink.Name(), err)
	}
	if last, err := p.store.lastSeq(ctx); err != nil || last <= seen {
		return false, err
	}
	cursor, err := p.lease(ctx)
	if err != nil {
		return false, err
	}
	entries, err := p.store.after(ctx, Filter{After: cursor}, sendBatch)
	if err != nil || len(entries) == 0 {
		return false, err
	}
	entries = p.settled(cursor, entries)
	if len(entries) == 0 {
		return false, nil
	}
	events := make([]CloudEvent, len(entries))
	for i, e := range entries {
		events[i] = Event(e)
	}
	pause := sendFirst
	for {
		err := p.sink.Send(ctx, events)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		p.log.Warn("event sink refused; retrying", "events", len(events), "retry_in", pause, "err", err)
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(pause*2, sendMax)
		// keep the lease while retrying, so no other replica starts over
		if _, err := p.lease(ctx); err != nil {
			return false, err
		}
	}
	p.delivered(len(events))
	if err := p.advance(ctx, entries[len(entries)-1].Seq); err != nil {
		return false, err
	}
	return len(entries) == sendBatch, nil
}

// settled cuts entries at the first gap in seq that is younger than
// settle: the missing row may still be committing.
func (p *Publisher) settled(cursor int64, entries []Entry) []Entry {
	prev := cursor
	for i, e := range entries {
		if e.Seq != prev+1 && p.now().Sub(e.Time) < settle && prev != 0 {
			return entries[:i]
		}
		prev = e.Seq
	}
	return entries
}
