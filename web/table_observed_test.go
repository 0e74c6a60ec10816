package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

const docsAttributes = `{
  "rows": 20000, "fragments": 12, "small_fragments": 9, "version": 12, "versions": 12, "bytes": 62914560,
  "schema": [
    {"name": "id", "type": "int64", "nullable": false},
    {"name": "vector", "type": {"name": "fixed_size_list", "listSize": 768}, "nullable": true,
     "children": [{"name": "item", "type": "float32", "nullable": true}]},
    {"name": "meta", "type": "struct", "nullable": true, "children": [
      {"name": "source", "type": "utf8", "nullable": true},
      {"name": "tags", "type": "list", "nullable": true, "children": [{"name": "item", "type": "utf8", "nullable": true}]}]}
  ],
  "indices": [{"name": "vector_idx", "type": "IVF_PQ", "columns": ["vector"], "indexed_rows": 15000, "unindexed_rows": 5000}],
  "history": [
    {"version": 10, "timestamp": 1700000000000, "rows": 15000, "fragments": 10, "bytes": 47185920},
    {"version": 12, "timestamp": "2026-11-29T09:00:00Z", "rows": 20000, "fragments": 12, "bytes": 62914560},
    {"version": 11, "timestamp": 1700000100000, "rows": 18000, "fragments": 11, "bytes": 56623104}
  ]
}`

func TestTableObservedPanels(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	c := e.admin()
	page := "/buckets/vec/namespaces/prod/tables/docs"

	t.Run("empty state without an observation", func(t *testing.T) {
		r := e.get(c, page)
		if r.status != http.StatusOK || !strings.Contains(r.text("lance-empty"), "No worker has described this table yet — start a Lance worker (make run starts one).") {
			t.Fatalf("status %d: %s", r.status, r.text("lance-empty"))
		}
		if r.has("versions-panel") || r.has("observed-badge") {
			t.Error("panels rendered without an observation")
		}
	})

	if _, err := e.obs.Put(observe.Observation{ObjectID: tbl.ID, Format: catalog.FormatLance, WorkerID: "w-lance",
		ObservedAt: time.Now().Add(-3 * time.Minute), Attributes: json.RawMessage(docsAttributes)}); err != nil {
		t.Fatal(err)
	}

	r := e.get(c, page)
	if r.status != http.StatusOK {
		t.Fatalf("status %d", r.status)
	}
	t.Run("stats and badge", func(t *testing.T) {
		for id, want := range map[string]string{"obs-rows": "20,000", "obs-fragments": "12 (9 small)", "obs-version": "12", "obs-versions": "12", "obs-bytes": "60.0 MiB"} {
			if got := strings.Join(strings.Fields(r.text(id)), " "); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		if got := r.text("observed-badge"); got != "as seen 3 min ago by w-lance" {
			t.Errorf("badge %q", got)
		}
		if r.has("lance-empty") {
			t.Error("empty state shown with an observation")
		}
	})
	t.Run("nested schema", func(t *testing.T) {
		nested := r.doc.Find(`[data-testid="schema"] > li`).Eq(2).Find("ul > li")
		if nested.Length() != 3 || !strings.Contains(nested.Eq(0).Text(), "source") || !strings.Contains(nested.Eq(1).Text(), "tags") {
			t.Errorf("meta's children not nested: %d items", nested.Length())
		}
		if !strings.Contains(r.doc.Find(`[data-testid="schema"] > li`).Eq(1).Text(), "fixed_size_list") {
			t.Error("vector type not shown")
		}
		if !strings.Contains(r.doc.Find(`[data-testid="schema"] > li`).Eq(0).Text(), "not null") {
			t.Error("non-nullable id not marked")
		}
	})
	t.Run("index coverage bar", func(t *testing.T) {
		row := r.doc.Find(`[data-testid="index-row"][data-index="vector_idx"]`)
		if got := strings.TrimSpace(row.Find(`[data-testid="coverage-pct"]`).Text()); got != "75%" {
			t.Errorf("coverage %q", got)
		}
		if w := row.Find(`rect.coverage-fill`).AttrOr("width", ""); w != "75" {
			t.Errorf("bar width %q", w)
		}
		if !strings.Contains(row.Text(), "15,000") || !strings.Contains(row.Text(), "5,000") {
			t.Errorf("indexed/unindexed rows missing: %s", row.Text())
		}
	})
	t.Run("versions newest first with an SVG chart", func(t *testing.T) {
		var versions []string
		r.doc.Find(`[data-testid="version-row"] td:first-child`).Each(func(_ int, s *goquery.Selection) {
			versions = append(versions, strings.TrimSpace(s.Text()))
		})
		if strings.Join(versions, ",") != "12,11,10" {
			t.Errorf("versions %v, want newest first", versions)
		}
		svg := r.doc.Find(`[data-testid="versions-chart"] svg`)
		if svg.Length() != 1 {
			t.Fatal("no SVG chart")
		}
		rows := svg.Find(`[data-testid="chart-rows"]`).AttrOr("points", "")
		if len(strings.Fields(rows)) != 3 || !strings.HasPrefix(rows, "24,") {
			t.Errorf("rows line %q", rows)
		}
		if svg.Find(`[data-testid="chart-bytes"]`).AttrOr("points", "") == "" || svg.Find("circle title").Length() != 3 {
			t.Error("bytes line or point titles missing")
		}
		if strings.Contains(r.body, ` style=`) {
			t.Error("inline style attribute (CSP forbids it)")
		}
	})
}
