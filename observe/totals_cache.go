package observe

import (
	"context"
	"sync"
	"time"
)

// A bucket's totals read every kept point of the bucket
// (BenchmarkBucketTotals): a bucket of 1,000 observed tables costs most of
// a second. A sum that took long is reused for totalsReuse times what it
// took, at most TotalsMaxAge, so summing takes at most about a twentieth of
// the time of a bucket viewed without pause; a chart spanning the retention
// (days to months) gains nothing from a fresher one. A sum quicker than
// totalsCheap is made anew on every view, so small buckets are exact.
const (
	TotalsMaxAge = time.Minute
	totalsReuse  = 20
	totalsCheap  = 50 * time.Millisecond
)

// maxCachedTotals bounds the buckets whose totals are remembered.
const maxCachedTotals = 1024

// totalsCache remembers each bucket's last totals. Viewers of one bucket
// whose totals are due wait for one sum rather than each making their own.
type totalsCache struct {
	mu      sync.Mutex
	buckets map[string]*cachedTotals
}

type cachedTotals struct {
	mu   sync.Mutex // held while the sum is made: later viewers wait and reuse it
	at   time.Time
	took time.Duration
	tot  Totals
	ok   bool
}

// RecentBucketTotals is BucketTotals (MaxTotalSlots points) summed at most
// once per TotalsMaxAge per bucket; at says when the answer was summed.
func (s *Store) RecentBucketTotals(ctx context.Context, bucket string, now time.Time) (tot Totals, at time.Time, err error) {
	c := &s.totals
	c.mu.Lock()
	if c.buckets == nil {
		c.buckets = map[string]*cachedTotals{}
	}
	e := c.buckets[bucket]
	if e == nil {
		if len(c.buckets) >= maxCachedTotals {
			clear(c.buckets)
		}
		e = &cachedTotals{}
		c.buckets[bucket] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if age := now.Sub(e.at); e.ok && e.took >= totalsCheap && age >= 0 && age < min(TotalsMaxAge, totalsReuse*e.took) {
		return e.tot, e.at, nil
	}
	start := time.Now()
	tot, err = s.BucketTotals(ctx, bucket, 0, now)
	if err != nil {
		return Totals{}, time.Time{}, err
	}
	e.tot, e.at, e.took, e.ok = tot, now, time.Since(start), true
	return tot, now, nil
}
