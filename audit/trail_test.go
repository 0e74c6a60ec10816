package audit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestTrailStoresEveryEntryInBatches(t *testing.T) {
	s, _ := openStore(t)
	reg := prometheus.NewRegistry()
	tr := New(Config{Store: s, Metrics: reg})
	wake := tr.Stored()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tr.Run(ctx) }()
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Go(func() {
			for i := range 100 {
				tr.Add(req("op", "apikey:k1", "b", "", "", 200+g, false, t0.Add(time.Duration(i))))
			}
		})
	}
	wg.Wait()
	<-wake
	cancel() // what is still queued is written on the way out
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := s.Export(context.Background(), Filter{}, func(Entry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 1000 {
		t.Fatalf("stored %d entries, want 1000", n)
	}
	if got := testutil.ToFloat64(tr.stored); got != 1000 {
		t.Fatalf("stored counter %v", got)
	}
}

func TestTrailFullQueueDropsAndCounts(t *testing.T) {
	s, _ := openStore(t)
	tr := New(Config{Store: s, QueueCap: 2, Block: time.Millisecond})
	// nothing runs the trail: the queue fills
	for range 5 {
		tr.Add(req("op", "apikey:k1", "b", "", "", 200, false, t0))
	}
	if got := testutil.ToFloat64(tr.dropped); got != 3 {
		t.Fatalf("dropped %v, want 3 (a queue of 2 took 5)", got)
	}
}
