package plugin

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

// maxGoneWorkers bounds the disconnected workers kept for display, so a
// worker that restarts with a fresh id every time cannot grow the list.
const maxGoneWorkers = 256

// staleDisconnectFactor: a session silent for this many heartbeat timeouts
// is cancelled (its TCP peer is probably gone without a FIN).
const staleDisconnectFactor = 3

// WorkerStatus is how a worker looks to operators.
type WorkerStatus string

const (
	WorkerConnected    WorkerStatus = "connected"
	WorkerStale        WorkerStatus = "stale" // connected, no heartbeat lately
	WorkerDisconnected WorkerStatus = "disconnected"
)

// WorkerInfo is a copy of one worker's state for the console.
type WorkerInfo struct {
	ID             string
	InstanceID     string
	Version        string
	Address        string
	TokenName      string
	Status         WorkerStatus
	ConnectedAt    time.Time
	LastSeen       time.Time
	DisconnectedAt time.Time // zero while connected
	SlotsUsed      int
	SlotsTotal     int
	RunningJobs    []string
	Capabilities   []Capability
	PreviewFormats []string
}

// Capability is one job type a worker advertises.
type Capability struct {
	JobType           string
	Lane              string
	DisplayName       string
	CanDetect         bool
	CanExecute        bool
	MaxDetectSlots    int
	MaxExecuteSlots   int
	DescriptorVersion string
}

type goneWorker struct {
	info WorkerInfo
}

type registry struct {
	p        *Plugin
	mu       sync.RWMutex
	sessions map[string]*session
	gone     map[string]goneWorker
}

func newRegistry(p *Plugin) *registry {
	return &registry{p: p, sessions: make(map[string]*session), gone: make(map[string]goneWorker)}
}

// errIDTaken refuses a session claiming the id of a worker connected under
// another worker token: one token must not be able to replace (and so
// impersonate) the stream of a worker it does not own.
var errIDTaken = errors.New("this worker id is connected under another worker token")

// add installs a session, replacing and cancelling an older one with the
// same worker id and the same worker token (a restarted worker). A live
// session under a different token keeps the id: add returns errIDTaken.
// It returns the replaced session, if any.
func (r *registry) add(s *session) (*session, error) {
	r.mu.Lock()
	old := r.sessions[s.workerID]
	if old != nil && old.tokenID != s.tokenID && old.ctx.Err() == nil {
		r.mu.Unlock()
		return nil, errIDTaken
	}
	r.sessions[s.workerID] = s
	delete(r.gone, s.workerID)
	r.mu.Unlock()
	if old != nil {
		old.cancel(errReplaced)
	}
	return old, nil
}

// closeToken ends every session that authenticated with the worker token
// tokenID, at once, and returns how many it ended.
func (r *registry) closeToken(tokenID string) int {
	r.mu.RLock()
	var ended []*session
	for _, s := range r.sessions {
		if s.tokenID == tokenID {
			ended = append(ended, s)
		}
	}
	r.mu.RUnlock()
	for _, s := range ended {
		s.cancel(errRevoked)
	}
	return len(ended)
}

// tokenIDs lists the worker tokens live sessions authenticated with.
func (r *registry) tokenIDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, s := range r.sessions {
		if s.ctx.Err() == nil && !seen[s.tokenID] {
			seen[s.tokenID] = true
			out = append(out, s.tokenID)
		}
	}
	return out
}

// remove deletes the session only if the map still points at it, so an old
// stream's cleanup never removes the connection that replaced it.
func (r *registry) remove(s *session, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions[s.workerID] != s {
		return false
	}
	delete(r.sessions, s.workerID)
	info := sessionInfo(s, r.p.cfg.HeartbeatTimeout, now)
	info.Status = WorkerDisconnected
	info.DisconnectedAt = now
	info.RunningJobs = nil
	r.gone[s.workerID] = goneWorker{info: info}
	if len(r.gone) > maxGoneWorkers {
		r.pruneLocked(now, true)
	}
	return true
}

func (r *registry) get(workerID string) (*session, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.sessions[workerID]
	return s, ok
}

// live returns the connected, non-stale sessions.
func (r *registry) live(now time.Time) []*session {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*session, 0, len(r.sessions))
	for _, s := range r.sessions {
		if s.alive() && now.Sub(s.seen()) < r.p.cfg.HeartbeatTimeout {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].workerID < out[j].workerID })
	return out
}

// Snapshot copies every worker's state, connected ones first, each group
// sorted by id. Safe to render without holding anything.
func (p *Plugin) Snapshot() []WorkerInfo {
	return p.reg.snapshot(p.now())
}

// Worker returns one worker's state.
func (p *Plugin) Worker(id string) (WorkerInfo, bool) {
	for _, w := range p.Snapshot() {
		if w.ID == id {
			return w, true
		}
	}
	return WorkerInfo{}, false
}

func (r *registry) snapshot(now time.Time) []WorkerInfo {
	r.mu.RLock()
	out := make([]WorkerInfo, 0, len(r.sessions)+len(r.gone))
	for _, s := range r.sessions {
		out = append(out, sessionInfo(s, r.p.cfg.HeartbeatTimeout, now))
	}
	for _, g := range r.gone {
		if now.Sub(g.info.DisconnectedAt) < r.p.cfg.DisconnectedRetention {
			out = append(out, g.info)
		}
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		ci, cj := out[i].Status == WorkerDisconnected, out[j].Status == WorkerDisconnected
		if ci != cj {
			return !ci
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func sessionInfo(s *session, staleAfter time.Duration, now time.Time) WorkerInfo {
	s.mu.Lock()
	info := WorkerInfo{
		ID:          s.workerID,
		InstanceID:  s.instanceID,
		Version:     s.version,
		Address:     s.address,
		TokenName:   s.tokenName,
		Status:      WorkerConnected,
		ConnectedAt: s.connectedAt,
		LastSeen:    s.lastSeen,
		SlotsUsed:   s.slotsUsed,
		SlotsTotal:  s.slotsTotal,
		RunningJobs: slices.Clone(s.running),
	}
	s.mu.Unlock()
	if now.Sub(info.LastSeen) >= staleAfter {
		info.Status = WorkerStale
	}
	info.PreviewFormats = slices.Clone(s.formats)
	for _, c := range s.caps {
		info.Capabilities = append(info.Capabilities, capabilityOf(c))
	}
	return info
}

func capabilityOf(c *pluginpb.Capability) Capability {
	return Capability{
		JobType:           c.GetJobType(),
		Lane:              laneOf(c.GetLane()),
		DisplayName:       c.GetDisplayName(),
		CanDetect:         c.GetCanDetect(),
		CanExecute:        c.GetCanExecute(),
		MaxDetectSlots:    max(1, int(c.GetMaxDetectSlots())),
		MaxExecuteSlots:   max(1, int(c.GetMaxExecuteSlots())),
		DescriptorVersion: c.GetDescriptorVersion(),
	}
}

// Lane names. A capability naming any other lane runs in LaneDefault.
const (
	LaneLance   = "lance"
	LaneIceberg = "iceberg"
	LaneDefault = "default"
)

// Lanes lists every lane, in display order.
var Lanes = []string{LaneLance, LaneIceberg, LaneDefault}

func laneOf(s string) string {
	switch strings.ToLower(s) {
	case LaneLance:
		return LaneLance
	case LaneIceberg:
		return LaneIceberg
	}
	return LaneDefault
}

// pruneLocked drops gone workers past retention (and, when force, the
// oldest ones beyond maxGoneWorkers).
func (r *registry) pruneLocked(now time.Time, force bool) {
	for id, g := range r.gone {
		if now.Sub(g.info.DisconnectedAt) >= r.p.cfg.DisconnectedRetention {
			delete(r.gone, id)
		}
	}
	if force && len(r.gone) > maxGoneWorkers {
		ids := make([]string, 0, len(r.gone))
		for id := range r.gone {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			return r.gone[ids[i]].info.DisconnectedAt.Before(r.gone[ids[j]].info.DisconnectedAt)
		})
		for _, id := range ids[:len(ids)-maxGoneWorkers] {
			delete(r.gone, id)
		}
	}
}

// reapLoop prunes gone workers and disconnects sessions silent for too long.
func (r *registry) reapLoop(ctx context.Context) {
	period := max(r.p.cfg.HeartbeatTimeout/3, 10*time.Millisecond)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := r.p.now()
		var dead []*session
		r.mu.Lock()
		r.pruneLocked(now, false)
		for _, s := range r.sessions {
			if now.Sub(s.seen()) >= staleDisconnectFactor*r.p.cfg.HeartbeatTimeout {
				dead = append(dead, s)
			}
		}
		r.mu.Unlock()
		for _, s := range dead {
			r.p.log.Warn("worker silent too long; disconnecting it", "worker", s.workerID, "instance", s.instanceID,
				"last_seen", s.seen())
			s.cancel(errSilent)
		}
	}
}

// takenByOther reports whether workerID is live under a token other than tokenID.
func (r *registry) takenByOther(workerID, tokenID string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	old := r.sessions[workerID]
	return old != nil && old.tokenID != tokenID && old.ctx.Err() == nil
}
