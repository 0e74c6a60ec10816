// Package connlimit keeps the connections floe accepts below the process's
// open-file limit, so that no client — and no flood of clients without
// credentials — can exhaust file descriptors and take every surface down
// (#23 item 2).
//
// A Budget is the number of connections all listeners together may hold
// (Plan derives it from RLIMIT_NOFILE). Each listener wraps its
// net.Listener in a Listener with its own share of the budget; the budget
// keeps a reserve any listener may borrow from once its share is full. A
// flood on one surface therefore takes at most its share plus the reserve,
// and every other surface keeps its share.
//
// When a listener is full, a new connection is admitted by closing the
// listener's connection that has been idle longest — one that has not
// delivered a whole request yet or is waiting between keep-alive requests
// (HTTP), or that carries no authenticated stream (gRPC) — provided it has
// been idle at least MinIdleAge, so a client that has just connected gets
// to speak. When nothing can be closed, the new connection waits up to
// Wait for room and is then refused with the protocol's answer (HTTP: 503
// with a sentence). Connections beyond the one being admitted wait in the
// kernel's accept queue, which costs no file descriptor.
//
// What connlimit is not: a rate limiter, or a per-client limit (clients
// behind one proxy share an address).
package connlimit

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults for Options.
const (
	// DefaultMinIdleAge protects a connection that has just been accepted
	// (or has just gone idle) from being closed to make room: a working
	// client sends its request in far less.
	DefaultMinIdleAge = time.Second
	// DefaultWait is how long a new connection waits for room when nothing
	// can be closed (every connection is working) before it is refused.
	DefaultWait = 2 * time.Second
	// maxRefusing bounds the refusals being written at once (each holds
	// its connection for up to refuseLinger); past it a refused connection
	// is closed without an answer. Plan's headroom counts them.
	maxRefusing = 16
	// refuseLinger is how long a refusal waits for the client to read it
	// before the socket is closed, so the answer is not lost to a reset.
	refuseLinger = 500 * time.Millisecond
	// logEvery spaces the warnings a full listener logs.
	logEvery = 10 * time.Second
)

// Options configure one Listener.
type Options struct {
	// Name labels the listener in logs and metrics (console, lance, …).
	Name string
	// Share is how many connections the listener may always hold (> 0).
	Share int
	// MaxIdle caps the idle connections (gRPC: without an authenticated
	// stream) at once; past it a new connection replaces the oldest idle
	// one, or is refused. Zero: idle connections are bounded by the share
	// only.
	MaxIdle int
	// IdleDeadline closes a connection idle this long (gRPC: one that has
	// not opened an authenticated stream within it of connecting). Zero:
	// none (net/http's own timeouts end idle HTTP connections).
	IdleDeadline time.Duration
	// MinIdleAge: see DefaultMinIdleAge.
	MinIdleAge time.Duration
	// Wait: see DefaultWait.
	Wait time.Duration
	// Refuse writes the protocol's refusal on a connection about to be
	// closed for want of room (HTTPRefusal for HTTP); nil closes it
	// without a word (gRPC clients retry with backoff).
	Refuse func(net.Conn)
	Log    *slog.Logger
	// Metrics records open and shed connections; nil records nothing.
	Metrics *Metrics
}

// Listener is a net.Listener that admits connections within its share of
// a Budget. HTTP servers report their connections' states to it through
// HTTPConnState; the plugin channel marks authenticated streams with Hold.
type Listener struct {
	net.Listener
	b *Budget
	o Options

	mu       sync.Mutex
	own      int                // connections on the listener's share
	borrowed map[*conn]struct{} // connections on the budget's reserve
	idle     idleList           // idle connections, longest idle first
	byAddr   map[string]*conn   // for Hold: remote address → connection
	closed   bool

	wake chan struct{} // a slot freed (capacity 1)
	done chan struct{} // closed by Close

	lastLog          time.Time
	evicted, refused int // since the last warning
}

// Listen wraps inner with o's share of b.
func (b *Budget) Listen(inner net.Listener, o Options) *Listener {
	if o.Share <= 0 {
		panic("connlimit: Options.Share must be positive")
	}
	if o.MinIdleAge <= 0 {
		o.MinIdleAge = DefaultMinIdleAge
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	l := &Listener{Listener: inner, b: b, o: o, borrowed: map[*conn]struct{}{}, byAddr: map[string]*conn{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	b.listeners = append(b.listeners, l)
	b.mu.Unlock()
	return l
}

// conn is one admitted connection.
type conn struct {
	net.Conn
	l         *Listener
	borrowed  bool
	busy      int   // >0: serving (HTTP: a request; gRPC: authenticated streams)
	inIdle    bool  // in l.idle
	prev      *conn // l.idle's links, while inIdle
	next      *conn
	idleSince time.Time
	timer     *time.Timer // the idle deadline, while idle
	closed    bool
	addr      string
}

// Accept admits the next connection there is room for; others wait in the
// kernel's accept queue meanwhile.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		raw, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if c := l.admit(raw); c != nil {
			return c, nil
		}
		select {
		case <-l.done:
			return nil, net.ErrClosed
		default:
		}
	}
}

// Close closes the listener; it does not close admitted connections (the
// server that serves them does). A waiting Accept returns.
func (l *Listener) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.done)
	}
	l.mu.Unlock()
	return l.Listener.Close()
}

func (l *Listener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// admit finds room for raw: its share, the reserve, or the place of the
// connection idle longest; else it waits, then refuses. nil means raw was
// refused (or the listener closed).
func (l *Listener) admit(raw net.Conn) *conn {
	var deadline time.Time
	for {
		now := time.Now()
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			raw.Close()
			return nil
		}
		idleFull := l.o.MaxIdle > 0 && l.idle.n >= l.o.MaxIdle
		if !idleFull {
			if l.own < l.o.Share {
				l.own++
				c := l.addLocked(raw, false, now)
				l.mu.Unlock()
				return c
			}
			if l.b.borrow() {
				c := l.addLocked(raw, true, now)
				l.mu.Unlock()
				return c
			}
		}
		if v := l.oldestIdleLocked(now); v != nil {
			l.evicted++
			l.warnLocked(now)
			l.mu.Unlock()
			l.o.Metrics.shed(l.o.Name, "evicted")
			v.Close() // its slot is free for the next round
			continue
		}
		if deadline.IsZero() {
			deadline = now.Add(l.o.Wait)
		}
		wait := deadline.Sub(now)
		if wait <= 0 || idleFull {
			// Idle connections over MaxIdle are all too young to close:
			// a burst of new ones; this one is refused at once.
			l.refused++
			l.warnLocked(now)
			l.mu.Unlock()
			l.o.Metrics.shed(l.o.Name, "refused")
			l.refuse(raw)
			return nil
		}
		if f := l.idle.head; f != nil {
			// The oldest idle connection becomes closable then.
			wait = min(wait, f.idleSince.Add(l.o.MinIdleAge).Sub(now))
		}
		l.mu.Unlock()
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-l.wake:
		case <-t.C:
		case <-l.done:
		}
		t.Stop()
	}
}

// addLocked registers an admitted connection, idle until its server says
// otherwise.
func (l *Listener) addLocked(raw net.Conn, borrowed bool, now time.Time) *conn {
	c := &conn{Conn: raw, l: l, borrowed: borrowed}
	if borrowed {
		l.borrowed[c] = struct{}{}
	}
	if a := raw.RemoteAddr(); a != nil {
		c.addr = a.String()
		l.byAddr[c.addr] = c
	}
	l.setIdleLocked(c, now)
	l.o.Metrics.open(l.o.Name, 1)
	return c
}

// oldestIdleLocked is the connection idle longest if it may be closed to
// make room (idle at least MinIdleAge), marked so nothing else claims it.
func (l *Listener) oldestIdleLocked(now time.Time) *conn {
	c := l.idle.head
	if c == nil || now.Sub(c.idleSince) < l.o.MinIdleAge {
		return nil
	}
	l.idle.remove(c)
	c.busy = -1 // being closed: state changes no longer move it
	return c
}

func (l *Listener) setIdleLocked(c *conn, now time.Time) {
	if c.closed || c.inIdle || c.busy < 0 {
		return
	}
	c.busy = 0
	c.idleSince = now
	l.idle.push(c)
	if d := l.o.IdleDeadline; d > 0 {
		since := now
		c.timer = time.AfterFunc(d, func() { l.expire(c, since) })
	}
}

func (l *Listener) setBusyLocked(c *conn, busy int) {
	if c.closed || c.busy < 0 {
		return
	}
	l.idle.remove(c)
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.busy = busy
}

// expire closes c if it is still in the idle spell that began at since.
func (l *Listener) expire(c *conn, since time.Time) {
	l.mu.Lock()
	if !c.inIdle || !c.idleSince.Equal(since) {
		l.mu.Unlock()
		return
	}
	l.idle.remove(c)
	c.busy = -1 // being closed, as in oldestIdleLocked
	l.mu.Unlock()
	l.o.Metrics.shed(l.o.Name, "idle_deadline")
	c.Close()
}

// idleList is the listener's idle connections in the order they went
// idle, linked through the connections themselves (no allocation on the
// path every keep-alive request takes twice).
type idleList struct {
	head, tail *conn
	n          int
}

func (q *idleList) push(c *conn) {
	c.prev, c.next, c.inIdle = q.tail, nil, true
	if q.tail != nil {
		q.tail.next = c
	} else {
		q.head = c
	}
	q.tail = c
	q.n++
}

func (q *idleList) remove(c *conn) {
	if !c.inIdle {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		q.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		q.tail = c.prev
	}
	c.prev, c.next, c.inIdle = nil, nil, false
	q.n--
}

// Close releases the connection's slot (once) and closes it.
func (c *conn) Close() error {
	l := c.l
	l.mu.Lock()
	if !c.closed {
		c.closed = true
		l.idle.remove(c)
		if c.timer != nil {
			c.timer.Stop()
			c.timer = nil
		}
		if l.byAddr[c.addr] == c {
			delete(l.byAddr, c.addr)
		}
		giveBack := false
		switch {
		case c.borrowed:
			delete(l.borrowed, c)
			giveBack = true
		case len(l.borrowed) > 0:
			// Keep the share full and return the reserve sooner: a
			// borrowed connection takes over this one's slot.
			for b := range l.borrowed {
				delete(l.borrowed, b)
				b.borrowed = false
				break
			}
			giveBack = true
		default:
			l.own--
		}
		l.mu.Unlock()
		l.o.Metrics.open(l.o.Name, -1)
		if giveBack {
			l.b.giveBack()
		}
		l.signal()
	} else {
		l.mu.Unlock()
	}
	return c.Conn.Close()
}

// HTTPConnState is an http.Server's ConnState for connections of this
// listener: a connection is idle while it has no whole request (new, or
// between keep-alive requests) and busy while a request is served or it
// was hijacked (the console's websocket).
func (l *Listener) HTTPConnState(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*conn)
	if !ok || c.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch s {
	case http.StateNew, http.StateIdle:
		l.setIdleLocked(c, time.Now())
	case http.StateActive, http.StateHijacked:
		l.setBusyLocked(c, 1)
	}
}

// Hold marks the connection from remote busy until the returned release
// is called: the plugin channel holds a connection for each authenticated
// worker stream, so a connection without one stays idle (and subject to
// MaxIdle and IdleDeadline). An unknown address holds nothing.
func (l *Listener) Hold(remote net.Addr) (release func()) {
	if remote == nil {
		return func() {}
	}
	l.mu.Lock()
	c := l.byAddr[remote.String()]
	if c == nil || c.closed || c.busy < 0 {
		l.mu.Unlock()
		return func() {}
	}
	l.setBusyLocked(c, c.busy+1)
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if c.closed || c.busy <= 0 {
				return
			}
			if c.busy == 1 {
				l.setIdleLocked(c, time.Now())
				return
			}
			c.busy--
		})
	}
}

// Stats is a listener's count of connections.
type Stats struct {
	Open, Borrowed, Idle int
}

// Stats counts the listener's connections now.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{Open: l.own + len(l.borrowed), Borrowed: len(l.borrowed), Idle: l.idle.n}
}

// warnLocked logs, at most every logEvery, that the listener is full.
func (l *Listener) warnLocked(now time.Time) {
	if now.Sub(l.lastLog) < logEvery {
		return
	}
	l.o.Log.Warn("connection limit reached: closing idle connections and refusing new ones",
		"surface", l.o.Name, "share", l.o.Share, "open", l.own+len(l.borrowed), "idle", l.idle.n,
		"closed_idle", l.evicted, "refused", l.refused,
		"hint", "a flood of connections, or more clients than this share: raise the open-file limit (ulimit -n) or --max-connections")
	l.lastLog, l.evicted, l.refused = now, 0, 0
}
