package catalog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// BenchmarkListTablesSoftDeleted: listing (every page) a namespace of
// 10,000 tables of which 5,000 were dropped and are recently deleted,
// against the same listing of a namespace of 10,000 tables none of which
// was dropped, of 5,000 tables alone (the same answer without the deleted
// ones beside it), and of 10,000 tables of which 5,000 were dropped with a
// hold of 0 (deleted at once: the same answer and the same holes in the
// tables' B-tree, no recently deleted rows), in one run. Issue 24's
// target: with/none ≤ 1.1. The ratios are reported as metrics; one
// measurement of each per b.N.
func BenchmarkListTablesSoftDeleted(b *testing.B) {
	ctx := context.Background()
	open := func() *Store {
		dir := b.TempDir()
		s, err := Open(ctx, Options{Path: dir + "/c.db", Warehouse: dir + "/wh", BcryptCost: bcrypt.MinCost, SoftDeleteHold: 7 * 24 * time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "bench"}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateNamespace(ctx, "bench", []string{"ns"}, nil); err != nil {
			b.Fatal(err)
		}
		return s
	}
	deleted, none, half, hard := open(), open(), open(), open()
	fill(b, deleted, 10000, FormatLance, StateCreated)
	fill(b, none, 10000, FormatLance, StateCreated)
	fill(b, half, 5000, FormatLance, StateCreated)
	fill(b, hard, 10000, FormatLance, StateCreated)
	if _, err := hard.SetBucketHold(ctx, "bench", 0); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i += 2 {
		// Every other table, so the deleted ones sit between the live ones.
		r := TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%05d", i)}
		for _, s := range []*Store{deleted, hard} {
			if _, err := s.DropTableWith(ctx, r, DropOptions{By: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if held, _, err := hard.ListDeletedTables(ctx, "bench", ListOptions{Limit: 1}); err != nil || len(held) != 0 {
		b.Fatalf("recently deleted after drops with a hold of 0: %d, %v", len(held), err)
	}
	if held, _, err := deleted.ListDeletedTables(ctx, "bench", ListOptions{Limit: 1}); err != nil || len(held) != 1 {
		b.Fatalf("recently deleted after the drops: %d, %v", len(held), err)
	}
	listAll := func(s *Store) int {
		n, after := 0, ""
		for {
			page, next, err := s.ListTables(ctx, "bench", []string{"ns"}, ListTablesOptions{ListOptions: ListOptions{Limit: MaxPageSize, After: after}})
			if err != nil {
				b.Fatal(err)
			}
			n += len(page)
			if next == "" {
				return n
			}
			after = next
		}
	}
	for _, s := range []*Store{deleted, hard, half} {
		if n := listAll(s); n != 5000 {
			b.Fatalf("a namespace of 5,000 live tables lists %d", n)
		}
	}
	var tDeleted, tNone, tHalf, tHard time.Duration
	for b.Loop() {
		// Alternating, so load on the machine falls on all three alike.
		start := time.Now()
		listAll(deleted)
		tDeleted += time.Since(start)
		start = time.Now()
		listAll(none)
		tNone += time.Since(start)
		start = time.Now()
		listAll(half)
		tHalf += time.Since(start)
		start = time.Now()
		listAll(hard)
		tHard += time.Since(start)
	}
	b.ReportMetric(float64(tDeleted)/float64(tNone), "with-deleted/none")
	b.ReportMetric(float64(tDeleted)/float64(tHalf), "with-deleted/same-5000-alone")
	b.ReportMetric(float64(tDeleted)/float64(tHard), "with-deleted/same-5000-after-hard-deletes")
	b.ReportMetric(float64(tDeleted.Microseconds())/float64(b.N), "µs/list-with-deleted")
}
