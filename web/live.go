package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/plugin"
)

// Live-progress caps and timings.
const (
	// liveSendQueue bounds each connection's pending messages; a browser
	// that falls this far behind is dropped (it reconnects and catches up)
	// rather than holding up everyone else.
	liveSendQueue = 64
	// liveWriteTimeout bounds one write to a connection.
	liveWriteTimeout = 10 * time.Second
	// livePongWait is how long a connection may stay silent (no pong, no
	// message) before it counts as dead; it is the idle cap.
	livePongWait = 60 * time.Second
	// livePingEvery keeps proxies from closing quiet connections and
	// proves the peer alive; well inside livePongWait.
	livePingEvery = 25 * time.Second
	// liveLifetime closes every connection after this long; the htmx ws
	// extension reconnects and the catch-up sends the current state, so
	// a signed-out or revoked session cannot keep a stream forever.
	liveLifetime = 30 * time.Minute
	// liveResyncEvery re-reads active jobs, because plugin.Subscribe drops
	// events for a slow subscriber (the hub) instead of blocking the plugin.
	liveResyncEvery = 3 * time.Second
	// liveReadLimit caps a client message; clients send nothing we use.
	liveReadLimit = 4 << 10
	// liveRenderTimeout bounds the catalog reads behind one fragment.
	liveRenderTimeout = 5 * time.Second
)

// liveConn is one websocket. Its writer goroutine is the only caller of
// WriteMessage; everyone else hands it bytes through send.
type liveConn struct {
	ws       *websocket.Conn
	sub      handlers.LiveSub
	canWrite bool
	send     chan []byte   // owned by the hub: never closed, see done
	done     chan struct{} // closed once (by kill) to stop the writer
	once     sync.Once
}

func (c *liveConn) kill() { c.once.Do(func() { close(c.done) }) }

// drop ends a connection that cannot keep up: closing the socket also
// unblocks a writer stuck on a full TCP buffer.
func (c *liveConn) drop() {
	c.kill()
	if c.ws != nil {
		_ = c.ws.NetConn().Close()
	}
}

// offer queues msg without waiting; a full queue drops the connection.
func (c *liveConn) offer(msg []byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	select {
	case c.send <- msg:
		return true
	default:
		c.drop()
		return false
	}
}

// wants says which fragments of job j the page shows: its progress, its
// task's row, a panel refresh (table pages, when j finishes), its detail.
func (c *liveConn) wants(j plugin.Job) (job, rows, refresh, detail bool) {
	onTable := c.sub.Table != "" && c.sub.Table == j.ObjectID
	task := j.Parameters["task_id"]
	return slices.Contains(c.sub.Jobs, j.ID), onTable && c.sub.Rows == j.Type && task != "" && slices.Contains(c.sub.Tasks, task),
		onTable && c.sub.Refresh && !j.State.Active(), c.sub.Detail == j.ID
}

// liveHub fans plugin job changes out to websocket pages as server-rendered
// out-of-band fragments.
type liveHub struct {
	p   *plugin.Plugin
	h   *handlers.Handlers
	log *slog.Logger

	slots *liveSlots // the caps on open sockets

	mu     sync.Mutex
	conns  map[*liveConn]struct{}
	closed bool
}

func newLiveHub(p *plugin.Plugin, h *handlers.Handlers, s *Server, limit int) *liveHub {
	return &liveHub{p: p, h: h, log: s.log, conns: map[*liveConn]struct{}{}, slots: newLiveSlots(limit)}
}

// run is the hub's loop, on Server.Run's goroutine: the only reader of the
// plugin subscription. When ctx ends it closes every connection.
func (lh *liveHub) run(ctx context.Context) {
	defer lh.close()
	events, unsubscribe := lh.p.Subscribe()
	defer unsubscribe()
	tick := time.NewTicker(liveResyncEvery)
	defer tick.Stop()
	seen := map[string]time.Time{} // active job id → UpdatedAt last pushed
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Kind == plugin.EventObserved {
				lh.pushObserved(ev.ObjectID)
				continue
			}
			if ev.Kind != plugin.EventJob {
				continue
			}
			lh.push(ev.Job, true)
			if ev.Job.State.Active() {
				seen[ev.Job.ID] = ev.Job.UpdatedAt
			} else {
				delete(seen, ev.Job.ID)
			}
		case <-tick.C:
			lh.resync(seen)
		}
	}
}

// resync pushes active jobs whose change the subscription may have dropped,
// and jobs that finished without the hub hearing of it.
func (lh *liveHub) resync(seen map[string]time.Time) {
	active := map[string]bool{}
	for _, j := range lh.p.ActiveJobs() {
		active[j.ID] = true
		if at, ok := seen[j.ID]; !ok || !at.Equal(j.UpdatedAt) {
			seen[j.ID] = j.UpdatedAt
			lh.push(j, true)
		}
	}
	for id := range seen {
		if active[id] {
			continue
		}
		delete(seen, id)
		ctx, cancel := context.WithTimeout(context.Background(), liveRenderTimeout)
		j, err := lh.p.GetJob(ctx, id)
		cancel()
		if err == nil {
			lh.push(j, true)
		}
	}
}

// push renders j's fragments once per kind and offers them to every page
// that follows j. Rendering happens outside the lock.
func (lh *liveHub) push(j plugin.Job, live bool) {
	lh.mu.Lock()
	var targets []*liveConn
	for c := range lh.conns {
		if job, rows, refresh, detail := c.wants(j); job || rows || (refresh && live) || detail || (live && handlers.ListWants(c.sub, j)) {
			targets = append(targets, c)
		}
	}
	lh.mu.Unlock()
	if len(targets) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveRenderTimeout)
	defer cancel()
	cache := map[string][]byte{}
	frag := func(key string, render func() ([]byte, error)) []byte {
		if b, ok := cache[key]; ok {
			return b
		}
		b, err := render()
		if err != nil {
			lh.log.Warn("live fragment not rendered", "job", j.ID, "kind", key, "err", err)
			b = nil
		}
		cache[key] = b
		return b
	}
	for _, c := range targets {
		job, rows, refresh, detail := c.wants(j)
		refresh = refresh && live
		var msg bytes.Buffer
		if rows || refresh {
			key := "table" + boolKey(c.canWrite) + boolKey(rows) + boolKey(refresh) + "/" + c.sub.Page
			msg.Write(frag(key, func() ([]byte, error) { return lh.h.LiveTable(ctx, j, c.sub, rows, refresh, c.canWrite) }))
		}
		if job {
			msg.Write(frag("job", func() ([]byte, error) { return handlers.LiveProgress(ctx, j) }))
		}
		if detail {
			msg.Write(frag("detail"+boolKey(c.canWrite), func() ([]byte, error) { return lh.h.LiveDetail(ctx, j.ID, c.canWrite) }))
		}
		if live && handlers.ListWants(c.sub, j) {
			msg.Write(frag("list/"+c.sub.List, func() ([]byte, error) { return handlers.LiveListRefresh(ctx, c.sub) }))
		}
		if msg.Len() > 0 {
			c.offer(msg.Bytes())
		}
	}
}

// pushObserved reloads the panels of pages showing a table whose targeted
// observe just landed, so "updating to version N…" turns into the figures,
// and the lists that show the table.
func (lh *liveHub) pushObserved(tableID string) {
	lh.mu.Lock()
	var targets []*liveConn
	for c := range lh.conns {
		if (c.sub.Refresh && c.sub.Table == tableID) || slices.Contains(c.sub.Tables, tableID) {
			targets = append(targets, c)
		}
	}
	lh.mu.Unlock()
	if len(targets) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveRenderTimeout)
	defer cancel()
	byPage := map[string][]byte{}
	for _, c := range targets {
		key, render := "page/"+c.sub.Page, func() ([]byte, error) { return lh.h.LiveRefresh(ctx, tableID, c.sub) }
		if c.sub.List != "" {
			key, render = "list/"+c.sub.List, func() ([]byte, error) { return handlers.LiveListRefresh(ctx, c.sub) }
		}
		b, ok := byPage[key]
		if !ok {
			var err error
			if b, err = render(); err != nil {
				b = nil
			}
			byPage[key] = b
		}
		if len(b) > 0 {
			c.offer(b)
		}
	}
}

func boolKey(b bool) string {
	if b {
		return "+w"
	}
	return "-w"
}

// catchUp sends a new connection the current state of what it follows, so
// a reconnect after a drop, or a page whose controls subscribe after it
// was rendered, misses nothing.
func (lh *liveHub) catchUp(c *liveConn) {
	ctx, cancel := context.WithTimeout(context.Background(), liveRenderTimeout)
	defer cancel()
	jobs := map[string]plugin.Job{}
	for _, id := range c.sub.Jobs {
		if j, err := lh.p.GetJob(ctx, id); err == nil {
			jobs[j.ID] = j
		}
	}
	if c.sub.Table != "" && c.sub.Rows != "" {
		list, _, err := lh.p.ListJobs(ctx, plugin.JobFilter{ObjectID: c.sub.Table, Type: c.sub.Rows, Limit: liveCatchUpTableJobs})
		if err == nil {
			for _, j := range list {
				jobs[j.ID] = j
			}
		}
	}
	var msg bytes.Buffer
	// A job's end after the page's panels were rendered
	// sent its refresh to the page's previous socket, or to no socket at all
	// (the job ended while the page's controls were loading): send one now.
	// The refreshed panels carry a later since, so this cannot loop.
	if lh.h.RefreshDue(ctx, c.sub) {
		if b, err := lh.h.LiveRefresh(ctx, c.sub.Table, c.sub); err == nil {
			msg.Write(b)
		}
	}
	if lh.h.ListRefreshDue(ctx, c.sub) {
		if b, err := handlers.LiveListRefresh(ctx, c.sub); err == nil {
			msg.Write(b)
		}
	}
	for _, j := range jobs {
		job, rows, _, detail := c.wants(j) // the refresh, if due, is above
		if rows {
			if b, err := lh.h.LiveTable(ctx, j, c.sub, true, false, c.canWrite); err == nil {
				msg.Write(b)
			}
		}
		if job {
			if b, err := handlers.LiveProgress(ctx, j); err == nil {
				msg.Write(b)
			}
		}
		if detail {
			if b, err := lh.h.LiveDetail(ctx, j.ID, c.canWrite); err == nil {
				msg.Write(b)
			}
		}
	}
	if msg.Len() > 0 {
		c.offer(msg.Bytes())
	}
}

// liveCatchUpTableJobs is how many of a table's latest jobs a (re)connecting
// table page is sent: more than a task history page shows at once.
const liveCatchUpTableJobs = 25

func (lh *liveHub) add(c *liveConn) bool {
	lh.mu.Lock()
	defer lh.mu.Unlock()
	if lh.closed {
		return false
	}
	lh.conns[c] = struct{}{}
	return true
}

func (lh *liveHub) isClosed() bool {
	lh.mu.Lock()
	defer lh.mu.Unlock()
	return lh.closed
}

func (lh *liveHub) remove(c *liveConn) {
	lh.mu.Lock()
	delete(lh.conns, c)
	lh.mu.Unlock()
}

// close ends every connection's writer and refuses new connections.
func (lh *liveHub) close() {
	lh.mu.Lock()
	if lh.closed {
		lh.mu.Unlock()
		return
	}
	lh.closed = true
	conns := make([]*liveConn, 0, len(lh.conns))
	for c := range lh.conns {
		conns = append(conns, c)
	}
	lh.mu.Unlock()
	for _, c := range conns {
		c.kill()
	}
}

// sameHost allows only upgrades whose Origin is this console's own host.
func sameHost(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == r.Host
}

// Live upgrades /live to a websocket for a signed-in user and streams
// fragments for what the query names.
//
// The route sits outside scs's LoadAndSave on purpose: LoadAndSave commits
// the session after the handler returns, which for a hijacked connection
// happens with a cancelled context and writes an error onto the hijacked
// response. Live reads the session itself and never writes it.
func (s *Server) Live(w http.ResponseWriter, r *http.Request) {
	if s.live == nil || s.live.isClosed() {
		http.Error(w, "Live updates need the plugin channel, which is not running in this console.", http.StatusServiceUnavailable)
		return
	}
	sub, err := handlers.ParseLiveSub(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u, session, ok := s.liveUser(r)
	if !ok {
		http.Error(w, "Sign in to the console to receive live updates.", http.StatusUnauthorized)
		return
	}
	if !sameHost(r) {
		http.Error(w, "Live updates are only for pages of this console (Origin refused).", http.StatusForbidden)
		return
	}
	canWrite, err := s.h.LiveAccess(r.Context(), u, sub)
	switch {
	case errors.Is(err, fault.Forbidden):
		http.Error(w, fault.Message(err, "Live updates of this table are not yours to see."), http.StatusForbidden)
		return
	case errors.Is(err, fault.NotFound):
		http.Error(w, "There is no such table to follow.", http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, "Live updates cannot start right now; reload the page.", http.StatusServiceUnavailable)
		return
	}
	release, status, msg := s.live.slots.take(session)
	if release == nil {
		w.Header().Set("Retry-After", strconv.Itoa(liveRetryAfter))
		http.Error(w, msg, status)
		return
	}
	defer release()
	up := websocket.Upgrader{CheckOrigin: sameHost, ReadBufferSize: 1024, WriteBufferSize: 4096}
	ws, err := up.Upgrade(hijackable{w}, r, nil)
	if err != nil {
		return // Upgrade already answered
	}
	c := &liveConn{ws: ws, sub: sub, canWrite: canWrite, send: make(chan []byte, liveSendQueue), done: make(chan struct{})}
	if !s.live.add(c) {
		ws.Close()
		return
	}
	defer s.live.remove(c)
	var wg sync.WaitGroup
	wg.Go(func() { c.writeLoop() })
	s.live.catchUp(c)
	c.readLoop()
	c.kill()
	wg.Wait()
}

// liveUser reads the signed-in user and the session's token from the
// session cookie, read-only.
func (s *Server) liveUser(r *http.Request) (handlers.User, string, bool) {
	c, err := r.Cookie(sessionCookieName)
	if err != nil {
		return handlers.User{}, "", false
	}
	ctx, err := s.sessions.Load(r.Context(), c.Value)
	if err != nil {
		return handlers.User{}, "", false
	}
	u, ok := s.h.SessionUser(ctx)
	return u, c.Value, ok
}
