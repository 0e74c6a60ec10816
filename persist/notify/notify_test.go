package notify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// waitFor bounds how long a test waits for a message that should arrive in
// milliseconds; generous for a loaded CI machine, never a timing assert.
const waitFor = 30 * time.Second

func open(t *testing.T, dsn string) *persist.DB {
	t.Helper()
	db, err := persist.Open(context.Background(), persist.Options{Path: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func bus(t *testing.T, db *persist.DB, replica string) *notify.Bus {
	t.Helper()
	b := notify.New(db, notify.Options{Replica: replica})
	runtest.Start(t, b)
	t.Cleanup(b.Close)
	select {
	case <-b.Listening():
	case <-time.After(waitFor):
		t.Fatal("bus never listened")
	}
	return b
}

func next(t *testing.T, ch <-chan notify.Message) notify.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return m
	case <-time.After(waitFor):
		t.Fatal("no message arrived")
	}
	return notify.Message{}
}

func TestTwoReplicasExchangeMessages(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	a, b := bus(t, open(t, dsn), "A"), bus(t, open(t, dsn), "B")
	onA, stopA := a.Subscribe("job")
	defer stopA()
	onB, stopB := b.Subscribe("job", "catalog")
	defer stopB()

	cases := []struct {
		topic string
		data  any
	}{
		{"job", map[string]string{"id": "j1"}},
		{"catalog", map[string]int64{"gen": 7}},
		{"job", map[string]string{"id": "j2"}},
	}
	for _, c := range cases {
		if err := a.Publish(c.topic, c.data); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		m := next(t, onB)
		want, _ := json.Marshal(c.data)
		if m.Topic != c.topic || string(m.Data) != string(want) {
			t.Fatalf("B got %s %s, want %s %s", m.Topic, m.Data, c.topic, want)
		}
	}
	// A's own messages never come back to A; B's do.
	if err := b.Publish("job", map[string]string{"id": "from-b"}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, onA); string(m.Data) != `{"id":"from-b"}` {
		t.Fatalf("A got %s, want B's message (its own echoes are dropped)", m.Data)
	}
}

func TestPublishRefusesOversizedPayload(t *testing.T) {
	t.Parallel()
	a := bus(t, open(t, pgtest.DSN(t)), "A")
	if err := a.Publish("job", strings.Repeat("x", notify.MaxPayload)); err != notify.ErrTooLarge {
		t.Fatalf("Publish of %d bytes: %v, want ErrTooLarge", notify.MaxPayload, err)
	}
}

func TestSQLiteBusIsLocalOnly(t *testing.T) {
	t.Parallel()
	db := open(t, filepath.Join(t.TempDir(), "c.db"))
	b := bus(t, db, "A")
	if b.Remote() {
		t.Fatal("a SQLite bus claims remote delivery")
	}
	ch, stop := b.Subscribe("job")
	defer stop()
	if err := b.Publish("job", "x"); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-ch:
		t.Fatalf("SQLite bus delivered %+v; it has no other replica", m)
	case <-time.After(100 * time.Millisecond):
	}
	var nilBus *notify.Bus
	if err := nilBus.Publish("job", "x"); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-func() <-chan notify.Message { c, _ := nilBus.Subscribe("job"); return c }(); ok {
		t.Fatal("nil bus delivered a message")
	}
}

// TestListenerReconnectsAfterRestart: the server goes away and comes back;
// subscribers are told to resync and later messages arrive again.
func TestListenerReconnectsAfterRestart(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := bus(t, open(t, dsn), "A"), bus(t, open(t, dsn), "B")
	onB, stop := b.Subscribe("job")
	defer stop()
	pgtest.Restart(t, nil)
	if m := next(t, onB); !m.Resync {
		t.Fatalf("first message after a restart is %+v, want a resync", m)
	}
	// The sender's pool reconnects too; publish until one arrives (a
	// message sent before B listens again is lost by design).
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		if err := a.Publish("job", "after"); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-onB:
			if m.Resync {
				continue
			}
			if string(m.Data) != `"after"` {
				t.Fatalf("got %s", m.Data)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatal("no message crossed after the restart")
}

// New starts nothing: the listener issues LISTEN only once Run runs. Close
// stops a running Run and waits for it, and a bus runs once.
func TestRunOwnsTheListener(t *testing.T) {
	t.Parallel()
	b := notify.New(open(t, pgtest.DSN(t)), notify.Options{Replica: "solo"})
	select {
	case <-b.Listening():
		t.Fatal("New listened before Run")
	default:
	}
	ran := make(chan error, 1)
	go func() { ran <- b.Run(context.Background()) }()
	select {
	case <-b.Listening():
	case <-time.After(waitFor):
		t.Fatal("Run never listened")
	}
	b.Close()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(waitFor):
		t.Fatal("Close did not stop Run")
	}
	if err := b.Run(context.Background()); err == nil {
		t.Fatal("a closed bus ran again")
	}
}
