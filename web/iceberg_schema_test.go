package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// A table an engine created with nested types, a sort order and properties:
// nested fields are indented under their parent, every panel reads.
func TestIcebergTableNestedSchema(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true})
	body := `{"name":"people","schema":{"type":"struct","schema-id":0,"fields":[
		{"id":1,"name":"id","required":true,"type":"long"},
		{"id":2,"name":"address","required":false,"type":{"type":"struct","fields":[
			{"id":3,"name":"city","required":false,"type":"string"},
			{"id":4,"name":"zip","required":true,"type":"int"}]}},
		{"id":5,"name":"tags","required":false,"type":{"type":"list","element-id":6,"element-required":false,"element":"string"}},
		{"id":7,"name":"visits","required":false,"type":{"type":"list","element-id":8,"element-required":true,"element":{"type":"struct","fields":[
			{"id":9,"name":"at","required":true,"type":"timestamptz"}]}}}]},
		"write-order":{"order-id":1,"fields":[{"source-id":1,"transform":"identity","direction":"desc","null-order":"nulls-last"}]},
		"properties":{"owner":"ops","write.format.default":"parquet"}}`
	req := httptest.NewRequest(http.MethodPost, "/v1/lake/namespaces/raw/tables", strings.NewReader(body))
	rec := httptest.NewRecorder()
	rs.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("REST create: %d %s", rec.Code, rec.Body)
	}
	page := e.get(e.admin(), "/buckets/lake/namespaces/raw/tables/people")
	if page.status != 200 {
		t.Fatalf("table page %d", page.status)
	}
	var got []string
	page.doc.Find(`[data-testid="iceberg-column"]`).Each(func(_ int, s *goquery.Selection) {
		path, _ := s.Attr("data-path")
		depth, _ := s.Attr("data-depth")
		got = append(got, path+"@"+depth+":"+strings.TrimSpace(s.Find(`[data-testid="iceberg-column-type"]`).Text()))
	})
	want := []string{
		"id@0:long",
		"address@0:struct<city: string, zip: int not null>", "address.city@1:string", "address.zip@1:int",
		"tags@0:list<string>",
		"visits@0:list<struct<at: timestamptz not null>>", "visits.element@1:struct<at: timestamptz not null>", "visits.element.at@2:timestamptz",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("schema rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cls, _ := page.doc.Find(`[data-path="visits.element.at"] td`).Eq(1).Attr("class"); cls != "col-depth-2" {
		t.Errorf("nested cell class = %q", cls)
	}
	if got := page.text("iceberg-sort-field"); got != "id desc nulls-last" {
		t.Errorf("sort order = %q", got)
	}
	if got := page.doc.Find(`[data-testid="property-row"][data-key="owner"] [data-testid="property-value"]`).Text(); got != "ops" {
		t.Errorf("owner property = %q", got)
	}
	if !page.has("iceberg-unpartitioned") || !page.has("iceberg-no-snapshots") || page.has("iceberg-refs") {
		t.Error("an unwritten, unpartitioned table should say so")
	}
}
