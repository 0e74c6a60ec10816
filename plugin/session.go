package plugin

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin/pluginpb"
)

// outgoingQueueCap bounds what waits for one worker's writer: requests are
// small and the writer drains at network speed, so a full queue means the
// worker stopped reading, and callers get ErrBusy instead of piling up.
const outgoingQueueCap = 256

// session is one connected worker stream. Its outgoing channel is never
// closed (it has many senders); the session ends by cancelling ctx.
type session struct {
	workerID    string
	instanceID  string
	version     string
	address     string
	tokenName   string
	tokenID     string // the worker token this stream authenticated with
	caps        []*pluginpb.Capability
	formats     []string
	connectedAt time.Time

	ctx    context.Context
	cancel context.CancelCauseFunc
	out    chan *pluginpb.ConsoleMessage

	mu         sync.Mutex
	lastSeen   time.Time
	slotsUsed  int
	slotsTotal int
	running    []string
	heartbeats int
}

// errReplaced ends a session when the same worker id connects again.
var errReplaced = errors.New("replaced by a newer connection with the same worker id")

// errRevoked ends a session whose worker token was revoked.
var errRevoked = errors.New("the worker token of this stream was revoked")

func newSession(parent context.Context, hello *pluginpb.Hello, tok catalog.WorkerToken, now time.Time) *session {
	ctx, cancel := context.WithCancelCause(parent)
	return &session{
		workerID:    hello.GetWorkerId(),
		instanceID:  hello.GetInstanceId(),
		version:     hello.GetVersion(),
		address:     hello.GetAddress(),
		tokenName:   tok.Name,
		tokenID:     tok.ID,
		caps:        hello.GetCapabilities(),
		formats:     hello.GetPreviewFormats(),
		connectedAt: now,
		ctx:         ctx,
		cancel:      cancel,
		out:         make(chan *pluginpb.ConsoleMessage, outgoingQueueCap),
		lastSeen:    now,
	}
}

// enqueue hands a message to the session's writer, failing when the session
// has ended (ErrWorkerGone) or its queue stays full for timeout (ErrBusy).
func (s *session) enqueue(msg *pluginpb.ConsoleMessage, timeout time.Duration) error {
	select {
	case s.out <- msg:
		return nil
	case <-s.ctx.Done():
		return ErrWorkerGone
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case s.out <- msg:
		return nil
	case <-s.ctx.Done():
		return ErrWorkerGone
	case <-t.C:
		return ErrBusy
	}
}

// trySend enqueues without waiting (cancels and other best-effort notes).
func (s *session) trySend(msg *pluginpb.ConsoleMessage) bool {
	select {
	case s.out <- msg:
		return true
	default:
		return false
	}
}

// totalSlots is the slot count of the worker's last heartbeat (0: unknown).
func (s *session) totalSlots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slotsTotal
}

func (s *session) touch(now time.Time) {
	s.mu.Lock()
	s.lastSeen = now
	s.mu.Unlock()
}

func (s *session) heartbeat(hb *pluginpb.Heartbeat, now time.Time) (first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastSeen = now
	s.slotsUsed = int(hb.GetSlotsUsed())
	s.slotsTotal = int(hb.GetSlotsTotal())
	s.running = slices.Clone(hb.GetRunningJobIds())
	s.heartbeats++
	return s.heartbeats == 1
}

func (s *session) seen() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSeen
}

// capability returns the worker's capability for a job type.
func (s *session) capability(jobType string) (*pluginpb.Capability, bool) {
	for _, c := range s.caps {
		if c.GetJobType() == jobType {
			return c, true
		}
	}
	return nil, false
}

func (s *session) canPreview(format string) bool {
	for _, f := range s.formats {
		if strings.EqualFold(f, format) {
			return true
		}
	}
	return false
}

func (s *session) alive() bool { return s.ctx.Err() == nil }
