package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/internal/dbschema"
	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/persist/notify"
	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the catalog databases a benchmark compares: the embedded
// SQLite file and a PostgreSQL database on the local test server.
var backends = []struct {
	name string
	path func(b *testing.B) string
}{
	{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "catalog.db") }},
	{"postgres", func(b *testing.B) string { return pgtest.DSN(b) }},
}

// describeTables is how many tables the DescribeTable benchmark's
// namespace holds, so the lookup goes through a real index.
const describeTables = 1000

// BenchmarkDescribeTable measures the catalog read behind Lance's
// DescribeTable and Iceberg's LoadTable (GetTable by name) on SQLite and on
// PostgreSQL in the same run and reports PostgreSQL's rate as a share of
// SQLite's (target ≥ 0.5). Both run one caller at a time: the latency of one
// request, where a network round trip costs PostgreSQL most.
func BenchmarkDescribeTable(b *testing.B) {
	rates := make(map[string]float64, len(backends))
	cold := make(map[string]float64, len(backends))
	for _, be := range backends {
		st := describeStore(b, be.path(b))
		ctx := context.Background()
		read := func(i int) {
			ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%04d", i%describeTables)}
			if _, err := st.GetTable(ctx, ref); err != nil {
				b.Fatal(err)
			}
		}
		// First pass: every table read once, nothing cached yet (the cost
		// of a describe right after a change).
		start := time.Now()
		for i := range describeTables {
			read(i)
		}
		cold[be.name] = float64(describeTables) / time.Since(start).Seconds()
		n := max(b.N, 5000)
		start = time.Now()
		for i := range n {
			read(i)
		}
		rates[be.name] = float64(n) / time.Since(start).Seconds()
	}
	for b.Loop() { // the work above is timed by hand, per backend
	}
	ratio := rates["postgres"] / rates["sqlite"]
	b.ReportMetric(rates["sqlite"], "sqlite-op/s")
	b.ReportMetric(rates["postgres"], "postgres-op/s")
	b.ReportMetric(ratio, "postgres/sqlite")
	b.ReportMetric(cold["postgres"]/cold["sqlite"], "cold-postgres/sqlite")
	b.Logf("DescribeTable: SQLite %.0f/s, PostgreSQL %.0f/s, ratio %.2f (target ≥ 0.5); first read of each table: SQLite %.0f/s, PostgreSQL %.0f/s, ratio %.2f",
		rates["sqlite"], rates["postgres"], ratio, cold["sqlite"], cold["postgres"], cold["postgres"]/cold["sqlite"])
}

func describeStore(b *testing.B, dbPath string) *catalog.Store {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	db := persisttest.OpenAt(b, dbPath, dbschema.All()...)
	st, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		b.Fatal(err)
	}
	// As floe serve does: the bus turns the table cache on for PostgreSQL
	// (on SQLite it does nothing).
	bus := notify.New(db, notify.Options{})
	runtest.Start(b, bus)
	b.Cleanup(func() { bus.Close(); st.Close() })
	<-bus.Listening()
	st.CacheReads(bus)
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "bench", Format: catalog.FormatIceberg}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "bench", []string{"ns"}, nil); err != nil {
		b.Fatal(err)
	}
	for i := range describeTables {
		ref := catalog.TableRef{Bucket: "bench", Namespace: []string{"ns"}, Name: fmt.Sprintf("t%04d", i)}
		if _, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatIceberg}); err != nil {
			b.Fatal(err)
		}
	}
	return st
}
