package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// TestConsoleNames: namespaces and tables whose names hold upper case,
// spaces and URL punctuation are made from the console's forms, linked
// with escaped URLs, and their pages (table page, Browse Data) answer;
// names differing only in case are two tables.
func TestConsoleNames(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "")
	e.seed("lake", catalog.FormatIceberg, "")
	c := e.admin()
	ns := "Sales EU"
	for _, b := range []string{"vec", "lake"} {
		if r := e.post(c, "/buckets/"+b+"/namespaces", url.Values{"namespace": {ns}}); r.status != http.StatusSeeOther {
			t.Fatalf("create namespace in %s: %d %s", b, r.status, r.text("error-namespace"))
		}
	}
	nsURL := views.NamespaceURL("vec", ns)
	for _, name := range []string{"My Table #1?", "my table #1?"} {
		if r := e.post(c, nsURL+"/tables", url.Values{"name": {name}}); r.status != http.StatusSeeOther {
			t.Fatalf("declare %q: %d %s", name, r.status, r.text("error-name"))
		}
	}
	page := e.get(c, nsURL)
	if page.status != http.StatusOK {
		t.Fatalf("namespace page: %d", page.status)
	}
	var links []string
	page.doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		if h := s.AttrOr("href", ""); strings.HasPrefix(h, nsURL+"/tables/") && !strings.Contains(h[len(nsURL+"/tables/"):], "/") {
			links = append(links, h)
		}
	})
	want := []string{views.TableURL("vec", ns, "My Table #1?"), views.TableURL("vec", ns, "my table #1?")}
	for _, w := range want {
		if !contains(links, w) {
			t.Errorf("namespace page lacks a link to %s (links %q)", w, links)
		}
	}
	for _, w := range want {
		if r := e.get(c, w); r.status != http.StatusOK || !strings.Contains(r.body, "#1?") {
			t.Errorf("table page %s: %d", w, r.status)
		}
		if r := e.get(c, w+"/data"); r.status != http.StatusOK {
			t.Errorf("Browse Data %s: %d", w, r.status)
		}
	}
	a, errA := e.table("vec", ns, "My Table #1?")
	b, errB := e.table("vec", ns, "my table #1?")
	if errA != nil || errB != nil || a.ID == b.ID || strings.EqualFold(a.Location, b.Location) {
		t.Fatalf("two names in two cases: %+v %v / %+v %v", a, errA, b, errB)
	}

	// An Iceberg table with such a name, made by the schema builder, and
	// its Browse Data page.
	lakeNS := views.NamespaceURL("lake", ns)
	if r := e.post(c, lakeNS+"/create-table", icebergForm("Events Q1")); r.status != http.StatusSeeOther {
		t.Fatalf("create Iceberg table: %d %s", r.status, r.text("error-name"))
	}
	ice := views.TableURL("lake", ns, "Events Q1")
	for _, p := range []string{ice, ice + "/data"} {
		if r := e.get(c, p); r.status != http.StatusOK {
			t.Errorf("%s: %d", p, r.status)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
