package warehouse

import (
	"testing"
	"time"
)

// dropObjects is the size of the table the drop benchmark deletes; the
// target is a drop of this many objects in at most 5 s.
const dropObjects = 10000

// BenchmarkS3DropTenThousandObjects times DeletePrefix of a table holding
// dropObjects objects on the real store (batched DeleteObjects).
func BenchmarkS3DropTenThousandObjects(b *testing.B) {
	w, _ := newS3(b)
	ctx := b.Context()
	var total time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		tbl := w.Root().MustJoin("b", "ns", "big.lance")
		if err := putMany(ctx, w, tbl, dropObjects); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		if err := w.DeletePrefix(ctx, tbl); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
		n++
	}
	b.ReportMetric(total.Seconds()/float64(n), "s/drop")
}
