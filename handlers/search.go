package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
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
// read; until grants exist that is everything (searchScope).
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
		hits, more, err := h.store.Search(r.Context(), q, catalog.SearchOptions{Limit: limit, Buckets: h.searchScope(r)})
		var fe *fault.Error
		switch {
		case errors.As(err, &fe) && fe.Kind == fault.Invalid:
			v.Note = "Names hold only lower-case letters, digits, _ and - (namespace levels are joined by .), so nothing matches “" + q + "”."
		case err != nil:
			h.fail(w, r, err)
			return
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

// searchScope is the buckets the user may search (nil = all). Console
// users read every bucket today; the authorizer's read scope goes here.
func (h *Handlers) searchScope(*http.Request) []string { return nil }

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
