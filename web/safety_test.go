package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

// TestConsoleDropUndropPurge: a drop from the table page holds the table in
// its bucket's Recently deleted list; Undrop there brings it back (under a
// new name when the old one was taken); Purge now deletes it.
func TestConsoleDropUndropPurge(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "docs", "t")
	ctx := context.Background()
	c := e.admin()
	// The bucket's hold through its settings form.
	if r := e.post(c, "/buckets/vec/settings", url.Values{"soft_delete_hold": {"fortnight"}}); r.status != http.StatusUnprocessableEntity || !r.has("error-soft_delete_hold") {
		t.Fatalf("a hold that is no duration: %d, error shown %v", r.status, r.has("error-soft_delete_hold"))
	}
	if r := e.post(c, "/buckets/vec/settings", url.Values{"soft_delete_hold": {"3d"}}); r.status != http.StatusSeeOther {
		t.Fatalf("settings: %d %s", r.status, r.body)
	}
	orig, _ := e.table("vec", "docs", "t")
	if r := e.get(c, "/buckets/vec/namespaces/docs/tables/t"); !strings.Contains(r.text("drop-explain"), "3d") || r.text("drop-table-submit") != "Drop table" {
		t.Fatalf("drop panel says %q / %q; want the 3d hold", r.text("drop-explain"), r.text("drop-table-submit"))
	}
	if r := e.post(c, "/buckets/vec/namespaces/docs/tables/t/drop", url.Values{"confirm": {"t"}}); r.status != http.StatusSeeOther {
		t.Fatalf("drop: %d %s", r.status, r.body)
	}
	if _, err := e.table("vec", "docs", "t"); !errors.Is(err, fault.NotFound) {
		t.Fatalf("dropped table still found: %v", err)
	}
	page := e.get(c, "/buckets/vec")
	if !strings.Contains(page.text("flash"), "Recently deleted") {
		t.Fatalf("drop flash %q", page.text("flash"))
	}
	row := page.doc.Find(`[data-testid="deleted-row"][data-table="docs.t"]`)
	if row.Length() != 1 || row.AttrOr("data-table-id", "") != orig.ID {
		t.Fatalf("recently deleted list: %s", page.body)
	}
	// A new table takes the name; Undrop under it is refused, under
	// another name it works.
	e.seed2("vec", "docs", "t")
	undrop := row.Find(`[data-testid="undrop-form"]`).AttrOr("action", "")
	if r := e.post(c, undrop, url.Values{}); r.status != http.StatusConflict || !strings.Contains(r.body, "another name") {
		t.Fatalf("undrop onto a taken name: %d %s", r.status, r.body)
	}
	if r := e.post(c, undrop, url.Values{"name": {"t-back"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/vec/namespaces/docs/tables/t-back" {
		t.Fatalf("undrop as t-back: %d %s", r.status, r.header.Get("Location"))
	}
	if back, err := e.table("vec", "docs", "t-back"); err != nil || back.ID != orig.ID {
		t.Fatalf("undropped table: %+v %v", back, err)
	}
	// Dropped again, then purged at once.
	if r := e.post(c, "/buckets/vec/namespaces/docs/tables/t-back/drop", url.Values{"confirm": {"t-back"}}); r.status != http.StatusSeeOther {
		t.Fatalf("drop: %d", r.status)
	}
	purge := e.get(c, "/buckets/vec").doc.Find(`[data-table="docs.t-back"] [data-testid="purge-form"]`).AttrOr("action", "")
	// A reader sees the list but none of its buttons, and is refused.
	if r := e.get(e.reader(), "/buckets/vec"); r.has("undrop-form") || r.has("purge-form") || r.has("protect-toggle") {
		t.Fatal("a read-only user is offered undrop, purge or protect")
	}
	if r := e.post(e.reader(), purge, url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("reader purge: %d", r.status)
	}
	if r := e.post(c, purge, url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("purge: %d %s", r.status, r.body)
	}
	if _, err := e.store.GetDeletedTable(ctx, orig.ID); !errors.Is(err, fault.NotFound) {
		t.Fatalf("purged table still recently deleted: %v", err)
	}
}

// seed2 creates one more Lance table.
func (e *env) seed2(bucket, ns, name string) {
	e.t.Helper()
	if _, _, err := e.store.CreateTable(context.Background(), catalog.CreateTableInput{
		TableRef: catalog.TableRef{Bucket: bucket, Namespace: catalog.SplitNamespace(ns), Name: name}, Format: catalog.FormatLance}); err != nil {
		e.t.Fatal(err)
	}
}

// TestConsoleProtection: the toggle on each page protects; a protected
// table's drop, its namespace's cascade and its bucket's delete are
// refused with a sentence naming it; force with the name typed passes.
func TestConsoleProtection(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "docs", "t")
	ctx := context.Background()
	if err := e.store.SetDefaultHold(ctx, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	tableURL := "/buckets/vec/namespaces/docs/tables/t"
	if r := e.post(c, tableURL+"/protect", url.Values{"on": {"true"}}); r.status != http.StatusSeeOther {
		t.Fatalf("protect: %d %s", r.status, r.body)
	}
	page := e.get(c, tableURL)
	if page.doc.Find(`[data-testid="table-protection"]`).AttrOr("data-protected", "") != "true" || !page.has("force-checkbox") {
		t.Fatalf("protected table page: protection %q, force offered %v", page.doc.Find(`[data-testid="table-protection"]`).AttrOr("data-protected", ""), page.has("force-checkbox"))
	}
	for _, tc := range []struct{ name, path string }{
		{"drop", tableURL + "/drop"},
		{"namespace cascade", "/buckets/vec/namespaces/docs/delete"},
		{"bucket cascade", "/buckets/vec/delete"},
	} {
		r := e.post(c, tc.path, url.Values{"confirm": {"t"}, "cascade": {"true"}})
		if r.status != http.StatusConflict || !strings.Contains(r.body, "protected") || !strings.Contains(r.body, `&#34;t&#34;`) {
			t.Fatalf("%s of a protected table: %d %s", tc.name, r.status, r.body)
		}
	}
	if _, err := e.table("vec", "docs", "t"); err != nil {
		t.Fatalf("protected table gone after the refusals: %v", err)
	}
	// Force without the name typed is refused; with it, it passes.
	if r := e.post(c, "/buckets/vec/namespaces/docs/delete", url.Values{"cascade": {"true"}, "force": {"true"}}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("force without the name: %d", r.status)
	}
	if r := e.post(c, "/buckets/vec/namespaces/docs/delete", url.Values{"cascade": {"true"}, "force": {"true"}, "confirm": {"docs"}}); r.status != http.StatusSeeOther {
		t.Fatalf("forced cascade: %d %s", r.status, r.body)
	}
	d, err := e.store.FindDeletedTable(ctx, catalog.TableRef{Bucket: "vec", Namespace: []string{"docs"}, Name: "t"})
	if err != nil || d.DeletedBy != "user:admin" || d.Reason != catalog.ReasonCascade {
		t.Fatalf("forced cascade's record: %+v %v", d, err)
	}
	// Buckets and namespaces have the toggle too.
	if r := e.post(c, "/buckets/vec/protect", url.Values{"on": {"true"}}); r.status != http.StatusSeeOther {
		t.Fatalf("protect bucket: %d", r.status)
	}
	if r := e.post(c, "/buckets/vec/delete", url.Values{"cascade": {"true"}}); r.status != http.StatusConflict || !strings.Contains(r.body, `bucket &#34;vec&#34; is protected`) {
		t.Fatalf("delete of a protected bucket: %d %s", r.status, r.body)
	}
}

// TestConsoleDeletedBucket: a bucket deleted with held tables is listed
// under Recently deleted buckets; Undrop brings it back with its tables.
func TestConsoleDeletedBucket(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "docs", "a", "b")
	if err := e.store.SetDefaultHold(context.Background(), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	if r := e.post(c, "/buckets/vec/delete", url.Values{"cascade": {"true"}}); r.status != http.StatusSeeOther {
		t.Fatalf("cascade delete: %d %s", r.status, r.body)
	}
	page := e.get(c, "/buckets")
	row := page.doc.Find(`[data-testid="deleted-bucket-row"][data-bucket="vec"]`)
	if row.Length() != 1 || !strings.Contains(page.text("flash"), "2 dropped tables") {
		t.Fatalf("buckets page after the delete: flash %q, row %d", page.text("flash"), row.Length())
	}
	if r := e.post(c, row.Find(`[data-testid="undrop-bucket-form"]`).AttrOr("action", ""), url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("undrop bucket: %d %s", r.status, r.body)
	}
	for _, n := range []string{"a", "b"} {
		if _, err := e.table("vec", "docs", n); err != nil {
			t.Fatalf("table %s after the bucket's undrop: %v", n, err)
		}
	}
}
