package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/health"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// bucketSortKeys are the buckets list's sortable columns.
var bucketSortKeys = []health.SortKey{health.SortName, health.SortTables, health.SortRows, health.SortSize, health.SortHealth, health.SortCreated}

// maxSortedBuckets bounds the buckets read to sort by a figure: every
// bucket is read and sorted in memory (the figures are health's cached
// sums, not columns), and a console with more is past what a list serves.
const maxSortedBuckets = 10 * catalog.MaxPageSize

// everyBucket reads up to maxSortedBuckets buckets, page by page.
func (h *Handlers) everyBucket(ctx context.Context) ([]catalog.Bucket, error) {
	var all []catalog.Bucket
	after := ""
	for len(all) < maxSortedBuckets {
		items, next, err := h.store.ListBuckets(ctx, catalog.ListOptions{After: after, Limit: catalog.MaxPageSize})
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == "" {
			break
		}
		after = next
	}
	return all, nil
}

// bucketPosition is a bucket's place in an order by a figure; sums nil or
// a bucket nothing observed leaves rows and size unknown.
func bucketPosition(b *catalog.Bucket, k health.SortKey, sums map[string]health.BucketSummary) health.Position {
	p := health.Position{Name: b.Name, Known: true}
	s, ok := sums[b.Name]
	switch k {
	case health.SortTables:
		p.Value = int64(b.TableCount)
	case health.SortRows:
		p.Value, p.Known = s.Rows, ok && s.Observed > 0
	case health.SortSize:
		p.Value, p.Known = s.Bytes, ok && s.Observed > 0
	case health.SortHealth:
		p.Value, p.Known = int64(s.NeedingAttention()), ok
	case health.SortCreated:
		p.Value = b.CreatedAt.UnixMicro()
	}
	return p
}

// bucketHeaders are the buckets list's column headers.
func bucketHeaders(cur listOrder, figures bool) views.SortHeaders {
	base := func(o listOrder) string { return o.link("/buckets") }
	hs := views.SortHeaders{Name: columnHeader(cur, health.SortName, "Name", base),
		Tables:  columnHeader(cur, health.SortTables, "Tables", base),
		Created: columnHeader(cur, health.SortCreated, "Created", base)}
	if figures {
		hs.Rows = columnHeader(cur, health.SortRows, "Rows", base)
		hs.Size = columnHeader(cur, health.SortSize, "Size", base)
		hs.Health = columnHeader(cur, health.SortHealth, "Need attention", base)
		hs.Health.Title = "Tables in attention or needing maintenance"
	}
	return hs
}

// bucketPage is a page of the buckets list in ord, after the cursor after
// (a name in the catalog's own order, a position otherwise).
func (h *Handlers) bucketPage(r *http.Request, ord listOrder, after string, sums map[string]health.BucketSummary) ([]catalog.Bucket, string, error) {
	if ord.byName() {
		return h.visibleBuckets(r, after)
	}
	all, err := h.everyBucket(r.Context())
	if err != nil {
		return nil, "", err
	}
	rt, err := h.Rights(r.Context())
	if err != nil {
		return nil, "", err
	}
	all = slices.DeleteFunc(all, func(b catalog.Bucket) bool { return !rt.Visible(identity.Resource{Bucket: b.Name}) })
	return pageOf(all, ord, after, bucketsPerPage, func(b *catalog.Bucket) health.Position { return bucketPosition(b, ord.Key, sums) })
}

// bucketsHref is a buckets list link in ord starting after after.
func bucketsHref(ord listOrder, after string) string {
	vals := url.Values{}
	if after != "" {
		vals.Set("after", after)
	}
	ord.set(vals)
	if len(vals) == 0 {
		return "/buckets"
	}
	return "/buckets?" + vals.Encode()
}
