package audit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingSink keeps what it was sent; fail makes the next sends fail.
type recordingSink struct {
	mu   sync.Mutex
	got  []CloudEvent
	fail int
}

func (s *recordingSink) Name() string { return "test" }
func (s *recordingSink) Close() error { return nil }
func (s *recordingSink) Send(_ context.Context, evs []CloudEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return errors.New("receiver down")
	}
	s.got = append(s.got, evs...)
	return nil
}

func (s *recordingSink) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.got {
		out = append(out, e.ID)
	}
	return out
}

func TestPublisherDeliversFromItsCursor(t *testing.T) {
	s, _ := openStore(t)
	ctx := context.Background()
	// entries before the sink existed are not sent to it
	if _, err := s.Insert(ctx, []Entry{req("before", "apikey:k1", "b", "", "", 200, false, time.Now())}); err != nil {
		t.Fatal(err)
	}
	sink := &recordingSink{fail: 2}
	p := NewPublisher(s, sink, nil, nil)
	if err := p.Load(ctx); err != nil {
		t.Fatal(err)
	}
	var in []Entry
	for i := range 250 {
		in = append(in, req(fmt.Sprint("op", i), "apikey:k1", "b", "ns", "t", 200, false, time.Now()))
	}
	stored, err := s.Insert(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	// rounds until caught up; the first two sends fail and are retried
	for range 20 {
		more, err := p.round(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	got := sink.ids()
	if len(got) != 250 {
		t.Fatalf("delivered %d events, want the 250 after the sink was made", len(got))
	}
	for i, e := range stored {
		if got[i] != e.ID {
			t.Fatalf("event %d: id %s, want the entry's own id %s (in order)", i, got[i], e.ID)
		}
	}
	// a second publisher (a restart) resumes after the cursor: nothing again
	p2 := NewPublisher(s, sink, nil, nil)
	p2.now = func() time.Time { return time.Now().Add(2 * leaseFor) } // the first one's lease ran out
	if err := p2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p2.round(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(sink.ids()); n != 250 {
		t.Fatalf("a restarted publisher sent again: %d events", n)
	}
	// while the first holds the lease, a third (another replica) delivers nothing
	if _, err := s.Insert(ctx, []Entry{req("late", "apikey:k1", "b", "", "", 200, false, time.Now())}); err != nil {
		t.Fatal(err)
	}
	p3 := NewPublisher(s, sink, nil, nil)
	if _, err := p3.round(ctx); !errors.Is(err, errNotHolder) {
		t.Fatalf("a replica without the lease: %v, want errNotHolder", err)
	}
	// an idle sink's round writes nothing (no lease taken)
	if _, err := p.round(ctx); err != nil {
		t.Fatal(err)
	}
	var holder string
	var until int64
	if err := s.db.QueryRowContext(ctx, `SELECT holder, lease_until FROM audit_sinks WHERE name = 'test'`).Scan(&holder, &until); err != nil {
		t.Fatal(err)
	}
	before := until
	if _, err := p.round(ctx); err != nil { // caught up now: idle
		t.Fatal(err)
	}
	if err := s.db.QueryRowContext(ctx, `SELECT lease_until FROM audit_sinks WHERE name = 'test'`).Scan(&until); err != nil {
		t.Fatal(err)
	}
	if until != before || holder != p.holder {
		t.Fatalf("an idle round renewed the lease (%d → %d) or another holder took it (%s)", before, until, holder)
	}
}

func TestSettledWaitsOnYoungGaps(t *testing.T) {
	p := &Publisher{now: func() time.Time { return t0 }}
	es := []Entry{{Seq: 11, Time: t0}, {Seq: 13, Time: t0}, {Seq: 14, Time: t0}}
	if got := p.settled(10, es); len(got) != 1 {
		t.Fatalf("a young gap after 11: delivered %d, want 1", len(got))
	}
	old := []Entry{{Seq: 11, Time: t0.Add(-time.Minute)}, {Seq: 13, Time: t0.Add(-time.Minute)}}
	if got := p.settled(10, old); len(got) != 2 {
		t.Fatalf("an old gap: delivered %d, want 2", len(got))
	}
}

func TestEventShape(t *testing.T) {
	e := req("DropTable", "apikey:k1", "b", "ns", "t", 204, false, t0)
	e.ID = "0192-id"
	ce := Event(e)
	if ce.SpecVersion != "1.0" || ce.ID != "0192-id" || ce.Type != TypeRequest || ce.Source != "/floe/lance" ||
		ce.Subject != "b/ns/t" || !ce.Time.Equal(t0) || ce.DataContentType != "application/json" {
		t.Fatalf("envelope %+v", ce)
	}
	for _, want := range []string{`"operation":"DropTable"`, `"principal":"apikey:k1"`, `"outcome":"ok"`, `"request_id":"r-DropTable"`} {
		if !strings.Contains(string(ce.Data), want) {
			t.Errorf("data %s lacks %s", ce.Data, want)
		}
	}
	ch := Event(Entry{ID: "x", Type: TypeTableCommitted, Time: t0, Bucket: "b", Namespace: "ns", Table: "t", Data: `{"table_id":"u1","format":"ICEBERG"}`})
	if ch.Source != "/floe/table" || !strings.Contains(string(ch.Data), `"table_id":"u1"`) || !strings.Contains(string(ch.Data), `"table":"t"`) {
		t.Fatalf("change event %+v %s", ch, ch.Data)
	}
}
