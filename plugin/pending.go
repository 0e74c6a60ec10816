package plugin

import (
	"context"
	"errors"
	"sync"

	"github.com/floe/floe/plugin/pluginpb"
)

// replyBufferCap bounds the replies waiting for one request's caller: a
// detection or a preview answers with a handful of messages that the caller
// reads as they come; a worker flooding one request id past this fails that
// request (ErrOverflow) instead of growing memory.
const replyBufferCap = 64

var errSilent = errors.New("no heartbeat for too long")

// pendingReq is one request waiting for replies. ch is written only by
// deliver, under the table's lock, and never closed; failed is closed once,
// under the same lock, by whoever fails the request.
type pendingReq struct {
	sess   *session
	ch     chan *pluginpb.WorkerMessage
	failed chan struct{}
	err    error // set before failed is closed
}

type pendingTable struct {
	mu     sync.Mutex
	m      map[string]*pendingReq
	closed error // set by failAll: no new requests
}

func newPendingTable() *pendingTable {
	return &pendingTable{m: make(map[string]*pendingReq)}
}

func (t *pendingTable) add(id string, s *session) (*pendingReq, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed != nil {
		return nil, t.closed
	}
	pr := &pendingReq{sess: s, ch: make(chan *pluginpb.WorkerMessage, replyBufferCap), failed: make(chan struct{})}
	t.m[id] = pr
	return pr, nil
}

func (t *pendingTable) remove(id string) {
	t.mu.Lock()
	delete(t.m, id)
	t.mu.Unlock()
}

// deliver routes a reply to its waiter. The lookup and the non-blocking send
// happen under the lock failAll takes, so a reply never races a failure.
// Replies for unknown ids, or from another session than the one asked, are
// dropped (false).
func (t *pendingTable) deliver(from *session, msg *pluginpb.WorkerMessage) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	pr, ok := t.m[msg.GetRequestId()]
	if !ok || pr.sess != from {
		return false
	}
	select {
	case pr.ch <- msg:
		return true
	default:
		t.failLocked(msg.GetRequestId(), pr, ErrOverflow)
		return false
	}
}

func (t *pendingTable) failLocked(id string, pr *pendingReq, err error) {
	if pr.err != nil {
		return
	}
	pr.err = err
	close(pr.failed)
	delete(t.m, id)
}

// failAll fails every waiting request and refuses new ones (shutdown).
func (t *pendingTable) failAll(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = err
	for id, pr := range t.m {
		t.failLocked(id, pr, err)
	}
}

// call is one request in flight to a worker; read its replies with Next and
// always Close it.
type call struct {
	p        *Plugin
	id       string
	WorkerID string
	sess     *session
	pr       *pendingReq
	done     bool
}

// startCall registers a request and sends it to the session.
func (p *Plugin) startCall(s *session, msg *pluginpb.ConsoleMessage) (*call, error) {
	if p.closed.Load() {
		return nil, ErrClosed
	}
	id := p.newRequestID()
	msg.RequestId = id
	pr, err := p.pending.add(id, s)
	if err != nil {
		return nil, err
	}
	c := &call{p: p, id: id, WorkerID: s.workerID, sess: s, pr: pr}
	if err := s.enqueue(msg, p.cfg.EnqueueTimeout); err != nil {
		p.pending.remove(id)
		return nil, err
	}
	return c, nil
}

// RequestID is the id the worker's replies carry.
func (c *call) RequestID() string { return c.id }

// Next returns the next reply. When ctx ends first the worker is sent a
// Cancel for this request and ctx's error is returned; when the worker
// disconnects, ErrWorkerGone comes back at once.
func (c *call) Next(ctx context.Context) (*pluginpb.WorkerMessage, error) {
	// A reply already buffered wins over a failure that came after it.
	select {
	case m := <-c.pr.ch:
		return m, nil
	default:
	}
	select {
	case m := <-c.pr.ch:
		return m, nil
	case <-c.pr.failed:
		return nil, c.pr.err
	case <-c.sess.ctx.Done():
		select {
		case m := <-c.pr.ch:
			return m, nil
		default:
		}
		if c.p.closed.Load() {
			return nil, ErrClosed
		}
		return nil, ErrWorkerGone
	case <-ctx.Done():
		c.cancel("caller gave up: " + ctx.Err().Error())
		return nil, ctx.Err()
	}
}

// cancel tells the worker to stop this request (best effort, once).
func (c *call) cancel(reason string) {
	if c.done {
		return
	}
	c.done = true
	c.sess.trySend(&pluginpb.ConsoleMessage{Body: &pluginpb.ConsoleMessage_Cancel{Cancel: &pluginpb.Cancel{
		TargetRequestId: c.id, Reason: reason,
	}}})
}

// Finish marks the request answered so Close sends no Cancel.
func (c *call) Finish() { c.done = true }

// Close forgets the request; if it was not finished, the worker is told to
// cancel it.
func (c *call) Close() {
	c.p.pending.remove(c.id)
	c.cancel("caller closed the request")
}

// countFor counts requests in flight to one session.
func (t *pendingTable) countFor(s *session) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, pr := range t.m {
		if pr.sess == s {
			n++
		}
	}
	return n
}
