package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// tablesPerPage is the namespace page's page size: enough to scan by eye,
// small enough that a page with observations stays quick.
const tablesPerPage = 50

// maxFilterLen bounds the ?q= filter; table names are at most 255 characters.
const maxFilterLen = 255

// ShowNamespace renders a namespace's tables, 50 a page, with a name filter.
func (h *Handlers) ShowNamespace(w http.ResponseWriter, r *http.Request) {
	v, err := h.namespaceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.NamespacePage(v))
}

func (h *Handlers) namespaceView(r *http.Request) (views.NamespaceView, error) {
	ctx := r.Context()
	bucketName, nsName := chi.URLParam(r, "bucket"), chi.URLParam(r, "ns")
	b, err := h.store.GetBucket(ctx, bucketName)
	if err != nil {
		return views.NamespaceView{}, err
	}
	levels := catalog.SplitNamespace(nsName)
	ns, err := h.store.GetNamespace(ctx, b.Name, levels)
	if err != nil {
		return views.NamespaceView{}, err
	}
	q := r.URL.Query().Get("q")
	if len(q) > maxFilterLen {
		q = q[:maxFilterLen]
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)

	opt := catalog.ListTablesOptions{NameContains: q, IncludeDeclared: true}
	total, err := h.store.CountTables(ctx, b.Name, ns.Levels, opt)
	if err != nil {
		return views.NamespaceView{}, err
	}
	pages := max((total+tablesPerPage-1)/tablesPerPage, 1)
	page = min(page, pages)
	after, err := h.skipTables(r, b.Name, ns.Levels, opt, (page-1)*tablesPerPage)
	if err != nil {
		return views.NamespaceView{}, err
	}
	opt.ListOptions = catalog.ListOptions{After: after, Limit: tablesPerPage}
	tables, _, err := h.store.ListTables(ctx, b.Name, ns.Levels, opt)
	if err != nil {
		return views.NamespaceView{}, err
	}
	children, _, err := h.store.ListNamespaces(ctx, b.Name, ns.Levels, catalog.ListOptions{Limit: catalog.MaxPageSize})
	if err != nil {
		return views.NamespaceView{}, err
	}

	v := views.NamespaceView{
		Page: h.page(r, ns.Name(), "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns.Name(), Total: total, Query: q,
		CanDeclare: b.Format != catalog.FormatIceberg,
	}
	for _, c := range children {
		v.Children = append(v.Children, views.NamespaceRow{Name: c.Name(), CreatedAt: c.CreatedAt})
	}
	for _, t := range tables {
		v.Tables = append(v.Tables, views.TableRow{
			Name: t.Name, Format: string(t.Format), Rows: h.rows(t), State: string(t.State), CreatedAt: t.CreatedAt,
		})
	}
	if v.Views, err = h.namespaceViews(ctx, b.Name, ns.Levels); err != nil {
		return views.NamespaceView{}, err
	}
	for i := 1; i <= pages && pages > 1; i++ {
		v.Pages = append(v.Pages, views.PageLink{Number: i, Current: i == page, Href: pageHref(b.Name, ns.Name(), q, i)})
	}
	return v, nil
}

// skipTables finds the name cursor that starts at offset n; the catalog
// walks its index for it, so a deep page costs what the first one does.
func (h *Handlers) skipTables(r *http.Request, bucket string, ns []string, opt catalog.ListTablesOptions, n int) (string, error) {
	return h.store.SkipTables(r.Context(), bucket, ns, opt, n)
}

func pageHref(bucket, ns, q string, page int) string {
	vals := url.Values{}
	if q != "" {
		vals.Set("q", q)
	}
	if page > 1 {
		vals.Set("page", strconv.Itoa(page))
	}
	u := views.NamespaceURL(bucket, ns)
	if len(vals) > 0 {
		u += "?" + vals.Encode()
	}
	return u
}

// rows is the Rows cell: the observed count, or a dash when nothing has looked.
func (h *Handlers) rows(t catalog.Table) string {
	if h.stats == nil {
		return "—"
	}
	st, ok := h.stats.TableStats(t.ID, t.Format)
	if !ok {
		return "—"
	}
	return groupDigits(st.Rows)
}

func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
