package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/health"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/views"
)

// tablesPerPage is the namespace page's page size: enough to scan by eye,
// small enough that a page with observations stays quick.
const tablesPerPage = 50

// tablePageSizes are the page sizes the namespace page offers (?per=):
// its own 50, and longer pages for reading a big namespace through.
var tablePageSizes = []int{tablesPerPage, 200, 1000}

// parsePer reads ?per=; anything but an offered size is the default (0).
func parsePer(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("per"))
	if err != nil || n == tablesPerPage || !slices.Contains(tablePageSizes, n) {
		return 0
	}
	return n
}

// perPage is the rows a page of the list shows.
func (o listOrder) perPage() int {
	if o.Per > 0 {
		return o.Per
	}
	return tablesPerPage
}

// maxFilterLen bounds the ?q= filter; table names are at most 255 characters.
const maxFilterLen = 255

// ShowNamespace renders a namespace's tables, 50 a page or ?per=200 or 1000
// (keyset: ?after=NAME),
// with a name filter and a "needs attention" filter (?health=attention).
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
	since := renderedAt() // before the figures are read: a job ending while they are is caught up
	bucketName, nsName := r.PathValue("bucket"), r.PathValue("ns")
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
	after := r.URL.Query().Get("after")
	if len(after) > maxFilterLen {
		after = after[:maxFilterLen]
	}
	attention := r.URL.Query().Get("health") == "attention" && h.health != nil
	rt, err := h.Rights(ctx)
	if err != nil {
		return views.NamespaceView{}, err
	}
	// A user granted some tables here, not the namespace, gets those by
	// name (each read on its own); the sorted listings cover every table.
	allTables, grantedNames := rt.Tables(identity.Resource{Bucket: b.Name, Namespace: ns.Levels})
	ord := parseListOrder(r)
	ord.Per = parsePer(r)
	if h.health == nil || !allTables {
		ord.Order = health.Order{Key: health.SortName} // figures and health are not judged here: the catalog's order only
	}
	per := ord.perPage()

	v := views.NamespaceView{
		Page: h.page(r, ns.Name(), "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns.Name(), Query: q, QueryStart: catalog.NameFilterPrefix(q), After: after, Attention: attention, HealthShown: h.health != nil,
		CanDeclare:    b.Format != catalog.FormatIceberg,
		Properties:    namespaceProperties(ns, h.mayEditNamespace(r, ns)),
		AttentionHref: ord.link(listHref(b.Name, ns.Name(), q, "", true)), AllHref: ord.link(listHref(b.Name, ns.Name(), q, "", false)),
		Sort:   sortHeaders(ord, h.health != nil, func(o listOrder) string { return o.link(listHref(b.Name, ns.Name(), q, "", attention)) }),
		Sorted: !ord.byName(), SortKey: string(ord.Key), SortDesc: ord.Desc,
	}
	if !ord.byName() {
		_, v.After, _ = strings.Cut(after, "~") // the page says after which name, not the cursor
	}
	v.Per = ord.Per
	v.CanManage = h.canManage(r, safety.NamespaceResource(b.Name, ns.Levels))
	v.Protection = views.ProtectionView{What: "namespace", Action: views.NamespaceURL(b.Name, ns.Name()) + "/protect",
		Protected: ns.Protected(), CanManage: v.CanManage}
	opt := catalog.ListTablesOptions{NameFilter: q, IncludeDeclared: true}
	var tables []catalog.Table
	var next string
	switch {
	case !allTables:
		tables, next, v.Total, err = h.grantedTablesPage(r, b.Name, ns.Levels, grantedNames, q, after, attention, per)
	case !ord.byName():
		tables, next, v.Total, err = h.sortedPage(r, b.Name, ns.Levels, ord, q, attention, after)
	case attention:
		tables, next, v.Total, err = h.attentionPage(r, b.Name, ns.Levels, q, after, per)
	default:
		tables, next, v.Total, err = h.tablesPage(r, ns, opt, after, per)
	}
	if err != nil {
		return views.NamespaceView{}, err
	}
	children, _, err := h.store.ListChildNamespaces(ctx, ns, catalog.ListOptions{Limit: catalog.MaxPageSize})
	if err != nil {
		return views.NamespaceView{}, err
	}
	for _, c := range children {
		if rt.Visible(identity.Resource{Bucket: b.Name, Namespace: c.Levels}) {
			v.Children = append(v.Children, views.NamespaceRow{Name: c.Name(), CreatedAt: c.CreatedAt})
		}
	}
	for _, t := range tables {
		v.Tables = append(v.Tables, h.tableRow(t, h.plugin != nil && h.Can(ctx, identity.Maintain, tablePlace(t))))
	}
	if after != "" {
		v.FirstHref = ord.link(listHref(b.Name, ns.Name(), q, "", attention))
	}
	if next != "" {
		v.NextHref = ord.link(listHref(b.Name, ns.Name(), q, next, attention))
	}
	if h.Can(ctx, identity.Maintain, identity.Resource{Bucket: b.Name, Namespace: ns.Levels}) {
		v.BulkURL, v.Here = views.NamespaceURL(b.Name, ns.Name())+"/bulk", r.URL.RequestURI()
	}
	for _, n := range tablePageSizes {
		o := ord
		o.Per = n
		if n == tablesPerPage {
			o.Per = 0
		}
		v.PageSizes = append(v.PageSizes, views.PageSizeLink{Rows: n, Current: n == per, Href: o.link(listHref(b.Name, ns.Name(), q, after, attention))})
	}
	// A live list follows each of its tables by id; a longer page than the
	// default is a snapshot, and the page says so.
	v.Snapshot = per > tablesPerPage && h.plugin != nil && h.health != nil && len(tables) > 0
	if h.plugin != nil && h.health != nil && len(tables) > 0 && !v.Snapshot {
		sub := LiveSub{List: r.URL.RequestURI(), Since: since}
		for _, t := range tables {
			sub.Tables = append(sub.Tables, t.ID)
		}
		v.LiveURL = LiveURL(sub)
	}
	if v.Views, err = h.namespaceViews(ctx, ns); err != nil {
		return views.NamespaceView{}, err
	}
	return v, nil
}

// tablesPage is one page of the namespace's tables after the name after
// (keyset: the index seeks to it, so a deep page costs what the first
// does), the name the next page starts after ("" on the last) and the
// count of matching tables (without a filter, the count read with the
// namespace). An old ?page=N link still lands on its page.
func (h *Handlers) tablesPage(r *http.Request, namespace catalog.Namespace, opt catalog.ListTablesOptions, after string, per int) ([]catalog.Table, string, int, error) {
	ctx := r.Context()
	bucket, ns := namespace.Bucket, namespace.Levels
	total, err := namespace.TableCount, error(nil)
	if !opt.Unfiltered() {
		if total, err = h.store.CountTables(ctx, bucket, ns, opt); err != nil {
			return nil, "", 0, err
		}
	}
	if page, _ := strconv.Atoi(r.URL.Query().Get("page")); page > 1 && after == "" {
		page = min(page, max((total+per-1)/per, 1))
		if after, err = h.skipTables(r, bucket, ns, opt, (page-1)*per); err != nil {
			return nil, "", 0, err
		}
	}
	opt.ListOptions = catalog.ListOptions{After: after, Limit: per}
	tables, next, err := h.store.ListTables(ctx, bucket, ns, opt)
	return tables, next, total, err
}

// grantedTablesPage is tablesPage for a user who may read only some of the
// namespace's tables: those its grants name (names, sorted), each read,
// filtered by name and health as the page asks; the total counts only
// them, so the page says nothing of the others.
func (h *Handlers) grantedTablesPage(r *http.Request, bucket string, ns, names []string, q, after string, attention bool, per int) ([]catalog.Table, string, int, error) {
	var tables []catalog.Table
	next, total := "", 0
	for _, name := range names {
		if !catalog.NameFilterMatches(name, q) {
			continue
		}
		t, err := h.store.GetTable(r.Context(), catalog.TableRef{Bucket: bucket, Namespace: ns, Name: name})
		if errors.Is(err, fault.NotFound) {
			continue
		}
		if err != nil {
			return nil, "", 0, err
		}
		if attention && !h.health.Table(t.ID, t.Format, t.ModifiedAt).NeedsAttention() {
			continue
		}
		total++
		if name <= after {
			continue
		}
		if len(tables) == per {
			next = tables[len(tables)-1].Name
			continue
		}
		tables = append(tables, t)
	}
	return tables, next, total, nil
}

// attentionPage is tablesPage for the "needs attention" filter: health
// keeps each namespace's list of such tables (cached like the bucket sums),
// and the page's rows come from it without a read per table (the State
// shown is the stored one).
func (h *Handlers) attentionPage(r *http.Request, bucket string, ns []string, q, after string, per int) ([]catalog.Table, string, int, error) {
	keys, total, err := h.health.NeedingAttention(r.Context(), bucket, ns, q, after, per+1)
	if err != nil {
		return nil, "", 0, err
	}
	var next string
	if len(keys) > per {
		keys = keys[:per]
		next = keys[len(keys)-1].Name
	}
	tables := make([]catalog.Table, 0, len(keys))
	for _, k := range keys {
		tables = append(tables, catalog.Table{ID: k.ID, Bucket: bucket, Namespace: ns, Name: k.Name, Format: k.Format,
			State: k.State, CreatedAt: k.CreatedAt, ModifiedAt: k.ModifiedAt})
	}
	return tables, next, total, nil
}

// tableRow is one line of the namespace list: the catalog's entry, the
// observed figures and the health badge.
func (h *Handlers) tableRow(t catalog.Table, fix bool) views.TableRow {
	row := views.TableRow{Name: t.Name, Format: string(t.Format), Rows: h.rows(t), State: string(t.State), CreatedAt: t.CreatedAt}
	row.LastChange = t.ModifiedAt
	if h.health != nil {
		ov := h.health.Table(t.ID, t.Format, t.ModifiedAt)
		row.Health = healthBadge(ov.Report)
		whats := make([]string, 0, len(row.Health.Reasons))
		for _, x := range row.Health.Reasons {
			whats = append(whats, x.What)
		}
		row.Health.Whats = strings.Join(whats, ", ")
		row.Health.Reasons = nil // the list shows the whole sentences as the badge's title
		if ov.HasBytes {
			row.Size = health.Bytes(ov.Bytes)
		}
		row.Version, row.LastChange = ov.Version, ov.LastChange
		if jobs := ov.Jobs(); fix && ov.NeedsAttention() && len(jobs) > 0 {
			row.FixURL = views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name) + "/fix"
			row.FixConfirm = fixConfirm(jobs)
		}
	}
	return row
}

// skipTables finds the name cursor that starts at offset n; the catalog
// walks its index for it, so a deep page costs what the first one does.
func (h *Handlers) skipTables(r *http.Request, bucket string, ns []string, opt catalog.ListTablesOptions, n int) (string, error) {
	return h.store.SkipTables(r.Context(), bucket, ns, opt, n)
}

// listHref is a namespace list link: its name filter, the name the page
// starts after, and the health filter.
func listHref(bucket, ns, q, after string, attention bool) string {
	vals := url.Values{}
	if q != "" {
		vals.Set("q", q)
	}
	if after != "" {
		vals.Set("after", after)
	}
	if attention {
		vals.Set("health", "attention")
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
