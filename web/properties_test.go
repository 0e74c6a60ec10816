package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

func htmxPost(e *env, c *http.Client, path string, form url.Values) response {
	return e.do(c, "POST", path, form, map[string]string{"HX-Request": "true"})
}

// TestNamespaceProperties: the namespace page shows its properties; an
// admin sets and removes one in place (htmx) or by a plain form post; a
// refused change says why at its field; a reader sees them without the
// forms and cannot post.
func TestNamespaceProperties(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod")
	if _, err := e.store.UpdateNamespaceProperties(context.Background(), "vec", []string{"prod"}, nil, map[string]string{"team": "search"}); err != nil {
		t.Fatal(err)
	}
	const page, post = "/buckets/vec/namespaces/prod", "/buckets/vec/namespaces/prod/properties"
	admin, reader := e.admin(), e.reader()
	r := e.get(reader, page)
	if got := r.doc.Find(`[data-testid="namespace-properties"] [data-key="team"] [data-testid="property-value"]`).Text(); got != "search" {
		t.Fatalf("reader sees team = %q", got)
	}
	if r.has("property-set-form") || r.has("property-remove-form") {
		t.Fatal("a reader gets the property forms")
	}
	if r := e.post(reader, post, url.Values{"op": {"set"}, "key": {"x"}, "value": {"y"}}); r.status != http.StatusForbidden {
		t.Fatalf("reader sets a property: %d", r.status)
	}

	r = htmxPost(e, admin, post, url.Values{"op": {"set"}, "key": {"owner"}, "value": {"data platform"}})
	if r.status != 200 || !strings.Contains(r.text("properties-saved"), "owner set") ||
		r.doc.Find(`[data-key="owner"] [data-testid="property-value"]`).Text() != "data platform" || strings.Contains(r.body, "<html") {
		t.Fatalf("htmx set: %d\n%s", r.status, r.body)
	}
	if r := e.post(admin, post, url.Values{"op": {"remove"}, "key": {"team"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != page+"#properties" {
		t.Fatalf("plain remove: %d %q", r.status, r.header.Get("Location"))
	}
	ns, err := e.store.GetNamespace(context.Background(), "vec", []string{"prod"})
	if err != nil || ns.Properties["owner"] != "data platform" || ns.Properties["team"] != "" {
		t.Fatalf("stored properties %v (%v)", ns.Properties, err)
	}
	if r := e.get(admin, page); !strings.Contains(r.text("flash"), "team removed") {
		t.Fatalf("flash after the plain remove: %q", r.text("flash"))
	}
	for _, bad := range []struct {
		form  url.Values
		field string
	}{
		{url.Values{"op": {"set"}, "key": {"  "}, "value": {"v"}}, "key"},
		{url.Values{"op": {"set"}, "key": {strings.Repeat("k", 1025)}, "value": {"v"}}, "key"},
		{url.Values{"op": {"rename"}, "key": {"a"}}, ""},
	} {
		r := htmxPost(e, admin, post, bad.form)
		id := "properties-error"
		if bad.field != "" {
			id = "error-" + bad.field
		}
		if r.status != http.StatusUnprocessableEntity || !r.has(id) {
			t.Errorf("%v: %d, no %s\n%s", bad.form["key"], r.status, id, r.body)
		}
	}
	// A value past the console's form cap is refused whole, with a sentence.
	if r := htmxPost(e, admin, post, url.Values{"op": {"set"}, "key": {"big"}, "value": {strings.Repeat("v", 64<<10)}}); r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "nothing was saved") {
		t.Errorf("a 64 KiB value: %d %s", r.status, r.body)
	}
}

// TestTableProperties: a Lance table's properties are set in floe's
// catalog (floe.* stays floe's); an Iceberg table's through a commit: a
// new metadata file holding the property, which the Iceberg REST then
// answers.
func TestTableProperties(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	admin := e.admin()
	const lance = "/buckets/vec/namespaces/prod/tables/items"
	if r := htmxPost(e, admin, lance+"/properties", url.Values{"op": {"set"}, "key": {"embedding.model"}, "value": {"e5-small"}}); r.status != 200 || !r.has("properties-saved") {
		t.Fatalf("lance set: %d %s", r.status, r.body)
	}
	if r := htmxPost(e, admin, lance+"/properties", url.Values{"op": {"set"}, "key": {"floe.stats_source"}, "value": {"mine"}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("error-key"), "set by floe") {
		t.Fatalf("lance set floe.*: %d %q", r.status, r.text("error-key"))
	}
	tb, err := e.table("vec", "prod", "items")
	if err != nil || tb.Properties["embedding.model"] != "e5-small" {
		t.Fatalf("lance properties %v (%v)", tb.Properties, err)
	}
	if got := e.get(admin, lance).doc.Find(`[data-testid="table-properties"] [data-key="embedding.model"] [data-testid="property-value"]`).Text(); got != "e5-small" {
		t.Fatalf("the Lance table page shows %q", got)
	}

	e.seed("lake", catalog.FormatIceberg, "raw")
	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true})
	rest := func(method, path, body string) (int, string) {
		rec := httptest.NewRecorder()
		rs.Handler().ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec.Code, rec.Body.String()
	}
	if code, body := rest("POST", "/v1/lake/namespaces/raw/tables", `{"name":"events","schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]},"properties":{"owner":"ops"}}`); code != 200 {
		t.Fatalf("REST create: %d %s", code, body)
	}
	before, _ := e.table("lake", "raw", "events")
	const ice = "/buckets/lake/namespaces/raw/tables/events"
	r := htmxPost(e, admin, ice+"/properties", url.Values{"op": {"set"}, "key": {"commit.retry.num-retries"}, "value": {"7"}})
	if r.status != 200 || r.doc.Find(`[data-key="commit.retry.num-retries"] [data-testid="property-value"]`).Text() != "7" {
		t.Fatalf("iceberg set: %d %s", r.status, r.body)
	}
	if r := htmxPost(e, admin, ice+"/properties", url.Values{"op": {"remove"}, "key": {"owner"}}); r.status != 200 || r.doc.Find(`[data-key="owner"]`).Length() != 0 {
		t.Fatalf("iceberg remove: %d %s", r.status, r.body)
	}
	after, _ := e.table("lake", "raw", "events")
	if after.MetadataLocation == before.MetadataLocation {
		t.Fatal("the Iceberg change wrote no new metadata file")
	}
	code, body := rest("GET", "/v1/lake/namespaces/raw/tables/events", "")
	if code != 200 || !strings.Contains(body, `"commit.retry.num-retries":"7"`) || strings.Contains(body, `"owner":"ops"`) {
		t.Fatalf("LoadTable after the console's commits: %d %s", code, body)
	}
}
