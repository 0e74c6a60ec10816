package health

import (
	"context"
	"fmt"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
)

// BenchmarkBucketSumsRecompute is the cost the buckets page pays when its
// cached sums no longer hold (a table was created or dropped): 10,000
// observed tables in 100 buckets judged again from the per-table cache,
// and from cold (every observation parsed). The catalog read is not in it
// (an in-memory fake); bench/ BenchmarkConsolePages measures the page.
func BenchmarkBucketSumsRecompute(b *testing.B) {
	obs := &fakeObs{m: map[string]observe.Observation{}}
	tabs := &fakeTables{gen: 1}
	for i := range 10_000 {
		id := fmt.Sprintf("t%05d", i)
		tabs.keys = append(tabs.keys, catalog.TableKey{ID: id, Bucket: fmt.Sprintf("b%03d", i%100), Name: id, Format: catalog.FormatLance})
		obs.put(id, catalog.FormatLance, map[string]any{"rows": 1000, "bytes": 1 << 20, "fragments": i % 12, "small_fragments": i % 12, "version": 3})
	}
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			s := New(Config{Observations: obs, Tables: tabs})
			if _, err := s.Buckets(context.Background()); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				tabs.gen++ // a catalog change: the sums must be recomputed
				if mode == "cold" {
					s.mu.Lock()
					clear(s.cache)
					s.mu.Unlock()
				}
				if _, err := s.Buckets(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
