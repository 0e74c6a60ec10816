package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/health"
	"github.com/floe/floe/views"
)

// listOrder is a list's sort column and direction as its URL carries them
// (?sort=rows&dir=desc), so a sorted page survives a reload and a link.
type listOrder struct {
	health.Order
	// Per is the rows a page shows when the list lets one choose (the
	// namespace page's ?per=); 0 is the list's own size, left out of links.
	Per int
}

// parseListOrder reads ?sort= and ?dir= of a table list; anything unknown
// is the default (name, ascending), as an old or mistyped link still
// lands on the list.
func parseListOrder(r *http.Request) listOrder { return parseOrderOf(r, health.SortKeys) }

// parseOrderOf is parseListOrder for a list whose sortable columns are keys.
func parseOrderOf(r *http.Request, keys []health.SortKey) listOrder {
	q := r.URL.Query()
	k := health.SortKey(q.Get("sort"))
	if !slices.Contains(keys, k) {
		k = health.SortName
	}
	return listOrder{Order: health.Order{Key: k, Desc: q.Get("dir") == "desc"}}
}

// columnHeader is one sortable header of any list: a link to its order,
// the other direction when it is the current one (names ascend first,
// figures descend first, as the biggest, newest or worst is what one
// sorts to find).
func columnHeader(cur listOrder, k health.SortKey, label string, base func(listOrder) string) views.SortHeader {
	h := views.SortHeader{Key: string(k), Label: label}
	next := listOrder{Order: health.Order{Key: k, Desc: k != health.SortName}, Per: cur.Per}
	if cur.Key == k {
		h.Current, h.Desc = true, cur.Desc
		next.Desc = !cur.Desc
	}
	h.Href = base(next)
	return h
}

// pageOf is a page of rows already in memory, in order o: the first limit
// after the cursor after, and the next page's cursor. pos gives a row's
// position; rows is sorted here.
func pageOf[T any](rows []T, o listOrder, after string, limit int, pos func(*T) health.Position) ([]T, string, error) {
	slices.SortFunc(rows, func(a, b T) int { return health.ComparePositions(o.Order, pos(&a), pos(&b)) })
	start := 0
	if after != "" {
		from, err := health.ParseCursor(after)
		if err != nil {
			return nil, "", err
		}
		start, _ = slices.BinarySearchFunc(rows, from, func(r T, p health.Position) int {
			if health.ComparePositions(o.Order, pos(&r), p) <= 0 {
				return -1
			}
			return 1
		})
	}
	end := min(start+limit, len(rows))
	page, next := rows[start:end], ""
	if end < len(rows) && len(page) > 0 {
		next = pos(&page[len(page)-1]).Cursor()
	}
	return page, next, nil
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
	if o.Per > 0 {
		vals.Set("per", strconv.Itoa(o.Per))
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

// sortHeaders are a table list's column headers (see columnHeader); base
// builds the list's link for an order, without a page position.
func sortHeaders(cur listOrder, sortable bool, base func(listOrder) string) views.SortHeaders {
	head := func(k health.SortKey, label string) views.SortHeader {
		if !sortable && k != health.SortName {
			return views.SortHeader{Key: string(k), Label: label}
		}
		return columnHeader(cur, k, label, base)
	}
	return views.SortHeaders{Name: head(health.SortName, "Name"), Rows: head(health.SortRows, "Rows"), Size: head(health.SortSize, "Size"),
		Changed: head(health.SortChanged, "Last change"), Health: head(health.SortHealth, "Health")}
}

// sortedPage is tablesPage for any order but the catalog's own: a page of
// health's judged, sorted list of the namespace (cached; see
// health.SortedTables). The rows carry the stored state, as the attention
// filter's do.
func (h *Handlers) sortedPage(r *http.Request, bucket string, ns []string, o listOrder, q string, attention bool, after string) ([]catalog.Table, string, int, error) {
	page, next, total, err := h.health.SortedTables(r.Context(), bucket, ns, o.Order, health.ListFilter{Name: q, Attention: attention}, after, o.perPage())
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
