package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/health"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// bucketsPerPage is the buckets page's page size (keyset: ?after=NAME);
// each row is a few cells, and 100 fit on a screen or two.
const bucketsPerPage = 100

// ListBuckets renders /buckets.
func (h *Handlers) ListBuckets(w http.ResponseWriter, r *http.Request) {
	v, err := h.bucketsView(r, h.newBucketForm(r, "", ""))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.BucketsPage(v))
}

func (h *Handlers) bucketsView(r *http.Request, form views.CreateBucketForm) (views.BucketsView, error) {
	after := r.URL.Query().Get("after")
	if len(after) > maxFilterLen {
		after = after[:maxFilterLen]
	}
	ord := parseOrderOf(r, bucketSortKeys)
	v := views.BucketsView{Page: h.page(r, "Buckets", "buckets"), Form: form, NoneServed: h.surfaces.Lance == "" && h.surfaces.Iceberg == "",
		Sort: bucketHeaders(ord, h.health != nil)}
	var sums map[string]health.BucketSummary
	var err error
	if h.health != nil {
		v.HealthShown = true
		// Cached sums over every table; a failure leaves dashes, not an error page.
		if sums, err = h.health.Buckets(r.Context()); err != nil {
			h.log.Warn("bucket health sums", "err", err)
		}
	}
	items, next, err := h.bucketPage(r, ord, after, sums)
	if err != nil {
		return views.BucketsView{}, err
	}
	deleted, err := h.store.ListDeletedBuckets(r.Context())
	if err != nil {
		return views.BucketsView{}, err
	}
	var counts map[string]int
	if len(deleted) > 0 {
		if counts, err = h.store.CountDeletedTablesOfDeletedBuckets(r.Context()); err != nil {
			return views.BucketsView{}, err
		}
	}
	for _, b := range deleted {
		base := views.BucketURL(b.Name)
		v.DeletedBuckets = append(v.DeletedBuckets, views.DeletedBucketRow{Name: b.Name, Format: string(b.Format), DeletedAt: b.DeletedAt,
			Tables: counts[b.Name], UndropURL: base + "/undrop", PurgeURL: base + "/purge"})
	}
	for _, b := range items {
		row := views.BucketRow{
			Name: b.Name, Format: string(b.Format), Endpoint: h.endpointFor(r, b.Format, b.Name),
			TableCount: b.TableCount, CreatedAt: b.CreatedAt,
		}
		if s, ok := sums[b.Name]; ok {
			row.Health = &views.BucketHealth{Rows: "—", Size: "—", NeedsAttention: s.NeedingAttention(), Observed: s.Observed}
			if s.Observed > 0 {
				row.Health.Rows, row.Health.Size = health.Group(s.Rows), health.Bytes(s.Bytes)
			}
		} else if sums != nil {
			row.Health = &views.BucketHealth{Rows: "—", Size: "—"}
		}
		v.Buckets = append(v.Buckets, row)
	}
	if after != "" {
		v.FirstHref = bucketsHref(ord, "")
	}
	if next != "" {
		v.NextHref = bucketsHref(ord, next)
	}
	return v, nil
}

// formatOptions builds the two format cards. A format whose catalog is not
// running cannot be picked; when only one is served it is preselected.
func (h *Handlers) formatOptions(selected string) []views.FormatOption {
	lanceOn, iceOn := h.surfaces.Lance != "", h.surfaces.Iceberg != ""
	if selected == "" {
		switch {
		case lanceOn && !iceOn:
			selected = string(catalog.FormatLance)
		case iceOn && !lanceOn:
			selected = string(catalog.FormatIceberg)
		}
	}
	return []views.FormatOption{
		{Value: string(catalog.FormatLance), Label: "Lance", Engines: "LanceDB, pylance, lance-spark, lance-ray",
			Disabled: !lanceOn, Reason: "The Lance catalog is not running; start floe with --lance to serve it.",
			Checked: lanceOn && selected == string(catalog.FormatLance)},
		{Value: string(catalog.FormatIceberg), Label: "Iceberg", Engines: "Spark, Trino, DuckDB, PyIceberg",
			Disabled: !iceOn, Reason: "The Iceberg catalog is not running; start floe with --iceberg to serve it.",
			Checked: iceOn && selected == string(catalog.FormatIceberg)},
	}
}

func (h *Handlers) newBucketForm(r *http.Request, name, format string) views.CreateBucketForm {
	opts := h.formatOptions(format)
	for _, o := range opts {
		if o.Checked {
			format = o.Value
		}
	}
	return views.CreateBucketForm{Name: name, Format: format, Formats: opts, Hint: h.hint(r, name, format)}
}

// hint says where clients will find a bucket with this name and format.
func (h *Handlers) hint(r *http.Request, name, format string) views.EndpointHint {
	hint := views.EndpointHint{Name: name, Format: format}
	f, err := catalog.ParseFormat(format)
	switch {
	case format == "" || err != nil:
		hint.Message = "Pick a format to see the endpoint clients will use."
	case name == "":
		hint.Message = "Type a name to see the endpoint clients will use."
	case catalog.ValidateBucketName(name) != nil:
		hint.Message = "“" + name + "” cannot be a bucket name: " + catalog.ValidateBucketName(name).Error() + "."
	default:
		hint.Endpoint = h.endpointFor(r, f, name)
		if hint.Endpoint == "" {
			hint.Message = "That format's catalog is not running, so clients could not reach the bucket."
		}
	}
	return hint
}

// EndpointHint is the htmx fragment under the format cards.
func (h *Handlers) EndpointHint(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	h.render(w, r, http.StatusOK, views.EndpointHintView(h.hint(r, q.Get("name"), q.Get("format"))))
}

// maxBucketsListed bounds the bucket pickers (API keys, Connect): a console
// listing more is a different product (search).
const maxBucketsListed = catalog.MaxPageSize

func (h *Handlers) allBuckets(ctx context.Context) ([]catalog.Bucket, error) {
	items, _, err := h.store.ListBuckets(ctx, catalog.ListOptions{Limit: maxBucketsListed})
	if err != nil {
		return nil, err
	}
	rt, err := h.Rights(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(items, func(b catalog.Bucket) bool { return !rt.Visible(identity.Resource{Bucket: b.Name}) }), nil
}

// visibleBuckets is one page of the buckets the user may see, after the
// name after: the catalog's page when it may read everything, else the
// buckets its grants lie in, each read; next names the last one shown.
func (h *Handlers) visibleBuckets(r *http.Request, after string) ([]catalog.Bucket, string, error) {
	rt, err := h.Rights(r.Context())
	if err != nil {
		return nil, "", err
	}
	all, names := rt.Children(identity.Resource{})
	if all {
		return h.store.ListBuckets(r.Context(), catalog.ListOptions{After: after, Limit: bucketsPerPage})
	}
	var out []catalog.Bucket
	for _, name := range names {
		if name <= after {
			continue
		}
		if len(out) == bucketsPerPage {
			return out, out[len(out)-1].Name, nil
		}
		b, err := h.store.GetBucket(r.Context(), name)
		if errors.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		out = append(out, b)
	}
	return out, "", nil
}
