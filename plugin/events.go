package plugin

import (
	"sync"
)

// subscriberBufferCap bounds each subscriber's backlog; a subscriber that
// falls this far behind (a stalled websocket) misses events rather than
// slowing the plugin, and should re-read state when it catches up.
const subscriberBufferCap = 256

// EventKind says what changed.
type EventKind string

const (
	EventJob     EventKind = "job"      // Job holds the job's new state
	EventWorker  EventKind = "worker"   // WorkerID connected, disconnected or changed
	EventJobType EventKind = "job_type" // JobType was described or its settings saved
)

// Event is one change, for live pages.
type Event struct {
	Kind     EventKind
	Job      Job // for EventJob; Activity is not filled
	WorkerID string
	JobType  string
	// Remote: the change happened on another replica and reached this one
	// through the bus (Job was re-read from the database). A subscriber
	// that acts on changes (tasks following their jobs) leaves remote ones
	// to the replica where they happened.
	Remote bool
}

type hub struct {
	mu   sync.Mutex
	next int
	subs map[int]chan Event
	// forward, if set, also sends each local event to the other replicas
	// (Plugin.forwardEvent); it must not block.
	forward func(Event)
}

func newHub() *hub { return &hub{subs: make(map[int]chan Event)} }

// Subscribe returns a channel of changes and a function that ends the
// subscription (and closes the channel; the hub owns it). Slow readers miss
// events instead of blocking anyone.
func (p *Plugin) Subscribe() (<-chan Event, func()) {
	return p.events.subscribe()
}

func (h *hub) subscribe() (<-chan Event, func()) {
	ch := make(chan Event, subscriberBufferCap)
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs[id] = ch
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.subs, id)
			close(ch) // closed under the lock publish sends under
			h.mu.Unlock()
		})
	}
}

func (h *hub) publish(e Event) {
	if h.forward != nil && !e.Remote {
		h.forward(e)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ch := range h.subs {
		select {
		case ch <- e:
		default: // slow subscriber: drop
		}
	}
}
