package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
)

// Search and the bulk actions follow the authorizer: a user granted read on
// one namespace finds what is in it (and its bucket) and nothing else, and a
// bulk action on tables it may not maintain or manage is refused whole.
func TestSearchAndBulkFollowGrants(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("shelf", catalog.FormatLance, "ns", "orders_a", "orders_b")
	e.seed("other", catalog.FormatLance, "ns", "orders_z")
	admin := e.admin()
	carol := e.signedIn("carol", catalog.RoleReadonly) // no role grant: only what is granted by name
	names := func(c *http.Client) []string {
		t.Helper()
		r := e.get(c, "/search?q=orders")
		var got []string
		r.doc.Find(`[data-testid="search-hit"] .search-name`).Each(func(_ int, s *goquery.Selection) { got = append(got, s.Text()) })
		slices.Sort(got)
		return got
	}
	if got := names(admin); !slices.Equal(got, []string{"orders_a", "orders_b", "orders_z"}) {
		t.Fatalf("admin finds %v", got)
	}
	if got := names(carol); len(got) != 0 {
		t.Fatalf("carol before any grant finds %v", got)
	}
	if r := e.post(admin, "/buckets/shelf/namespaces/ns/access", url.Values{"grantee_kind": {"user"}, "grantee": {"carol"}, "privilege": {"read"}}); r.status != http.StatusSeeOther {
		t.Fatalf("grant: %d", r.status)
	}
	if got := names(carol); !slices.Equal(got, []string{"orders_a", "orders_b"}) {
		t.Errorf("carol with read on shelf/ns finds %v", got)
	}
	if r := e.get(carol, "/search?q=shelf"); !strings.Contains(r.text("search-list")+r.body, "shelf") {
		t.Errorf("carol does not find the bucket her grant lies in")
	}
	if r := e.get(carol, "/search?q=other"); strings.Contains(r.doc.Find(`[data-testid="search-hit"]`).Text(), "other") {
		t.Errorf("carol finds a bucket she holds nothing in")
	}

	// Bulk: read is not maintain, so carol's Fix and Drop are refused and
	// nothing is dropped; the admin's Drop goes through.
	for _, action := range []string{"fix", "drop"} {
		r := e.post(carol, "/buckets/shelf/namespaces/ns/bulk", url.Values{"action": {action}, "table": {"orders_a", "orders_b"}, "confirm": {"yes"}})
		if r.status != http.StatusForbidden {
			t.Errorf("carol's bulk %s: %d, want 403", action, r.status)
		}
	}
	if _, err := e.table("shelf", "ns", "orders_a"); err != nil {
		t.Fatalf("a refused bulk drop dropped: %v", err)
	}
	if r := e.get(carol, "/buckets/shelf/namespaces/ns"); r.has("bulk-form") {
		t.Error("carol is offered bulk actions she may not run")
	}
	if r := e.post(admin, "/buckets/shelf/namespaces/ns/bulk", url.Values{"action": {"drop"}, "table": {"orders_a"}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("admin's bulk drop: %d %s", r.status, r.body)
	}
	if _, err := e.table("shelf", "ns", "orders_a"); err == nil {
		t.Error("the admin's bulk drop left the table")
	}
}
