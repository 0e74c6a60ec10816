package observe

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/persist"
	"github.com/floe/floe/persist/persisttest"
)

// BenchmarkBucketTotals is the bucket page's totals query over a bucket
// of 1,000 tables with 100 kept points each (100,000 points), and a
// bucket of 10 tables beside it in the same database: what one page view
// costs the database at each size.
func BenchmarkBucketTotals(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	db := persisttest.OpenAt(b, filepath.Join(dir, "c.db"), catalog.Migrations(), Migrations())
	cat, err := catalog.New(db, catalog.Options{Warehouse: filepath.Join(dir, "wh")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cat.Close() })
	s, err := New(db, 0)
	if err != nil {
		b.Fatal(err)
	}
	const points = 100
	t0 := time.Now().Add(-points * time.Hour)
	for _, bk := range []struct {
		name   string
		tables int
	}{{"big", 1000}, {"small", 10}} {
		if _, err := cat.CreateBucket(ctx, catalog.CreateBucketInput{Name: bk.name, Format: catalog.FormatLance}); err != nil {
			b.Fatal(err)
		}
		if _, err := cat.CreateNamespace(ctx, bk.name, []string{"ns"}, nil); err != nil {
			b.Fatal(err)
		}
		for i := range bk.tables {
			tbl, _, err := cat.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: bk.name, Namespace: []string{"ns"}, Name: fmt.Sprintf("t%d", i)}, Format: catalog.FormatLance})
			if err != nil {
				b.Fatal(err)
			}
			var vals []string
			var args []any
			for p := range points {
				vals = append(vals, "(?, ?, ?, ?, ?, ?)")
				args = append(args, tbl.ID, string(catalog.FormatLance), persist.Micros(t0.Add(time.Duration(p)*time.Hour+time.Duration(i)*time.Second)), p*100, p<<20, p+1)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO observation_points(object_id, format, observed_at, row_count, bytes, version) VALUES `+strings.Join(vals, ", "), args...); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, bk := range []struct {
		name   string
		tables int
	}{{"big", 1000}, {"small", 10}} {
		b.Run(fmt.Sprintf("tables=%d", bk.tables), func(b *testing.B) {
			var tot Totals
			for b.Loop() {
				if tot, err = s.BucketTotals(ctx, bk.name, 0, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			if tot.Observations != bk.tables*points || len(tot.Points) > MaxTotalSlots {
				b.Fatalf("%d observations, %d points", tot.Observations, len(tot.Points))
			}
			b.ReportMetric(float64(len(tot.Points)), "points")
		})
	}
}
