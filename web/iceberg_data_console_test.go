package web

// The console on an Iceberg table with data: its pages and Browse Data.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/icebergrest"
)

// eventsBatch is rows id = from..to-1; every fifth name is null.
func eventsBatch(from, to int64) arrow.Table {
	b := array.NewRecordBuilder(memory.DefaultAllocator, eventsArrow)
	defer b.Release()
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		if i%5 == 0 {
			b.Field(1).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		}
		b.Field(2).(*array.StringBuilder).Append([]string{"eu", "us"}[i%2])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(eventsArrow, []arrow.RecordBatch{rec})
}

// A table created in the console, then written twice by iceberg-go through
// the real Iceberg REST catalog on the same store: the table page shows both
// snapshots and Browse Data shows the rows of either.
func TestIcebergTableWithData(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()
	form := url.Values{"name": {"events"}, "col_name": {"id", "name", "region"}, "col_type": {"long", "string", "string"},
		"col_precision": {"", "", ""}, "col_scale": {"", "", ""}, "col_required": {"yes", "no", "no"},
		"part_transform": {"identity"}, "part_source": {"region"}}
	if r := e.post(c, createPath, form); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}

	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true})
	hs := httptest.NewServer(rs.Handler())
	t.Cleanup(hs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"raw", "events"})
	if err != nil {
		t.Fatalf("iceberg-go load of a console-created table: %v", err)
	}
	if tbl, err = tbl.AppendTable(ctx, eventsBatch(0, 30), 1024, nil); err != nil {
		t.Fatalf("first append: %v", err)
	}
	if tbl, err = tbl.AppendTable(ctx, eventsBatch(30, 50), 1024, nil); err != nil {
		t.Fatalf("second append: %v", err)
	}

	base := "/buckets/lake/namespaces/raw/tables/events"
	page := e.get(c, base)
	if page.status != 200 {
		t.Fatalf("table page: %d %s", page.status, page.body)
	}
	if got := page.text("meta-rows"); got != "50" {
		t.Errorf("Rows = %q", got)
	}
	if got := page.text("iceberg-records"); got != "50" {
		t.Errorf("records card = %q", got)
	}
	if got := page.text("iceberg-snapshot-count"); got != "2" {
		t.Errorf("snapshot card = %q", got)
	}
	if got := page.text("iceberg-size"); !strings.HasSuffix(got, "B") || got == "—" {
		t.Errorf("size card = %q", got)
	}
	if got := page.text("iceberg-partition-field"); got != "identity(region) AS region" {
		t.Errorf("partition = %q", got)
	}
	snaps := page.doc.Find(`[data-testid="iceberg-snapshot"]`)
	if snaps.Length() != 2 {
		t.Fatalf("snapshots shown = %d", snaps.Length())
	}
	type row struct{ added, total, current string }
	var rows []row
	var ids []string
	snaps.Each(func(_ int, s *goquery.Selection) {
		cur, _ := s.Attr("data-current")
		id, _ := s.Attr("data-snapshot")
		ids = append(ids, id)
		rows = append(rows, row{strings.TrimSpace(s.Find(`[data-testid="iceberg-snapshot-added"]`).Text()),
			strings.TrimSpace(s.Find(`[data-testid="iceberg-snapshot-total"]`).Text()), cur})
	})
	if rows[0] != (row{"20", "50", "true"}) || rows[1] != (row{"30", "30", "false"}) {
		t.Fatalf("snapshot rows (newest first) = %+v", rows)
	}
	if page.doc.Find(`[data-testid="iceberg-current"]`).Length() != 1 {
		t.Error("exactly one snapshot should be marked current")
	}
	if ref := page.doc.Find(`[data-testid="iceberg-ref"][data-ref="main"]`); !strings.Contains(ref.Text(), ids[0]) {
		t.Errorf("main ref = %q, want snapshot %s", ref.Text(), ids[0])
	}

	data := e.get(c, base+"/data")
	if data.status != 200 || !data.has("data-grid") {
		t.Fatalf("Browse Data: %d %s", data.status, data.body)
	}
	if n := data.doc.Find(`[data-testid="grid-row"]`).Length(); n != 50 {
		t.Errorf("current snapshot rows = %d, want 50", n)
	}
	if n := data.doc.Find(`[data-testid="grid-null"]`).Length(); n != 10 {
		t.Errorf("null cells = %d, want 10", n)
	}
	if sel, _ := data.doc.Find(`[data-testid="snapshot-select"] option[selected]`).Attr("value"); sel != ids[0] {
		t.Errorf("picker selects %q, want the current %s", sel, ids[0])
	}
	if data.has("iceberg-deletes-warning") {
		t.Error("delete warning without delete files")
	}
	var cols []string
	data.doc.Find(`[data-testid="grid-column"]`).Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("data-column"); cols = append(cols, v) })
	if strings.Join(cols, ",") != "id,name,region" {
		t.Errorf("grid columns = %v", cols)
	}

	first := e.get(c, base+"/data?snapshot="+ids[1]+"&limit=100")
	if n := first.doc.Find(`[data-testid="grid-row"]`).Length(); first.status != 200 || n != 30 {
		t.Fatalf("first snapshot rows = %d (status %d)", n, first.status)
	}
	if sel, _ := first.doc.Find(`[data-testid="snapshot-select"] option[selected]`).Attr("value"); sel != ids[1] {
		t.Errorf("picker selects %q after reload, want %s", sel, ids[1])
	}
	if sel, _ := first.doc.Find(`[data-testid="limit-select"] option[selected]`).Attr("value"); sel != "100" {
		t.Errorf("limit select = %q", sel)
	}
	if !strings.Contains(first.text("grid-footer"), "All 30 rows") {
		t.Errorf("footer = %q", first.text("grid-footer"))
	}
	if link, _ := page.doc.Find(`[data-testid="iceberg-snapshot"][data-snapshot="` + ids[1] + `"] [data-testid="iceberg-snapshot-data"]`).Attr("href"); link != base+"/data?snapshot="+ids[1] {
		t.Errorf("snapshot link = %q", link)
	}

	if r := e.get(c, base+"/data?snapshot=12345"); r.status != http.StatusNotFound || !r.has("iceberg-data-error") || !r.has("snapshot-picker") {
		t.Errorf("unknown snapshot: %d", r.status)
	}

	small := e.get(c, base+"/data?limit=7") // not a choice: the default 50
	if n := small.doc.Find(`[data-testid="grid-row"]`).Length(); n != 50 {
		t.Errorf("limit=7 gave %d rows", n)
	}

	// An equality delete (id 7): Browse Data warns that rows are raw.
	ds := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "region", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	db := array.NewRecordBuilder(memory.DefaultAllocator, ds)
	db.Field(0).(*array.Int64Builder).Append(7)
	db.Field(1).(*array.StringBuilder).Append("us")
	del := db.NewRecordBatch()
	db.Release()
	defer del.Release()
	txn := tbl.NewTransaction()
	if err := txn.CommitEqualityDeletes(ctx, []int{1}, func(yield func(arrow.RecordBatch, error) bool) { yield(del, nil) }, nil); err != nil {
		t.Fatalf("equality delete: %v", err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatalf("commit delete: %v", err)
	}
	withDeletes := e.get(c, base+"/data")
	if !withDeletes.has("iceberg-deletes-warning") || withDeletes.doc.Find(`[data-testid="grid-row"]`).Length() != 50 {
		t.Errorf("after a delete: warning %v, %d rows", withDeletes.has("iceberg-deletes-warning"), withDeletes.doc.Find(`[data-testid="grid-row"]`).Length())
	}
	if p := e.get(c, base); p.text("iceberg-delete-files") == "0" || p.doc.Find(`[data-testid="iceberg-snapshot"]`).Length() != 3 {
		t.Errorf("after a delete: delete files %q, %d snapshots", p.text("iceberg-delete-files"), p.doc.Find(`[data-testid="iceberg-snapshot"]`).Length())
	}

	// The metadata file goes bad: the page says so in a sentence, never a 500.
	entry, err := e.table("lake", "raw", "events")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimPrefix(entry.MetadataLocation, "file://"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := e.get(c, base)
	if bad.status != 200 || !strings.Contains(bad.text("iceberg-error"), "could not be read") || bad.has("iceberg-summary") {
		t.Fatalf("unreadable metadata: %d %q", bad.status, bad.text("iceberg-error"))
	}
	if r := e.get(c, base+"/data"); r.status != 200 || !r.has("iceberg-data-error") {
		t.Fatalf("Browse Data with unreadable metadata: %d", r.status)
	}
}

// Iceberg Browse Data has the column picker and filter Lance Browse Data
// has, and pages past the first rows; a filter that cannot be read or
// applied is a sentence next to the field, never a 500.
func TestIcebergBrowseDataFilterColumnsPages(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()
	form := url.Values{"name": {"events"}, "col_name": {"id", "name", "region"}, "col_type": {"long", "string", "string"},
		"col_precision": {"", "", ""}, "col_scale": {"", "", ""}, "col_required": {"yes", "no", "no"},
		"part_transform": {"none"}, "part_source": {""}, "part_n": {""}}
	if r := e.post(c, createPath, form); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	rs := icebergrest.New(icebergrest.Config{Store: e.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Anonymous: true})
	hs := httptest.NewServer(rs.Handler())
	t.Cleanup(hs.Close)
	cat, err := rest.NewCatalog(ctx, "floe", hs.URL, rest.WithWarehouseLocation("lake"))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"raw", "events"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rng := range [][2]int64{{0, 300}, {300, 500}} {
		if tbl, err = tbl.AppendTable(ctx, eventsBatch(rng[0], rng[1]), 64, nil); err != nil {
			t.Fatal(err)
		}
	}
	base := "/buckets/lake/namespaces/raw/tables/events/data"
	ids := func(r response) []string {
		var out []string
		r.doc.Find(`[data-testid="grid-row"]`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.TrimSpace(s.Find("td").First().Text()))
		})
		return out
	}

	r := e.get(c, base+"?col=id&col=region&filter="+url.QueryEscape("region = 'eu' AND id >= 100 AND id < 120")+"&limit=100")
	if r.status != 200 {
		t.Fatalf("filtered: %d %s", r.status, r.text("iceberg-data-error"))
	}
	var cols []string
	r.doc.Find(`[data-testid="grid-column"]`).Each(func(_ int, s *goquery.Selection) { cols = append(cols, s.AttrOr("data-column", "")) })
	if strings.Join(cols, ",") != "id,region" {
		t.Errorf("columns %v", cols)
	}
	got := ids(r)
	if len(got) != 10 || got[0] != "100" || got[9] != "118" {
		t.Errorf("filtered ids %v", got)
	}
	if n := r.doc.Find(`[data-testid="column-choice"]:checked`).Length(); n != 2 {
		t.Errorf("%d columns ticked, want 2", n)
	}
	if v := r.doc.Find(`#data-filter`).AttrOr("value", ""); !strings.Contains(v, "region = 'eu'") {
		t.Errorf("filter kept %q", v)
	}

	// Pages past the first 200 rows, without and with a filter.
	p := e.get(c, base+"?limit=200&offset=200")
	if got := ids(p); len(got) != 200 || p.text("rows-range") != "Rows 201–400" {
		t.Errorf("page 2: %d rows, range %q", len(got), p.text("rows-range"))
	}
	next := p.doc.Find(`[data-testid="rows-next"]`).AttrOr("href", "")
	last := e.get(c, next)
	if got := ids(last); len(got) != 100 || last.has("rows-next") {
		t.Errorf("page 3 (%s): %d rows, next %v", next, len(got), last.has("rows-next"))
	}
	all := map[string]bool{}
	for _, link := range []string{base + "?limit=200", base + "?limit=200&offset=200", next} {
		for _, id := range ids(e.get(c, link)) {
			if all[id] {
				t.Errorf("row %s on two pages", id)
			}
			all[id] = true
		}
	}
	if len(all) != 500 {
		t.Errorf("%d distinct rows over the pages, want 500", len(all))
	}
	us := map[string]bool{}
	link := base + "?limit=50&filter=" + url.QueryEscape("region = 'us'")
	for range 10 {
		f := e.get(c, link)
		for _, id := range ids(f) {
			var n int
			fmt.Sscan(id, &n)
			if us[id] || n%2 != 1 {
				t.Errorf("filtered page %s: row %s again or not a us row", link, id)
			}
			us[id] = true
		}
		if link = f.doc.Find(`[data-testid="rows-next"]`).AttrOr("href", ""); link == "" {
			break
		}
	}
	if len(us) != 250 {
		t.Errorf("%d us rows over the filtered pages, want 250", len(us))
	}

	for q, want := range map[string]string{
		"?filter=" + url.QueryEscape("id >"):                                                   "cannot be read",
		"?filter=" + url.QueryEscape("nope = 1"):                                               "does not have",
		"?filter=" + url.QueryEscape("id = 'x'"):                                               "compare it with a number",
		"?filter=" + url.QueryEscape(strings.Repeat("(", 40)+"id = 1"+strings.Repeat(")", 40)): "nests deeper",
	} {
		r := e.get(c, base+q)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("error-filter"), want) {
			t.Errorf("%s: %d %q, want 422 with %q", q, r.status, r.text("error-filter"), want)
		}
	}
	if r := e.get(c, base+"?col=nope"); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("iceberg-data-error"), "no column") {
		t.Errorf("unknown column: %d %q", r.status, r.text("iceberg-data-error"))
	}
}
