package observe

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/pgtest"
)

// TestObservationReachesOtherReplica: an observation a worker on replica A
// reports (flushed there) is in replica B's memory soon after, so B's table
// page and B's preview choice see it; an older one never replaces it.
func TestObservationReachesOtherReplica(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func(name string) *Store {
		db, err := persist.Open(context.Background(), persist.Options{Path: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(context.Background(), Migrations()); err != nil {
			t.Fatal(err)
		}
		s, err := New(db, 0)
		if err != nil {
			t.Fatal(err)
		}
		bus := notify.New(db, notify.Options{Replica: name})
		runtest.Start(t, bus)
		t.Cleanup(func() { s.Close(); bus.Close(); db.Close() })
		<-bus.Listening()
		s.Follow(bus)
		runtest.Start(t, s)
		return s
	}
	a, b := open("A"), open("B")
	const id = "0b5a3f2e-1d7c-4c55-9a59-6f3c2f0d1e01"
	cases := []struct {
		name     string
		at       int64
		rows     int64
		wantRows int64
	}{
		{"first", 1000, 42, 42},
		{"newer", 2000, 43, 43},
		{"older is ignored", 1500, 1, 43},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			attrs, _ := json.Marshal(map[string]int64{"rows": c.rows})
			if _, err := a.Put(Observation{ObjectID: id, Format: catalog.FormatLance, ObservedAt: time.UnixMilli(c.at),
				WorkerID: "w-a", Attributes: attrs}); err != nil {
				t.Fatal(err)
			}
			if err := a.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				rows, _, worker, ok := b.Rows(id, catalog.FormatLance)
				if ok && rows == c.wantRows && worker == "w-a" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("B holds rows %d (ok %v), want %d", rows, ok, c.wantRows)
				}
				time.Sleep(10 * time.Millisecond) // polling interval, not an assertion
			}
			if w, ok := b.WorkerFor(id, catalog.FormatLance); !ok || w != "w-a" {
				t.Fatalf("B's preview would ask %q (%v), want A's worker", w, ok)
			}
		})
	}
	b.mu.RLock()
	dirty := len(b.dirty)
	b.mu.RUnlock()
	if dirty != 0 {
		t.Fatalf("B marked %d remote observations dirty; they are already in the database", dirty)
	}
}
