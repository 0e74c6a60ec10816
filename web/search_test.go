package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func hitLinks(r response) []string {
	var out []string
	r.doc.Find(`[data-testid="search-hit-link"]`).Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		out = append(out, href)
	})
	return out
}

// The search box is on every signed-in page; typing asks /search for the
// list (htmx, HX-Target search-results), Enter opens the results page.
// Both name buckets, namespaces and tables by any part of their names and
// link to their pages, for readers too.
func TestSearch(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("sales", "LANCE", "eu", "orders", "daily_orders", "customers")
	e.seed("orders-lake", "ICEBERG", "")

	for _, path := range []string{"/buckets", "/buckets/sales", "/jobs", "/api-keys"} {
		if r := e.get(e.admin(), path); !r.has("search-input") {
			t.Errorf("%s has no search box", path)
		}
	}
	if r := e.get(e.anon(), "/login"); r.has("search-input") {
		t.Error("the sign-in page has a search box")
	}

	list := e.do(e.reader(), "GET", "/search?q=Orders", nil, map[string]string{"HX-Request": "true", "HX-Target": "search-results"})
	if list.status != http.StatusOK || list.has("search-page-form") || strings.Contains(list.body, "<html") {
		t.Fatalf("htmx list: %d, a whole page: %v", list.status, list.has("search-page-form"))
	}
	want := []string{"/buckets/sales/namespaces/eu/tables/orders", "/buckets/orders-lake", "/buckets/sales/namespaces/eu/tables/daily_orders"}
	if got := hitLinks(list); !slices.Equal(got, want) {
		t.Errorf("list links %q, want %q", got, want)
	}
	if got := list.doc.Find(`[data-kind="bucket"] [data-testid="format-badge"]`).AttrOr("data-format", ""); got != "ICEBERG" {
		t.Errorf("bucket hit badge %q", got)
	}

	page := e.get(e.admin(), "/search?q=eu")
	if page.status != http.StatusOK || !page.has("search-page-form") {
		t.Fatalf("results page: %d", page.status)
	}
	if got := hitLinks(page); !slices.Equal(got, []string{"/buckets/sales/namespaces/eu"}) {
		t.Errorf("page links %q", got)
	}
	if got := page.doc.Find(`#search-page-q`).AttrOr("value", ""); got != "eu" {
		t.Errorf("query kept in the field: %q", got)
	}

	none := e.get(e.admin(), "/search?q=zzz")
	if !none.has("search-none") {
		t.Errorf("no hits: %s", none.text("search-page-results"))
	}
	odd := e.do(e.admin(), "GET", "/search?q=my%2Ftable", nil, map[string]string{"HX-Request": "true", "HX-Target": "search-results"})
	if odd.status != http.StatusOK || !strings.Contains(odd.text("search-note"), "No name holds a /") {
		t.Errorf("a / in the query: %d %q", odd.status, odd.text("search-note"))
	}
	// Case and spaces are a name's own: "EU" finds eu.
	if upper := e.get(e.admin(), "/search?q=EU"); !slices.Contains(hitLinks(upper), "/buckets/sales/namespaces/eu") {
		t.Errorf("an upper-case query: links %q", hitLinks(upper))
	}
	if empty := e.do(e.admin(), "GET", "/search?q=", nil, map[string]string{"HX-Request": "true", "HX-Target": "search-results"}); strings.TrimSpace(empty.body) != "" {
		t.Errorf("an empty query renders %q", empty.body)
	}
	if r := e.get(e.anon(), "/search?q=orders"); r.status != http.StatusSeeOther {
		t.Errorf("signed out: %d", r.status)
	}
}
