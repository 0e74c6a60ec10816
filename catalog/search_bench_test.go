package catalog

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/floe/floe/persist"
)

// searchWords make table names of the kind people give: a domain word, a
// qualifier and a number, so common words match thousands of tables and
// a number matches a handful.
var searchWords = [][]string{
	{"orders", "customers", "events", "clicks", "invoices", "payments", "sessions", "products", "shipments", "reviews"},
	{"daily", "raw", "clean", "eu", "us", "staging", "archive", "v2", "agg", "sample"},
}

// fillNamed inserts n tables with searchWords names straight into the
// database (the search triggers run as for any insert).
func fillNamed(b *testing.B, s *Store, n int) {
	b.Helper()
	err := s.db.Write(context.Background(), func(tx *persist.Tx) error {
		for i := range n {
			name := fmt.Sprintf("%s_%s_%05d", searchWords[0][i%10], searchWords[1][(i/10)%10], i)
			if _, err := tx.ExecContext(context.Background(), `INSERT INTO tables(`+tableColumns+`) VALUES (?, 'bench', 'ns', ?, 'LANCE', ?, '', 'tok', 'created', '{}', 1, 1)`,
				fmt.Sprintf("00000000-0000-0000-0000-%012d", i), name, fmt.Sprintf("%s/bench/ns/%s", s.Warehouse(), name)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSearch100k: console search over 100,000 tables, through the
// trigram index, beside the substring scan the namespace filter did
// (tables' name LIKE '%q%'), query by query, in the same run. It reports
// the p50 of each and their ratio; the target is p50 ≤ 20 ms.
func BenchmarkSearch100k(b *testing.B) {
	s := benchStore(b)
	fillNamed(b, s, 100_000)
	ctx := context.Background()
	queries := []struct{ name, q string }{
		{"common word", "orders"},   // 10,000 tables
		{"word pair", "events_eu"},  // 1,000
		{"number", "04242"},         // 1
		{"short prefix", "cu"},      // prefix only
		{"no match", "warehouse_x"}, // nothing
	}
	for _, tc := range queries {
		b.Run(tc.name, func(b *testing.B) {
			var search, scan []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, _, err := s.Search(ctx, tc.q, SearchOptions{Limit: 20}); err != nil {
					b.Fatal(err)
				}
				search = append(search, time.Since(start))
				start = time.Now()
				rows, err := s.ro.QueryContext(ctx, `SELECT bucket, namespace, name, format FROM tables WHERE instr(name, ?) > 0 LIMIT 61`, tc.q)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
				scan = append(scan, time.Since(start))
			}
			ps, pc := p50(search), p50(scan)
			b.ReportMetric(float64(ps.Microseconds())/1000, "search-p50-ms")
			b.ReportMetric(float64(pc.Microseconds())/1000, "scan-p50-ms")
			b.ReportMetric(float64(ps)/float64(pc), "search/scan")
		})
	}
}

func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}
