package warehouse

import (
	"context"
	"sync"
	"time"
)

// Pinger is a backend that can say cheaply whether its store answers now.
// The local disk does not implement it: a missing disk fails every request
// loudly on its own.
type Pinger interface {
	Ping(ctx context.Context) error
}

const (
	// healthInterval is how often Health asks the store in the background;
	// the console banner is at most this stale.
	healthInterval = 15 * time.Second
	// pingTimeout bounds one question, so a hung store reads as down.
	pingTimeout = 5 * time.Second
)

// Health remembers whether the warehouse's store answered the last time it
// was asked, and why not. /readyz and the console banner read it.
type Health struct {
	p  Pinger // nil: always healthy
	mu sync.Mutex
	st HealthStatus
}

// HealthStatus is one answer: OK, or the sentence saying why not.
type HealthStatus struct {
	OK      bool
	Reason  string
	Checked time.Time
}

// NewHealth watches b if it can be pinged.
func NewHealth(b Backend) *Health {
	h := &Health{st: HealthStatus{OK: true}}
	if p, ok := b.(Pinger); ok {
		h.p = p
	}
	return h
}

// Check asks the store now and records the answer.
func (h *Health) Check(ctx context.Context) HealthStatus {
	if h.p == nil {
		return HealthStatus{OK: true}
	}
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	err := h.p.Ping(ctx)
	st := HealthStatus{OK: err == nil, Checked: time.Now()}
	if err != nil {
		st.Reason = err.Error()
	}
	h.mu.Lock()
	h.st = st
	h.mu.Unlock()
	return st
}

// Status is the last recorded answer.
func (h *Health) Status() HealthStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st
}

// Run checks every healthInterval until ctx ends.
func (h *Health) Run(ctx context.Context) {
	if h.p == nil {
		return
	}
	t := time.NewTicker(healthInterval)
	defer t.Stop()
	for {
		h.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
