// Package notify is floe's cross-replica message bus. On PostgreSQL it is
// LISTEN/NOTIFY on one channel: Publish sends a small message through the
// shared read pool, and one dedicated connection per process listens,
// reconnecting by itself when the server goes away. On SQLite there is no
// other replica, so the bus delivers nothing (each service already
// publishes to its own process's subscribers).
//
// Messages are small notes — ids and short deltas — never rows: PostgreSQL
// caps a payload at 8000 bytes, and a receiver re-reads what it needs from
// the database, which holds the truth. Delivery is at most once: a message
// sent while a listener is reconnecting is lost, so every subscriber is told
// of a reconnect (Message.Resync) and re-reads what it shows.
package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/floe/floe/persist"
)

// Channel is the one PostgreSQL notification channel floe uses; the topic
// rides in the payload, so one LISTEN covers every subscriber.
const Channel = "floe_bus"

// MaxPayload is PostgreSQL's limit on a NOTIFY payload (8000 bytes, less
// one for its terminator); Publish refuses larger messages rather than let
// the server fail them.
const MaxPayload = 7999

// publishQueue bounds the messages waiting to be sent: a burst of job
// progress beyond it is dropped (receivers resync) rather than slow the
// publisher, which may hold a lock of its own.
const publishQueue = 1024

// subscriberQueue bounds each subscriber's backlog; a slow subscriber
// misses messages and is told to resync, instead of holding up the others.
const subscriberQueue = 256

// Reconnect backoff of the listening connection: quick at first (a
// restarted server is back within a second or two), capped so a long
// outage costs one attempt every few seconds.
const (
	reconnectMin = 100 * time.Millisecond
	reconnectMax = 5 * time.Second
)

// publishTimeout bounds one NOTIFY round trip; a server that does not
// answer in this time is down, and the message is dropped.
const publishTimeout = 5 * time.Second

// Message is one note from another replica.
type Message struct {
	Topic string
	Data  json.RawMessage
	// Resync: messages may have been lost (the listener reconnected, or
	// this subscriber fell behind); re-read the state you show. Topic and
	// Data are empty.
	Resync bool
}

// envelope is the wire form of a message.
type envelope struct {
	Replica string          `json:"r"`
	Topic   string          `json:"t"`
	Data    json.RawMessage `json:"d,omitempty"`
}

// Bus is one process's end of the bus. The zero value is not usable; call
// New. A nil *Bus is a valid bus that delivers nothing.
type Bus struct {
	db      *persist.DB
	url     string // "" on SQLite: no remote delivery
	replica string
	log     *slog.Logger

	out     chan envelope
	done    context.Context // ended by Close: Run stops
	stop    context.CancelFunc
	wg      sync.WaitGroup // Run's listener and sender
	running bool           // Run has started (guarded by mu)
	closed  bool           // Close has been called (guarded by mu)

	mu   sync.Mutex
	next int
	subs map[int]*subscriber

	connected chan struct{} // closed once the listener first listens
	connOnce  sync.Once

	// session counts the listener's connections; 0 while it is not
	// listening. A cache valid only while every change reaches it keys its
	// entries by it (Session).
	session  atomic.Uint64
	sessions uint64 // listener goroutine only

	handlers map[string][]func(Message) // topic → inline handlers (Handle); guarded by mu
}

type subscriber struct {
	topics map[string]bool
	ch     chan Message
	behind bool // a message was dropped; a Resync is owed
}

// Options configure New.
type Options struct {
	// Replica names this process in its messages, so it ignores its own
	// echoes; it must differ between replicas (New picks a random one if
	// empty).
	Replica string
	Logger  *slog.Logger
}

// New returns the bus on db; it starts nothing. Run moves the messages (on
// PostgreSQL a listening connection and a sender; on SQLite nothing) and
// Close ends the subscriptions.
func New(db *persist.DB, opts Options) *Bus {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Replica == "" {
		opts.Replica = randomID()
	}
	done, stop := context.WithCancel(context.Background())
	b := &Bus{db: db, url: db.PostgresURL(), replica: opts.Replica, log: opts.Logger,
		out: make(chan envelope, publishQueue), done: done, stop: stop, subs: map[int]*subscriber{},
		connected: make(chan struct{}), handlers: map[string][]func(Message){}}
	if b.url == "" {
		b.connOnce.Do(func() { close(b.connected) })
	}
	return b
}

// Run listens and sends until ctx ends or Close is called, and returns once
// both of its goroutines have. On SQLite it only waits. It runs once.
func (b *Bus) Run(ctx context.Context) error {
	b.mu.Lock()
	if b.running || b.closed {
		b.mu.Unlock()
		return errors.New("notify: Run called twice or after Close")
	}
	b.running = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(b.done, cancel)
	defer stop()
	if b.Remote() {
		b.wg.Go(func() { b.listen(ctx) })
		b.wg.Go(func() { b.send(ctx) })
	}
	b.mu.Unlock()
	<-ctx.Done()
	b.wg.Wait()
	return nil
}

// Replica is this process's replica id.
func (b *Bus) Replica() string {
	if b == nil {
		return ""
	}
	return b.replica
}

// Remote reports whether messages travel to other processes (PostgreSQL).
func (b *Bus) Remote() bool { return b != nil && b.url != "" }

// Listening returns a channel closed once Run's listener has issued its
// first LISTEN (at once on SQLite): messages published elsewhere after that
// reach this process. Tests wait on it.
func (b *Bus) Listening() <-chan struct{} { return b.connected }

// Close stops Run (if it runs) and waits for it; messages still queued are
// dropped. Subscriptions' channels are closed.
func (b *Bus) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.stop()
	b.wg.Wait()
	b.mu.Lock()
	for id, s := range b.subs {
		close(s.ch)
		delete(b.subs, id)
	}
	b.mu.Unlock()
}

// ErrTooLarge is returned by Publish for a message over MaxPayload.
var ErrTooLarge = errors.New("notify: message larger than PostgreSQL's 8000-byte NOTIFY payload; send ids and re-read rows")

// Publish queues a note for the other replicas; it never waits on the
// database. data is marshalled to JSON. On SQLite, and for a nil bus, it
// does nothing. A full queue drops the message (receivers resync on their
// own schedule) and says so in the log.
func (b *Bus) Publish(topic string, data any) error {
	if !b.Remote() {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("notify: encode %s message: %w", topic, err)
	}
	env := envelope{Replica: b.replica, Topic: topic, Data: raw}
	if n := len(b.replica) + len(topic) + len(raw) + 20; n > MaxPayload { // 20: the envelope's keys and quotes
		return ErrTooLarge
	}
	select {
	case b.out <- env:
		return nil
	default:
		b.log.Warn("bus message dropped: send queue full", "topic", topic)
		return nil
	}
}

// Session is the listener's connection number, 0 while it is not
// listening (and always on SQLite). While it stays the same non-zero value,
// every message since it began has been handed to the Handle handlers; a
// cache keys its entries by it and trusts none from an older session.
func (b *Bus) Session() uint64 {
	if b == nil {
		return 0
	}
	return b.session.Load()
}

// Handle runs fn on the listener's goroutine for each other-replica
// message on topic, before the next notification is read, and with a
// Resync message after each reconnect: a cache invalidated there never
// serves a read that began after the notification arrived. fn must be
// quick and must not block.
func (b *Bus) Handle(topic string, fn func(Message)) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers[topic] = append(b.handlers[topic], fn)
}

// Subscribe returns a channel of other replicas' messages on the given
// topics and a function ending the subscription. Own messages never arrive.
func (b *Bus) Subscribe(topics ...string) (<-chan Message, func()) {
	s := &subscriber{topics: map[string]bool{}, ch: make(chan Message, subscriberQueue)}
	for _, t := range topics {
		s.topics[t] = true
	}
	if b == nil {
		close(s.ch)
		return s.ch, func() {}
	}
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = s
	b.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			b.mu.Lock()
			if _, ok := b.subs[id]; ok {
				delete(b.subs, id)
				close(s.ch)
			}
			b.mu.Unlock()
		})
	}
}

// deliver hands m to every subscriber of its topic (or every subscriber,
// for a resync) without waiting.
func (b *Bus) deliver(m Message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.Resync {
		for _, fns := range b.handlers {
			for _, fn := range fns {
				fn(m)
			}
		}
	} else {
		for _, fn := range b.handlers[m.Topic] {
			fn(m)
		}
	}
	for _, s := range b.subs {
		if !m.Resync && !s.topics[m.Topic] {
			continue
		}
		if s.behind {
			select {
			case s.ch <- Message{Resync: true}:
				s.behind = false
			default:
				continue
			}
		}
		select {
		case s.ch <- m:
		default:
			s.behind = !m.Resync
		}
	}
}

// send is the one goroutine issuing NOTIFY, through the shared pool (a
// read: pg_notify needs no write transaction, so it does not queue behind
// this process's writes).
func (b *Bus) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case env := <-b.out:
			payload, err := json.Marshal(env)
			if err != nil || len(payload) > MaxPayload {
				b.log.Warn("bus message not sent: too large", "topic", env.Topic)
				continue
			}
			sctx, cancel := context.WithTimeout(ctx, publishTimeout)
			var ignored string
			err = b.db.QueryRowContext(sctx, `SELECT pg_notify(?, ?)::text`, Channel, string(payload)).Scan(&ignored)
			cancel()
			if err != nil && ctx.Err() == nil {
				b.log.Warn("bus message not sent", "topic", env.Topic, "err", err)
			}
		}
	}
}

// listen keeps one connection LISTENing, reconnecting with backoff, and
// tells subscribers to resync after every reconnect (messages sent while it
// was away are lost).
func (b *Bus) listen(ctx context.Context) {
	wait := reconnectMin
	first := true
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, b.url)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+Channel)
		}
		if err != nil {
			if conn != nil {
				conn.Close(context.Background())
			}
			if ctx.Err() != nil {
				return
			}
			b.log.Debug("bus listener cannot connect; retrying", "in", wait, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(wait*2, reconnectMax)
			continue
		}
		wait = reconnectMin
		if !first {
			b.log.Info("bus listener reconnected")
			b.deliver(Message{Resync: true})
		}
		first = false
		b.sessions++
		b.session.Store(b.sessions)
		b.connOnce.Do(func() { close(b.connected) })
		err = b.receive(ctx, conn)
		b.session.Store(0) // changes may go unheard from here on
		conn.Close(context.Background())
		if ctx.Err() == nil {
			b.log.Warn("bus listener lost its connection; reconnecting", "err", err)
		}
	}
}

func (b *Bus) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var env envelope
		if json.Unmarshal([]byte(n.Payload), &env) != nil || env.Replica == b.replica || env.Topic == "" {
			continue // not ours to read, or our own echo
		}
		b.deliver(Message{Topic: env.Topic, Data: env.Data})
	}
}

// randomID names a replica that was given no name.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}
