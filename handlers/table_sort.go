package handlers

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/health"
	"github.com/floe/floe/views"
)

// listOrder is a list's sort column and direction as its URL carries them
// (?sort=rows&dir=desc), so a sorted page survives a reload and a link.
type listOrder struct {
	health.Order
}

// parseListOrder reads ?sort= and ?dir=; anything unknown is the default
// (name, ascending), as an old or mistyped link still lands on the list.
func parseListOrder(r *http.Request) listOrder {
	q := r.URL.Query()
	k, ok := health.ParseSortKey(q.Get("sort"))
	if !ok {
		k = health.SortName
	}
	return listOrder{health.Order{Key: k, Desc: q.Get("dir") == "desc"}}
}

// byName is the catalog's own order (the name index), which needs no
// judged list.
func (o listOrder) byName() bool { return o.Key == health.SortName && !o.Desc }

// set writes the order into a link's query, leaving the default out.
func (o listOrder) set(vals url.Values) {
	if o.Key != health.SortName {
		vals.Set("sort", string(o.Key))
	}
	if o.Desc {
		vals.Set("dir", "desc")
	}
}

// link adds the order to a list link built without it.
func (o listOrder) link(href string) string {
	vals := url.Values{}
	o.set(vals)
	if len(vals) == 0 {
		return href
	}
	sep := "?"
	if strings.Contains(href, "?") {
		sep = "&"
	}
	return href + sep + vals.Encode()
}

// sortHeaders are a list's column headers: each links to its order (the
// other direction when it is the current one; names ascend first, figures
// descend first, as the biggest or worst is what one sorts to find).
// base builds the list's link for an order, without a page position.
func sortHeaders(cur listOrder, sortable bool, base func(listOrder) string) views.SortHeaders {
	head := func(k health.SortKey, label string) views.SortHeader {
		h := views.SortHeader{Key: string(k), Label: label}
		if !sortable && k != health.SortName {
			return h
		}
		next := listOrder{health.Order{Key: k, Desc: k != health.SortName}}
		if cur.Key == k {
			h.Current, h.Desc = true, cur.Desc
			next.Desc = !cur.Desc
		}
		h.Href = base(next)
		return h
	}
	return views.SortHeaders{Name: head(health.SortName, "Name"), Rows: head(health.SortRows, "Rows"), Size: head(health.SortSize, "Size"),
		Changed: head(health.SortChanged, "Last change"), Health: head(health.SortHealth, "Health")}
}

// sortedPage is tablesPage for any order but the catalog's own: a page of
// health's judged, sorted list of the namespace (cached; see
// health.SortedTables). The rows carry the stored state, as the attention
// filter's do.
func (h *Handlers) sortedPage(r *http.Request, bucket string, ns []string, o listOrder, q string, attention bool, after string) ([]catalog.Table, string, int, error) {
	page, next, total, err := h.health.SortedTables(r.Context(), bucket, ns, o.Order, health.ListFilter{Contains: q, Attention: attention}, after, tablesPerPage)
	if err != nil {
		return nil, "", 0, err
	}
	tables := make([]catalog.Table, 0, len(page))
	for _, k := range page {
		tables = append(tables, catalog.Table{ID: k.ID, Bucket: bucket, Namespace: ns, Name: k.Name, Format: k.Format,
			State: k.State, CreatedAt: k.CreatedAt, ModifiedAt: k.ModifiedAt})
	}
	return tables, next, total, nil
}
