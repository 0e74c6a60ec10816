package web

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// evolveSchema rewrites an Iceberg table's metadata file as an engine's
// schema update would leave it: schema 1 renames name to full_name, drops
// region, widens nothing and adds note; it becomes the current schema.
func evolveSchema(t *testing.T, tbl catalog.Table) {
	t.Helper()
	path := strings.TrimPrefix(tbl.MetadataLocation, "file://")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	if err := json.Unmarshal(raw, &md); err != nil {
		t.Fatal(err)
	}
	s0 := md["schemas"].([]any)[0].(map[string]any)
	var fields []any
	for _, f := range s0["fields"].([]any) {
		f := f.(map[string]any)
		switch f["name"] {
		case "region":
			continue
		case "name":
			f = map[string]any{"id": f["id"], "name": "full_name", "type": "string", "required": false, "doc": "who placed it"}
		}
		fields = append(fields, f)
	}
	fields = append(fields, map[string]any{"id": 6, "name": "note", "type": "string", "required": false})
	md["schemas"] = append(md["schemas"].([]any), map[string]any{"type": "struct", "schema-id": 1, "fields": fields})
	md["current-schema-id"] = 1
	md["last-column-id"] = 6
	out, _ := json.Marshal(md)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// An Iceberg table's schema history page compares any two of its schemas
// field by field id: a rename is a rename, not a drop and an add.
func TestTableSchemaHistory(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()
	if r := e.post(c, "/buckets/lake/namespaces/raw/create-table", icebergForm("events")); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	page := "/buckets/lake/namespaces/raw/tables/events"
	if r := e.get(c, page+"/schema"); r.status != http.StatusOK || !r.has("schema-history-single") {
		t.Fatalf("one schema: %d %q", r.status, r.body)
	}
	if r := e.get(c, page); r.has("schema-history-link") {
		t.Error("history link with one schema")
	}
	tbl, err := e.table("lake", "raw", "events")
	if err != nil {
		t.Fatal(err)
	}
	evolveSchema(t, tbl)
	if r := e.get(c, page); !strings.Contains(r.text("schema-history-link"), "2 schemas") {
		t.Errorf("table page link %q", r.text("schema-history-link"))
	}

	r := e.get(c, page+"/schema")
	if r.status != http.StatusOK {
		t.Fatalf("history: %d", r.status)
	}
	if from, to := r.doc.Find(`[data-testid="schema-from"] option[selected]`).AttrOr("value", ""), r.doc.Find(`[data-testid="schema-to"] option[selected]`).AttrOr("value", ""); from != "0" || to != "1" {
		t.Errorf("default pair %s → %s, want 0 → 1", from, to)
	}
	var got []string
	for _, n := range r.doc.Find(`[data-testid="schema-change"]`).Nodes {
		var kind, field string
		for _, a := range n.Attr {
			switch a.Key {
			case "data-kind":
				kind = a.Val
			case "data-field":
				field = a.Val
			}
		}
		got = append(got, kind+" "+field)
	}
	if want := "renamed full_name|doc changed full_name|removed region|added note"; strings.Join(got, "|") != want {
		t.Errorf("changes %q, want %q", strings.Join(got, "|"), want)
	}
	if !strings.Contains(r.text("schema-from"), "Schema 1 · current · 5 fields") {
		t.Errorf("options %q", r.text("schema-from"))
	}

	if r := e.get(c, page+"/schema?from=1&to=0"); r.doc.Find(`[data-testid="schema-change"][data-kind="added"][data-field="region"]`).Length() != 1 {
		t.Errorf("reversed diff: %q", r.text("schema-diff"))
	}
	if r := e.get(c, page+"/schema?from=1&to=1"); !r.has("schema-diff-none") {
		t.Errorf("same schema: %q", r.text("schema-diff"))
	}
	for q, status := range map[string]int{"?from=7": http.StatusNotFound, "?to=x": http.StatusUnprocessableEntity} {
		if r := e.get(c, page+"/schema"+q); r.status != status {
			t.Errorf("%s: %d, want %d", q, r.status, status)
		}
	}
	e.seed("vec", catalog.FormatLance, "prod", "docs")
	if r := e.get(c, "/buckets/vec/namespaces/prod/tables/docs/schema"); r.status != http.StatusOK || !r.has("schema-history-error") {
		t.Errorf("Lance table with no version on storage: %d %q", r.status, r.text("schema-history-error"))
	}
}
