package catalog

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/persist/pgtest"
)

// filterBenchName is the i-th table name of BenchmarkNamespaceFilter's
// namespaces: searchWords' kind, so a word matches a tenth of them, a
// word pair a hundredth and a number one.
func filterBenchName(i int) string {
	return fmt.Sprintf("%s_%s_%06d", searchWords[0][i%10], searchWords[1][(i/10)%10], i)
}

// filterBenchStore is a store with one namespace, bench.ns, of n Lance
// tables created through CreateTables, MaxCreateTables a call.
func filterBenchStore(b *testing.B, path string, n int) *Store {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	if path == "" {
		path = dir + "/c.db"
	}
	s, err := Open(ctx, Options{Path: path, Warehouse: dir + "/wh", BcryptCost: bcrypt.MinCost})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "bench", Format: FormatLance, Owner: "bench"}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateNamespace(ctx, "bench", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	for from := 0; from < n; from += MaxCreateTables {
		ins := make([]CreateTableInput, 0, MaxCreateTables)
		for i := from; i < min(from+MaxCreateTables, n); i++ {
			ins = append(ins, CreateTableInput{TableRef: TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: filterBenchName(i)}, Format: FormatLance})
		}
		if _, err := s.CreateTables(ctx, ins); err != nil {
			b.Fatal(err)
		}
	}
	if s.db.Dialect().Name == "postgres" {
		// What autovacuum does after a bulk load, here at once, so the
		// planner knows the table sizes.
		if _, err := s.db.ExecContext(ctx, `ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// filteredPage is what the namespace page asks of the catalog for a
// filtered first page: the count of matches and 50 of them.
func filteredPage(b *testing.B, s *Store, q string) int {
	ctx := context.Background()
	opt := ListTablesOptions{NameFilter: q, IncludeDeclared: true}
	n, err := s.CountTables(ctx, "bench", []string{"ns"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	opt.Limit = 50
	if _, _, err := s.ListTables(ctx, "bench", []string{"ns"}, opt); err != nil {
		b.Fatal(err)
	}
	return n
}

// scannedPage is filteredPage's two queries as they were before the
// index: the substring test on every name of the namespace.
func scannedPage(b *testing.B, s *Store, q string) int {
	ctx := context.Background()
	opt := ListTablesOptions{NameFilter: q, IncludeDeclared: true}
	where, args := tableFilter(s.filterCond(filterScan, "bench", "ns", q), "bench", "ns", opt, false)
	var n int
	if err := s.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM tables WHERE `+where, args...).Scan(&n); err != nil {
		b.Fatal(err)
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE `+where+` ORDER BY name LIMIT 51`, args...)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.scanTables(rows); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkNamespaceFilter: the namespace page's name filter (count and
// first page) over namespaces of 1,000 and 100,000 tables, query by query,
// the sizes and the scan taken in turn in one run. It reports each p50,
// the ratio 100k/1k (the target: about 1, the cost following what the
// filter returns, not the namespace) and the scan's p50 at 100k.
// FLOE_BENCH_POSTGRES=1 runs it on PostgreSQL (pgtest's server).
func BenchmarkNamespaceFilter(b *testing.B) {
	small, large := 1_000, 100_000
	var smallPath, largePath string
	if os.Getenv("FLOE_BENCH_POSTGRES") != "" {
		smallPath, largePath = pgtest.DSN(b), pgtest.DSN(b)
	}
	start := time.Now()
	s1 := filterBenchStore(b, smallPath, small)
	s2 := filterBenchStore(b, largePath, large)
	b.Logf("seeded %d + %d tables in %s (%s)", small, large, time.Since(start).Round(time.Millisecond), s1.db.Dialect().Name)
	queries := []struct{ name, q string }{
		{"word", "orders"},            // a tenth of the namespace
		{"word pair", "events_eu"},    // a hundredth
		{"number", "004242"},          // one table in the large namespace, none in the small
		{"upper case", "Orders"},      // none: the filter is case-sensitive, the index is not
		{"no match", "warehouse_x"},   // none
		{"two characters", "cu"},      // a prefix
		{"impossible", "orders/2024"}, // no name holds a '/'
	}
	for _, tc := range queries {
		b.Run(tc.name, func(b *testing.B) {
			var t1, t2, scan []time.Duration
			for b.Loop() {
				at := time.Now()
				filteredPage(b, s1, tc.q)
				t1 = append(t1, time.Since(at))
				at = time.Now()
				got := filteredPage(b, s2, tc.q)
				t2 = append(t2, time.Since(at))
				at = time.Now()
				if want := scannedPage(b, s2, tc.q); got != want && !strings.Contains(tc.q, "/") && !NameFilterPrefix(tc.q) {
					b.Fatalf("%q: %d tables through the filter, %d by the scan", tc.q, got, want)
				}
				scan = append(scan, time.Since(at))
			}
			p1, p2, ps := p50(t1), p50(t2), p50(scan)
			b.ReportMetric(ms(p1), "1k-ms")
			b.ReportMetric(ms(p2), "100k-ms")
			b.ReportMetric(float64(p2)/float64(p1), "100k/1k")
			b.ReportMetric(ms(ps), "scan-100k-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
