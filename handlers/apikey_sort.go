package handlers

import (
	"net/http"
	"slices"

	"github.com/floe/floe/health"
	"github.com/floe/floe/views"
)

// keySortKeys are the API keys list's sortable columns.
var keySortKeys = []health.SortKey{health.SortName, health.SortCreated, health.SortUsed}

// sortKeyRows orders the keys list as ?sort=&dir= ask (without ?sort= the
// store's order stays: newest first) and links the column headers. The
// list is one page, so the sort is in memory.
func sortKeyRows(r *http.Request, v *views.APIKeysView) {
	ord := parseOrderOf(r, keySortKeys)
	chosen := r.URL.Query().Get("sort") != ""
	base := func(o listOrder) string { return o.link("/api-keys") }
	cur := ord
	if !chosen {
		cur = listOrder{Order: health.Order{Key: "-"}} // no header is current
	}
	v.Sort = views.SortHeaders{Name: columnHeader(cur, health.SortName, "Name", base),
		Created: columnHeader(cur, health.SortCreated, "Created", base), Used: columnHeader(cur, health.SortUsed, "Last used", base)}
	if !chosen {
		return
	}
	pos := func(k views.APIKeyRow) health.Position {
		p := health.Position{Name: k.Name + "\x00" + k.ID, Known: true}
		switch ord.Key {
		case health.SortCreated:
			p.Value = k.CreatedAt.UnixMicro()
		case health.SortUsed:
			p.Value, p.Known = k.LastUsedAt.UnixMicro(), !k.LastUsedAt.IsZero()
		}
		return p
	}
	slices.SortStableFunc(v.Keys, func(a, b views.APIKeyRow) int { return health.ComparePositions(ord.Order, pos(a), pos(b)) })
}
