package warehouse

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/floe/floe/internal/s3test"
)

// dropObjects is the size of the table the drop benchmark deletes; the
// target is a drop of this many objects in at most 5 s.
const dropObjects = 10000

// BenchmarkS3DropTenThousandObjects times DeletePrefix of a table holding
// dropObjects objects on the real store, and in the same run what the store
// itself costs: the CPU time weed spends on that drop (with C CPU-seconds
// of store work, no client gets a drop under C/cores), the time to list the
// prefix, and a plain SDK drop with no floe code (list, then 1000-key
// DeleteObjects one after another), the two in alternating order. Metrics: s/drop (floe), store-cpu-s,
// list-s, sdk-serial-s and floe/sdk-serial.
func BenchmarkS3DropTenThousandObjects(b *testing.B) {
	st := s3test.Require(b)
	w, be := newS3On(b, st, st.Bucket(b))
	ctx := b.Context()
	var drop, cpu, list, raw time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		tbl := w.Root().MustJoin("b", "ns", "big.lance")
		other := w.Root().MustJoin("b", "ns", "raw.lance")
		for _, t := range []Location{tbl, other} {
			if err := putMany(ctx, w, t, dropObjects); err != nil {
				b.Fatal(err)
			}
		}
		t0 := time.Now()
		if err := w.List(ctx, tbl, func(Entry) error { return nil }); err != nil {
			b.Fatal(err)
		}
		list += time.Since(t0)

		// The two drops alternate which goes first: the one right after
		// the writes meets the store still busy with their aftermath.
		floeDrop := func() {
			cpu0, err := st.CPUTime()
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			t0 := time.Now()
			if err := w.DeletePrefix(ctx, tbl); err != nil {
				b.Fatal(err)
			}
			drop += time.Since(t0)
			b.StopTimer()
			cpu1, _ := st.CPUTime()
			cpu += cpu1 - cpu0
		}
		sdkDrop := func() {
			t0 := time.Now()
			if err := sdkSerialDrop(ctx, be.client, other); err != nil {
				b.Fatal(err)
			}
			raw += time.Since(t0)
		}
		if n%2 == 0 {
			floeDrop()
			sdkDrop()
		} else {
			sdkDrop()
			floeDrop()
		}
		n++
		b.StartTimer()
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	b.ReportMetric(per(drop), "s/drop")
	b.ReportMetric(per(cpu), "store-cpu-s")
	b.ReportMetric(per(list), "list-s")
	b.ReportMetric(per(raw), "sdk-serial-s")
	b.ReportMetric(drop.Seconds()/raw.Seconds(), "floe/sdk-serial")
}

// sdkSerialDrop is the plain way to empty a prefix with the SDK: list it,
// then DeleteObjects 1000 keys at a time, one call after another.
func sdkSerialDrop(ctx context.Context, c *s3.Client, prefix Location) error {
	var keys []types.ObjectIdentifier
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(prefix.Bucket()), Prefix: aws.String(prefix.Path() + "/")})
	for p.HasMorePages() {
		pg, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range pg.Contents {
			keys = append(keys, types.ObjectIdentifier{Key: o.Key})
		}
	}
	for i := 0; i < len(keys); i += s3ListPage {
		if _, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(prefix.Bucket()),
			Delete: &types.Delete{Objects: keys[i:min(i+s3ListPage, len(keys))], Quiet: aws.Bool(true)}}); err != nil {
			return err
		}
	}
	return nil
}
