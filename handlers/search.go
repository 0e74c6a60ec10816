package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

const (
	// searchListHits is how many hits the list under the search box shows:
	// a glance, with a link to the page for the rest.
	searchListHits = 8
	// searchPageHits is the results page's length (the catalog's cap).
	searchPageHits = catalog.MaxSearchLimit
)

// Search answers the search box: the results list when htmx asks for it
// (as the user types), the full results page otherwise (Enter, a link).
// Hits are every bucket, namespace, table and view the signed-in user may
// see, as the authorizer says (Rights).
func (h *Handlers) Search(w http.ResponseWriter, r *http.Request) {
	q, _ := catalog.NormalizeSearch(r.URL.Query().Get("q"))
	list := isHTMX(r) && r.Header.Get("HX-Target") == "search-results"
	v := views.SearchView{Query: q, AllHref: "/search?q=" + url.QueryEscape(q)}
	limit := searchPageHits
	if list {
		limit = searchListHits
	} else {
		v.Page = h.page(r, "Search", "")
	}
	if q != "" {
		rt, err := h.Rights(r.Context())
		if err != nil {
			h.fail(w, r, err)
			return
		}
		// Only buckets the user holds something in are searched; within
		// them a hit shows only when the user may see it (a grant on one
		// table of a namespace shows that table, not its neighbours). Such
		// a user's hits are asked for in full and then cut, so filtering
		// does not leave the list short.
		all, scope := rt.Children(identity.Resource{})
		opt := catalog.SearchOptions{Limit: limit}
		if !all {
			opt.Buckets, opt.Limit = append([]string{}, scope...), catalog.MaxSearchLimit
		}
		hits, more, err := h.store.Search(r.Context(), q, opt)
		var fe *fault.Error
		switch {
		case errors.As(err, &fe) && fe.Kind == fault.Invalid:
			v.Note = "No name holds a /, a $ or a non-printing character, so nothing matches “" + q + "”."
		case err != nil:
			h.fail(w, r, err)
			return
		}
		if !all {
			hits = slices.DeleteFunc(hits, func(x catalog.SearchHit) bool { return !rt.Visible(hitPlace(x)) })
			if len(hits) > limit {
				hits, more = hits[:limit], true
			}
		}
		v.More = more
		for _, x := range hits {
			v.Hits = append(v.Hits, searchHit(x))
		}
	}
	if list {
		h.render(w, r, http.StatusOK, views.SearchResults(v))
		return
	}
	h.render(w, r, http.StatusOK, views.SearchPage(v))
}

// hitPlace is what a hit names, as the authorizer knows places.
func hitPlace(x catalog.SearchHit) identity.Resource {
	switch x.Kind {
	case catalog.SearchBucket:
		return identity.Resource{Bucket: x.Bucket}
	case catalog.SearchNamespace:
		return identity.Resource{Bucket: x.Bucket, Namespace: x.Namespace}
	}
	return identity.Resource{Bucket: x.Bucket, Namespace: x.Namespace, Table: x.Name}
}

func searchHit(x catalog.SearchHit) views.SearchHit {
	ns := catalog.JoinNamespace(x.Namespace)
	h := views.SearchHit{Kind: string(x.Kind), Name: x.Name, Format: string(x.Format), Badge: x.Kind != catalog.SearchNamespace}
	switch x.Kind {
	case catalog.SearchBucket:
		h.Href = views.BucketURL(x.Bucket)
	case catalog.SearchNamespace:
		h.Href, h.Where = views.NamespaceURL(x.Bucket, ns), x.Bucket
	case catalog.SearchTable:
		h.Href, h.Where = views.TableURL(x.Bucket, ns, x.Name), x.Bucket+" / "+ns
	case catalog.SearchView:
		h.Href, h.Where = views.ViewURL(x.Bucket, ns, x.Name), x.Bucket+" / "+ns
	}
	return h
}
