package observe

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floe/floe/catalog"
)

// BenchmarkIngest measures observations stored per second, including the
// flushes to SQLite (Run flushes as they come and the remainder as it
// stops, inside the timed region), with and without the ingest counter in
// one process.
func BenchmarkIngest(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("metrics=%v", on), func(b *testing.B) { benchIngest(b, on, true) })
	}
	// The kept observations' cost: the same ingest with history off.
	b.Run("history=false", func(b *testing.B) { benchIngest(b, true, false) })
}

func benchIngest(b *testing.B, metrics, history bool) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	s, err := New(db, 50_000)
	if err != nil {
		b.Fatal(err)
	}
	if !history {
		s.SetHistoryRetention(0)
	}
	if metrics {
		if err := s.Instrument(prometheus.NewRegistry()); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	attrs := []byte(`{"rows":1000,"fragments":12,"small_fragments":3,"version":7,"versions":7,"bytes":123456}`)
	t0 := time.Now()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Put(Observation{ObjectID: fmt.Sprintf("t%d", i%20_000), Format: catalog.FormatLance,
			ObservedAt: t0.Add(time.Duration(i)), WorkerID: "w", Attributes: attrs}); err != nil {
			b.Fatal(err)
		}
	}
	cancel()
	if err := <-ran; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "obs/s")
}

// BenchmarkIngestCounter is what the metrics add to one Put; held against
// BenchmarkIngest's time per observation in the same run.
func BenchmarkIngestCounter(b *testing.B) {
	db := openDB(b, b.TempDir())
	defer db.Close()
	s, err := New(db, 10)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Instrument(prometheus.NewRegistry()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.count(catalog.FormatLance, outcomeStored)
	}
}
