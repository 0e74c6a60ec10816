package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// The namespace page lists Iceberg views (name, dialects, versions) and a
// view's page shows its SQL per dialect, schema and versions.
func TestIcebergViewPages(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	ctx := context.Background()
	lib := iceberg.New(iceberg.Config{Store: e.store})
	b, err := e.store.GetBucket(ctx, "lake")
	if err != nil {
		t.Fatal(err)
	}
	var in iceberg.CreateViewInput
	if err := json.Unmarshal([]byte(`{"name": "by_region",
		"schema": {"type": "struct", "schema-id": 0, "fields": [
			{"id": 1, "name": "region", "type": "string", "required": false},
			{"id": 2, "name": "n", "type": "long", "required": true}]},
		"view-version": {"version-id": 1, "schema-id": 0, "timestamp-ms": 1700000000000, "summary": {"engine-name": "spark"},
			"default-namespace": ["raw"], "representations": [
				{"type": "sql", "sql": "SELECT region, count(*) AS n FROM events GROUP BY region", "dialect": "spark"},
				{"type": "sql", "sql": "SELECT region, count(*) AS n FROM raw.events GROUP BY 1", "dialect": "trino"}]}}`), &in); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.CreateView(ctx, b, []string{"raw"}, in); err != nil {
		t.Fatalf("create view: %v", err)
	}
	var commit iceberg.ViewCommitInput
	if err := json.Unmarshal([]byte(`{"updates": [
		{"action": "add-view-version", "view-version": {"version-id": 2, "schema-id": 0, "timestamp-ms": 1700000100000, "summary": {},
			"default-namespace": ["raw"], "representations": [{"type": "sql", "sql": "SELECT region, count(*) AS n FROM events WHERE region <> '' GROUP BY region", "dialect": "spark"}]}},
		{"action": "set-current-view-version", "view-version-id": -1}]}`), &commit); err != nil {
		t.Fatal(err)
	}
	ref := catalog.TableRef{Bucket: "lake", Namespace: []string{"raw"}, Name: "by_region"}
	if _, err := lib.CommitView(ctx, b, ref, commit); err != nil {
		t.Fatalf("commit view: %v", err)
	}

	c := e.reader()
	ns := e.get(c, "/buckets/lake/namespaces/raw")
	row := ns.doc.Find(`[data-testid="view-row"][data-view="by_region"]`)
	if row.Length() != 1 {
		t.Fatalf("namespace page lists no view: %s", ns.body)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="view-dialects"]`).Text()); got != "spark" {
		t.Fatalf("dialects = %q, want the current version's (spark)", got)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="view-versions"]`).Text()); got != "2" {
		t.Fatalf("versions = %q", got)
	}
	href, _ := row.Find(`[data-testid="view-link"]`).Attr("href")

	page := e.get(c, href)
	if page.status != http.StatusOK {
		t.Fatalf("view page %s: %d %s", href, page.status, page.body)
	}
	if got := page.text("view-sql-text"); !strings.Contains(got, "WHERE region <> ''") {
		t.Fatalf("SQL shown = %q, want the current version's", got)
	}
	if n := page.doc.Find(`[data-testid="view-column"]`).Length(); n != 2 {
		t.Fatalf("%d schema rows", n)
	}
	if n := page.doc.Find(`[data-testid="view-version"]`).Length(); n != 2 {
		t.Fatalf("%d version rows", n)
	}
	cur := page.doc.Find(`[data-testid="view-version-current"]`).Closest(`[data-testid="view-version"]`)
	if v, _ := cur.Attr("data-version"); v != "2" {
		t.Fatalf("current version row = %q", v)
	}
	if !strings.Contains(page.body, "trino") {
		t.Fatal("the older version's trino SQL is not shown")
	}

	missing := e.get(c, "/buckets/lake/namespaces/raw/views/nope")
	if missing.status != http.StatusNotFound {
		t.Fatalf("missing view: %d", missing.status)
	}
}
