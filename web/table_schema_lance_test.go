package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// A Lance table's schema history compares any two versions' schemas by
// field id, on manifests LanceDB 0.39 wrote (testdata/lance_schema, from
// @lancedb/lancedb in node: createTable events {id, name, region}; add
// rows (v2); addColumns score (v3); alterColumns rename name → full_name
// (v4); dropColumns region (v5)).
func TestLanceSchemaHistory(t *testing.T) {
	e := newEnv(t, allSurfaces)
	c := e.admin()
	e.seed("vec", catalog.FormatLance, "prod", "events")
	tbl, err := e.table("vec", "prod", "events")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wh := e.store.Storage()
	loc, err := wh.Parse(tbl.Location)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("testdata/lance_schema/*.manifest")
	if err != nil || len(files) != 5 {
		t.Fatalf("testdata: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst, err := loc.Join("_versions", filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.WriteFile(ctx, dst, b); err != nil {
			t.Fatal(err)
		}
	}
	page := "/buckets/vec/namespaces/prod/tables/events"
	if r := e.get(c, page); !r.has("schema-history-link") {
		t.Error("the Lance table page has no schema history link")
	}
	change := func(r response, kind, field string) bool {
		return r.doc.Find(`[data-testid="schema-change"][data-kind="`+kind+`"][data-field="`+field+`"]`).Length() == 1
	}
	// By default the newest version against the one before: region dropped.
	r := e.get(c, page+"/schema")
	if r.status != http.StatusOK || r.doc.Find(`#schema-from option`).Length() != 5 || !change(r, "removed", "region") || r.doc.Find(`[data-testid="schema-change"]`).Length() != 1 {
		t.Fatalf("default diff %d: %q", r.status, r.text("schema-diff"))
	}
	if h := r.doc.Find(`[data-testid="schema-diff"] h2`).Text(); h != "Version 4 → version 5" {
		t.Errorf("heading %q", h)
	}
	// Across the whole history: a rename keeps its field id, an added
	// field is new, a dropped one is gone.
	r = e.get(c, page+"/schema?from=1&to=5")
	if !change(r, "renamed", "full_name") || !change(r, "added", "score") || !change(r, "removed", "region") || r.doc.Find(`[data-testid="schema-change"]`).Length() != 3 {
		t.Errorf("1 → 5: %q", r.text("schema-diff"))
	}
	if got := r.doc.Find(`[data-testid="schema-change"][data-kind="added"] td`).Eq(4).Text(); got != "float64" {
		t.Errorf("score's type %q", got)
	}
	if r := e.get(c, page+"/schema?from=1&to=2"); !r.has("schema-diff-none") {
		t.Errorf("an append changes no field: %q", r.text("schema-diff"))
	}
	for q, status := range map[string]int{"?from=9": http.StatusNotFound, "?to=x": http.StatusUnprocessableEntity, "?to=-1": http.StatusUnprocessableEntity} {
		if r := e.get(c, page+"/schema"+q); r.status != status {
			t.Errorf("%s: %d, want %d", q, r.status, status)
		}
	}
	if strings.Contains(r.body, "<script>") {
		t.Error("inline script")
	}
}
