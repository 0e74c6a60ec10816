package preview

// Browse Data across replicas. A worker holds one gRPC stream to one
// replica; a page on another replica asking for that table's rows cannot
// reach it directly. The relay goes through the database both replicas
// already share, not a replica-to-replica call: no replica needs another's
// address, no extra port or credentials between replicas, and a replica
// that dies mid-preview leaves a row, not a hung connection. The cost is a
// few round trips and NOTIFYs per preview, small beside the worker's read.
//
//  1. The asking replica writes the request to preview_relay and announces
//     its id on the bus (topic preview.request).
//  2. Every replica that can serve it locally (a connected worker that can
//     preview the format) tries to claim the row; one wins, fetches the rows
//     as usual and writes the rendered Result (or the *Error) back, then
//     announces the id (topic preview.reply).
//  3. The asker reads the reply, deletes the row and returns it as if the
//     worker were its own. If nobody claims the request quickly, the asker
//     answers its own "no worker" sentence.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
)

// Bus topics of the relay.
const (
	topicRequest = "preview.request"
	topicReply   = "preview.reply"
)

// relayClaimWait is how long the asker waits for some replica to claim a
// request before answering that no worker can serve it: a claim is one
// NOTIFY and one UPDATE away, so a few seconds cover a loaded machine.
const relayClaimWait = 3 * time.Second

// relayPoll re-checks the relay row while waiting, in case a reply note
// was lost (the bus is at-most-once).
const relayPoll = 250 * time.Millisecond

// relayRowTTL deletes relay rows a replica left behind (it died while
// waiting); far longer than any preview's Timeout.
const relayRowTTL = time.Hour

// relayNote names a relay row.
type relayNote struct {
	ID string `json:"id"`
}

// relayReply is a reply row: a Result or an error.
type relayReply struct {
	Result *Result `json:"result,omitempty"`
	Kind   string  `json:"kind,omitempty"`
	Worker string  `json:"worker,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// errorKinds maps Error kinds to their names on the wire and back.
var errorKinds = map[string]error{
	"not_observed": ErrNotObserved, "worker_gone": ErrWorkerGone, "worker": ErrWorker, "timeout": ErrTimeout,
	"too_large": ErrTooLarge, "decode": ErrDecode, "bad_filter": ErrBadFilter,
}

// relayServeMax bounds the other replicas' requests this one serves at
// once: each holds a worker's preview slot and a few database round trips,
// and a replica past the cap leaves the request to another replica (or the
// asker's own "no worker" answer).
const relayServeMax = 16

type relay struct {
	db    *persist.DB
	bus   *notify.Bus
	log   *slog.Logger
	slots chan struct{} // cap relayServeMax: requests being served

	mu      sync.Mutex
	waiting map[string]chan struct{} // relay row id → closed when its reply note arrives
}

// Relay lets Fetch reach workers connected to other replicas on the same
// PostgreSQL (through db and bus), and Run serve their requests here. Call
// it before Run and before anything fetches; with a SQLite bus it does
// nothing.
func (b *Broker) Relay(db *persist.DB, bus *notify.Bus, log *slog.Logger) {
	if !bus.Remote() {
		return
	}
	if log == nil {
		log = slog.Default()
	}
	b.relay = &relay{db: db, bus: bus, log: log, slots: make(chan struct{}, relayServeMax),
		waiting: map[string]chan struct{}{}}
}

// Run serves other replicas' preview requests and wakes this replica's
// waiting fetches when their replies arrive, until ctx ends; it returns
// once every request it was serving has finished. Without Relay it only
// waits.
func (b *Broker) Run(ctx context.Context) error {
	r := b.relay
	if r == nil {
		<-ctx.Done()
		return nil
	}
	requests, stopReq := r.bus.Subscribe(topicRequest)
	defer stopReq()
	replies, stopRep := r.bus.Subscribe(topicReply)
	defer stopRep()
	var serving sync.WaitGroup
	defer serving.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-requests:
			if !ok {
				requests = nil // the bus closed
				continue
			}
			var n relayNote
			if m.Resync || json.Unmarshal(m.Data, &n) != nil || n.ID == "" {
				continue
			}
			select {
			case r.slots <- struct{}{}:
				serving.Go(func() {
					defer func() { <-r.slots }()
					b.serveRelay(ctx, n.ID)
				})
			default: // at the cap: another replica, or the asker, answers it
			}
		case m, ok := <-replies:
			if !ok {
				replies = nil
				continue
			}
			var n relayNote
			if json.Unmarshal(m.Data, &n) == nil {
				r.wake(n.ID)
			}
		}
	}
}

// await registers a fetch waiting for the reply to id; the returned
// channel closes when the reply note arrives, and forget drops it.
func (r *relay) await(id string) (done <-chan struct{}, forget func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.waiting[id] = ch
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
	}
}

// wake closes the channel of the fetch waiting for id, if any; the entry is
// removed first, so it is closed once.
func (r *relay) wake(id string) {
	r.mu.Lock()
	ch, ok := r.waiting[id]
	delete(r.waiting, id)
	r.mu.Unlock()
	if ok {
		close(ch)
	}
}

// fetchRemote asks the other replicas; local is this replica's own
// answer, returned when none of them claims the request.
func (b *Broker) fetchRemote(ctx context.Context, req Request, local error) (*Result, error) {
	r := b.relay
	id := randomID()
	body, err := json.Marshal(req)
	if err != nil {
		return nil, local
	}
	now := time.Now()
	if _, err := r.db.ExecContext(ctx, `DELETE FROM preview_relay WHERE created_at < ?`, persist.Micros(now.Add(-relayRowTTL))); err != nil {
		return nil, local
	}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO preview_relay(id, request_json, created_at) VALUES (?, ?, ?)`,
		id, string(body), persist.Micros(now)); err != nil {
		return nil, local
	}
	defer func() {
		_, _ = r.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM preview_relay WHERE id = ?`, id)
	}()
	done, forget := r.await(id)
	defer forget()
	if err := r.bus.Publish(topicRequest, relayNote{ID: id}); err != nil {
		return nil, local
	}
	claimBy := time.Now().Add(relayClaimWait)
	deadline := time.Now().Add(b.timeout + relayClaimWait)
	poll := time.NewTicker(relayPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-done:
		case <-poll.C:
		}
		var claimed string
		var reply *string
		err := r.db.QueryRowContext(ctx, `SELECT claimed_by, reply_json FROM preview_relay WHERE id = ?`, id).Scan(&claimed, &reply)
		if err != nil {
			return nil, local
		}
		if reply != nil {
			return decodeReply(*reply, local)
		}
		now := time.Now()
		if claimed == "" && now.After(claimBy) {
			return nil, local // no replica has a worker for it
		}
		if now.After(deadline) {
			return nil, fail(ErrTimeout, "The worker on another floe replica did not answer in time; reload to try again.")
		}
	}
}

// serveRelay claims and answers another replica's request if a worker
// connected here can serve it.
func (b *Broker) serveRelay(ctx context.Context, id string) {
	r := b.relay
	var body string
	if err := r.db.QueryRowContext(ctx, `SELECT request_json FROM preview_relay WHERE id = ? AND claimed_by = ''`, id).Scan(&body); err != nil {
		return // claimed already, or gone
	}
	var req Request
	if json.Unmarshal([]byte(body), &req) != nil {
		return
	}
	if _, err := b.pickWorker(req); err != nil {
		return // no worker here; another replica may have one
	}
	res, err := r.db.ExecContext(ctx, `UPDATE preview_relay SET claimed_by = ? WHERE id = ? AND claimed_by = ''`, r.bus.Replica(), id)
	if err != nil {
		return
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return // another replica won
	}
	out, ferr := b.fetchLocal(ctx, req)
	reply := relayReply{Result: out}
	switch pe, ok := fault.As(ferr); {
	case ok:
		reply.Error = pe.Message
		for name, k := range errorKinds {
			if errors.Is(ferr, k) {
				reply.Kind = name
			}
		}
	case ferr != nil:
		reply.Kind, reply.Error = "worker", "The worker on another floe replica could not be reached; reload to try again."
	}
	raw, err := json.Marshal(reply)
	if err != nil {
		return
	}
	if _, err := r.db.ExecContext(ctx, `UPDATE preview_relay SET reply_json = ? WHERE id = ?`, string(raw), id); err != nil {
		r.log.Warn("preview relay reply not written", "err", err)
		return
	}
	_ = r.bus.Publish(topicReply, relayNote{ID: id})
}

func decodeReply(raw string, local error) (*Result, error) {
	var rep relayReply
	if json.Unmarshal([]byte(raw), &rep) != nil {
		return nil, local
	}
	if rep.Error != "" {
		kind := errorKinds[rep.Kind]
		if kind == nil {
			kind = ErrWorker
		}
		return nil, fail(kind, "%s", rep.Error)
	}
	if rep.Result == nil {
		return nil, local
	}
	return rep.Result, nil
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "pv-" + hex.EncodeToString(b[:])
}
