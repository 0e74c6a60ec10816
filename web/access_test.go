package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestAccessTab: a table's Access tab lists every grant that covers it —
// here and inherited, with where from — and its managers add and remove
// grants there; what they grant decides the grantee's very next request,
// and a reader sees the tab without controls and cannot forge its forms.
func TestAccessTab(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("shelf", catalog.FormatLance, "ns", "t1", "t2")
	e.seed("other", catalog.FormatLance, "ns", "t9")
	admin, reader := e.admin(), e.reader()
	// carol has no users row and so no role grant: only what is granted
	// to her by name decides what she sees.
	carol := e.signedIn("carol", catalog.RoleReadonly)
	const tab = "/buckets/shelf/namespaces/ns/tables/t1/access"

	page := e.get(admin, tab)
	if page.status != http.StatusOK || !page.has("add-grant-form") {
		t.Fatalf("admin's Access tab: %d, form %v", page.status, page.has("add-grant-form"))
	}
	rows := page.doc.Find(`[data-testid="grant-row"]`)
	if got := rows.Length(); got != 2 {
		t.Fatalf("%d rows, want the admin's and the reader's grants on everything:\n%s", got, page.text("access-table"))
	}
	if from := strings.TrimSpace(rows.First().Find(`[data-testid="grant-from"]`).Text()); from != "inherited from everything" {
		t.Errorf("grant-from = %q", from)
	}
	if e.get(admin, "/buckets/shelf/namespaces/ns/tables/t1").has("access-link") != true {
		t.Error("the table page links no Access tab")
	}

	if r := e.get(carol, "/buckets/shelf/namespaces/ns/tables/t1"); r.status != http.StatusForbidden {
		t.Fatalf("carol before any grant: %d, want 403", r.status)
	}
	r := e.post(admin, "/buckets/shelf/namespaces/ns/access", url.Values{"grantee_kind": {"user"}, "grantee": {"carol"}, "privilege": {"read"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/shelf/namespaces/ns/access" {
		t.Fatalf("grant: %d to %q: %s", r.status, r.header.Get("Location"), r.body)
	}
	if r := e.get(carol, "/buckets/shelf/namespaces/ns/tables/t1"); r.status != http.StatusOK {
		t.Fatalf("carol after the grant: %d, want 200", r.status)
	}
	// What carol is shown is what she may read.
	if list := e.get(carol, "/buckets"); !strings.Contains(list.text("buckets-table"), "shelf") || strings.Contains(list.text("buckets-table"), "other") {
		t.Errorf("carol's buckets: %q", list.text("buckets-table"))
	}
	if r := e.get(carol, "/buckets/other"); r.status != http.StatusForbidden {
		t.Errorf("carol opened a bucket she holds nothing in: %d", r.status)
	}
	if r := e.post(carol, "/buckets/shelf/namespaces/ns/tables/t1/drop", url.Values{"confirm": {"t1"}}); r.status != http.StatusForbidden || !strings.Contains(r.body, "read-only") {
		t.Errorf("carol dropped with read: %d", r.status)
	}
	inherited := e.get(admin, tab)
	if !strings.Contains(inherited.text("access-table"), "carol") || !strings.Contains(inherited.text("access-table"), "inherited from shelf/ns") {
		t.Errorf("the table's tab does not show carol's namespace grant as inherited:\n%s", inherited.text("access-table"))
	}

	// The reader sees the tab, without controls, and its forged POSTs are refused.
	rp := e.get(reader, tab)
	if rp.status != http.StatusOK || rp.has("add-grant-form") || rp.has("remove-grant-form") {
		t.Errorf("reader's tab: %d, add %v, remove %v", rp.status, rp.has("add-grant-form"), rp.has("remove-grant-form"))
	}
	for _, path := range []string{tab, tab + "/remove"} {
		if r := e.post(reader, path, url.Values{"grantee_kind": {"user"}, "grantee": {"reader"}, "privilege": {"manage"}}); r.status != http.StatusForbidden {
			t.Errorf("reader POST %s: %d, want 403", path, r.status)
		}
	}

	// The form is validated on the server: the reason beside its field.
	for _, c := range []struct {
		form  url.Values
		field string
	}{
		{url.Values{"grantee_kind": {"user"}, "grantee": {"carol"}, "privilege": {"own"}}, "privilege"},
		{url.Values{"grantee_kind": {"robot"}, "grantee": {"carol"}, "privilege": {"read"}}, "grantee"},
		{url.Values{"grantee_kind": {"apikey"}, "grantee": {"k_nope"}, "privilege": {"read"}}, "grantee"},
		{url.Values{"grantee_kind": {"user"}, "grantee": {""}, "privilege": {"read"}}, "grantee"},
	} {
		r := e.post(admin, tab, c.form)
		if r.status != http.StatusUnprocessableEntity || !r.has("error-"+c.field) {
			t.Errorf("%v: %d, error-%s %v", c.form, r.status, c.field, r.has("error-"+c.field))
		}
	}

	// Removing it takes effect on carol's next request.
	r = e.post(admin, "/buckets/shelf/namespaces/ns/access/remove", url.Values{"grantee_kind": {"user"}, "grantee": {"carol"}, "privilege": {"read"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("remove: %d %s", r.status, r.body)
	}
	if r := e.get(carol, "/buckets/shelf/namespaces/ns/tables/t1"); r.status != http.StatusForbidden {
		t.Errorf("carol after the grant was removed: %d", r.status)
	}
	// Nobody removes the last manage on everything from the console.
	if r := e.post(admin, "/buckets/shelf/access/remove", url.Values{"grantee_kind": {"user"}, "grantee": {"admin"}, "privilege": {"manage"}}); r.status == http.StatusSeeOther {
		t.Error("a grant inherited from everything was removed on a bucket's tab")
	}
}
