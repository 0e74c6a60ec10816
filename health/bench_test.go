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

// BenchmarkSortedTables is what a sorted list of 10,000 tables costs:
// "page" a page from the cached, sorted listing (any depth: a binary
// search), "rebuild" the first page after a catalog change (every table
// judged from the per-table cache again and the order sorted), beside
// "name order" — NeedingAttention over the same list, the attention
// filter's cached scan — in the same run.
func BenchmarkSortedTables(b *testing.B) {
	obs := &fakeObs{m: map[string]observe.Observation{}}
	tabs := &fakeTables{gen: 1}
	for i := range 10_000 {
		id := fmt.Sprintf("t%05d", i)
		tabs.keys = append(tabs.keys, catalog.TableKey{ID: id, Bucket: "b", Namespace: "ns", Name: id, Format: catalog.FormatLance})
		obs.put(id, catalog.FormatLance, map[string]any{"rows": (i * 7919) % 10_000, "bytes": 1 << 20, "fragments": i % 12, "small_fragments": i % 12, "version": 3})
	}
	ctx := context.Background()
	s := New(Config{Observations: obs, Tables: tabs})
	o := Order{Key: SortRows, Desc: true}
	_, next, _, err := s.SortedTables(ctx, "b", []string{"ns"}, o, ListFilter{}, "", 50)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("page", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := s.SortedTables(ctx, "b", []string{"ns"}, o, ListFilter{}, next, 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			tabs.gen++
			if _, _, _, err := s.SortedTables(ctx, "b", []string{"ns"}, o, ListFilter{}, "", 50); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("name order", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := s.NeedingAttention(ctx, "b", []string{"ns"}, "", "", 50); err != nil {
				b.Fatal(err)
			}
		}
	})
}
