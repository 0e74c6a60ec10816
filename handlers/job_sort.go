package handlers

import (
	"net/url"
	"slices"

	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// parseJobOrder reads the jobs list's ?sort= (created, updated, type) and
// ?dir= (asc, desc); the default is newest first. Type sorts A–Z unless
// dir=desc; the times newest first unless dir=asc.
func parseJobOrder(q url.Values) plugin.JobOrder {
	k := plugin.JobSortKey(q.Get("sort"))
	if !slices.Contains(plugin.JobSortKeys, k) {
		k = plugin.JobByCreated
	}
	o := plugin.JobOrder{Key: k, Asc: k == plugin.JobByType}
	switch q.Get("dir") {
	case "asc":
		o.Asc = true
	case "desc":
		o.Asc = false
	}
	return o
}

// setJobOrder writes o into a jobs link's query, leaving the default out.
func setJobOrder(vals url.Values, o plugin.JobOrder) {
	if o == (plugin.JobOrder{Key: plugin.JobByCreated}) {
		return
	}
	vals.Set("sort", string(o.Key))
	if o.Asc {
		vals.Set("dir", "asc")
	} else {
		vals.Set("dir", "desc")
	}
}

// jobHeaders link the jobs list's sortable headers, keeping the filters.
func jobHeaders(cur plugin.JobOrder, filter url.Values) views.JobSortHeaders {
	head := func(k plugin.JobSortKey, label string) views.SortHeader {
		h := views.SortHeader{Key: string(k), Label: label}
		next := plugin.JobOrder{Key: k, Asc: k == plugin.JobByType}
		if cur.Key == k {
			h.Current, h.Desc = true, !cur.Asc
			next.Asc = !cur.Asc
		}
		vals := url.Values{}
		for key, v := range filter {
			vals[key] = v
		}
		setJobOrder(vals, next)
		h.Href = "/jobs"
		if len(vals) > 0 {
			h.Href += "?" + vals.Encode()
		}
		return h
	}
	return views.JobSortHeaders{Type: head(plugin.JobByType, "Type"), Created: head(plugin.JobByCreated, "Created"),
		Updated: head(plugin.JobByUpdated, "Updated")}
}
