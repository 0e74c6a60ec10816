package handlers

import (
	"context"
	"strconv"
	"time"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

var bucketTrendTitles = trendTitles{rows: "Total rows over time", bytes: "Total size over time"}

// bucketTrendView is the bucket page's totals panel, or nil without an
// observation store. The totals come from one aggregate query with time
// slots (observe.BucketTotals), not from a read per table, summed at most
// once a minute per bucket (observe.RecentBucketTotals): that sum reads
// every kept point of the bucket.
func (h *Handlers) bucketTrendView(ctx context.Context, b catalog.Bucket, rt authz.Rights) *views.TrendView {
	if h.observe == nil {
		return nil
	}
	ret := h.observe.HistoryRetention()
	v := &views.TrendView{TestID: "bucket-trends", Heading: "Totals over time", Off: ret <= 0, Retention: retentionText(ret)}
	if v.Off {
		return v
	}
	// Sums over tables the reader may not see would tell of them.
	if !rt.Can(identity.Read, identity.Resource{Bucket: b.Name}) {
		v.Error = "The totals cover every table in this bucket, so they are shown to those who may read all of it."
		return v
	}
	now := time.Now()
	tot, _, err := h.observe.RecentBucketTotals(ctx, b.Name, now)
	if err != nil {
		h.log.Warn("reading a bucket's kept observations", "bucket", b.Name, "err", err)
		v.Error = "The kept observations could not be read just now; reload to try again."
		return v
	}
	v.Kept = tot.Observations
	if v.Kept < 2 {
		v.Empty = "No observations kept yet for two points in time (" + strconv.Itoa(v.Kept) + " so far). floe keeps one each time a worker sees a table's rows or size change, for " +
			v.Retention + "; the charts add up this bucket's tables once there are two."
		return v
	}
	v.Note = "The sum of this bucket's " + strconv.Itoa(tot.Tables) + " observed table" + plural(tot.Tables) + ", from " + strconv.Itoa(v.Kept) +
		" kept observations (for " + v.Retention + "); each table's value holds until its next change."
	v.Charts = trendCharts(tot.Points, now, bucketTrendTitles)
	return v
}
