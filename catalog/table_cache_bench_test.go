package catalog

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/floe/floe/persist/pgtest"
)

// BenchmarkGetTableBesideWrites: GetTable over a hot set of 1,000 tables
// and GetBucket over 100 buckets (every Iceberg request resolves its
// bucket) with the read cache on,
// alone ("quiet") and beside a writer that changes no table and no bucket,
// 100 times a second ("writes": a namespace's properties, as observations,
// console sessions and maintenance jobs write beside describes in floe
// serve), on SQLite and on PostgreSQL.
//
//	go test -run '^$' -bench BenchmarkGetTableBesideWrites ./catalog/
func BenchmarkGetTableBesideWrites(b *testing.B) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		b.Run(dialect, func(b *testing.B) {
			dir := b.TempDir()
			dsn := filepath.Join(dir, "c.db")
			if dialect == "postgres" {
				if !pgtest.Available() {
					b.Skip("PostgreSQL is not installed (apt-get install postgresql)")
				}
				dsn = pgtest.DSN(b)
			}
			s, _ := replicaStore(b, dsn, filepath.Join(dir, "wh"), "bench")
			ctx := context.Background()
			mustBucket(b, s, "bkt", FormatIceberg)
			mustNamespace(b, s, "bkt", "ns")
			refs := make([]TableRef, 1_000)
			ins := make([]CreateTableInput, len(refs))
			for i := range refs {
				refs[i] = TableRef{Bucket: "bkt", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%04d", i)}
				ins[i] = CreateTableInput{TableRef: refs[i], Format: FormatIceberg}
			}
			if _, err := s.CreateTables(ctx, ins); err != nil {
				b.Fatal(err)
			}
			buckets := make([]string, 100)
			for i := range buckets {
				buckets[i] = fmt.Sprintf("b%03d", i)
				mustBucket(b, s, buckets[i], FormatIceberg)
			}
			for _, mode := range []string{"quiet", "writes"} {
				b.Run(mode, func(b *testing.B) {
					done := make(chan struct{})
					stopped := make(chan struct{})
					go func() {
						defer close(stopped)
						if mode == "quiet" {
							return
						}
						tick := time.NewTicker(10 * time.Millisecond)
						defer tick.Stop()
						for n := 0; ; n++ {
							select {
							case <-done:
								return
							case <-tick.C:
							}
							if _, err := s.UpdateNamespaceProperties(ctx, "bkt", []string{"ns"}, nil, map[string]string{"n": strconv.Itoa(n)}); err != nil {
								b.Error(err)
								return
							}
						}
					}()
					b.Run("GetTable", func(b *testing.B) {
						i := 0
						for b.Loop() {
							i++
							if _, err := s.GetTable(ctx, refs[i%len(refs)]); err != nil {
								b.Fatal(err)
							}
						}
					})
					b.Run("GetBucket", func(b *testing.B) {
						i := 0
						for b.Loop() {
							i++
							if _, err := s.GetBucket(ctx, buckets[i%len(buckets)]); err != nil {
								b.Fatal(err)
							}
						}
					})
					close(done)
					<-stopped
				})
			}
		})
	}
}
