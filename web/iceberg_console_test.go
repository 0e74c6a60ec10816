package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// icebergForm is a valid create-table form; cases change what they test.
func icebergForm(name string) url.Values {
	return url.Values{
		"name":           {name},
		"col_name":       {"id", "name", "region", "amount", "ts"},
		"col_type":       {"long", "string", "string", "decimal", "timestamptz"},
		"col_precision":  {"", "", "", "9", ""},
		"col_scale":      {"", "", "", "2", ""},
		"col_required":   {"yes", "no", "no", "no", "no"},
		"part_transform": {"none"},
		"part_source":    {""},
		"part_n":         {""},
	}
}

func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = strings.Split(kv[i+1], "|")
	}
	return out
}

const createPath = "/buckets/lake/namespaces/raw/create-table"

// An admin creates an Iceberg table through the schema builder; the catalog
// then reads the metadata file it wrote, and the table page shows it.
func TestIcebergCreateTable(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()

	ns := e.get(c, "/buckets/lake/namespaces/raw")
	if !ns.has("create-iceberg-table") || !ns.has("iceberg-create-note") || ns.has("declare-table-form") {
		t.Fatalf("namespace page lacks the create control: %s", ns.body)
	}
	form := e.get(c, createPath)
	if form.status != 200 || !form.has("iceberg-create-form") || form.doc.Find(`[data-testid="schema-row"]`).Length() != 1 {
		t.Fatalf("create form: %d %s", form.status, form.body)
	}
	if v, _ := form.doc.Find(`[data-testid="add-column"]`).Attr("hx-get"); v != "/fragments/iceberg-column" {
		t.Fatalf("add-column hx-get = %q", v)
	}
	row := e.get(c, "/fragments/iceberg-column")
	if row.status != 200 || row.doc.Find(`input[name="col_name"]`).Length() != 1 || row.doc.Find(`select[name="col_type"] option`).Length() != 12 {
		t.Fatalf("row fragment: %d %s", row.status, row.body)
	}

	r := e.post(c, createPath, with(icebergForm("events"), "part_transform", "day", "part_source", "ts"))
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/lake/namespaces/raw/tables/events" {
		t.Fatalf("create: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	tbl, err := e.table("lake", "raw", "events")
	if err != nil || tbl.Format != catalog.FormatIceberg {
		t.Fatalf("table = %+v, %v", tbl, err)
	}
	md, err := iceberg.LoadTableMetadata(context.Background(), e.store.Storage(), tbl)
	if err != nil {
		t.Fatalf("LoadTableMetadata: %v", err)
	}
	var got []string
	for _, col := range md.Columns {
		got = append(got, fmt.Sprintf("%s:%s:%v", col.Name, col.Type, col.Required))
	}
	want := "id:long:true name:string:false region:string:false amount:decimal(9,2):false ts:timestamptz:false"
	if strings.Join(got, " ") != want {
		t.Fatalf("columns = %v", got)
	}
	if len(md.PartitionSpec) != 1 || md.PartitionSpec[0].Transform != "day" || md.PartitionSpec[0].SourceName != "ts" || md.PartitionSpec[0].Name != "ts_day" {
		t.Fatalf("partition spec = %+v", md.PartitionSpec)
	}
	if md.FormatVersion != 2 || md.SnapshotCount != 0 {
		t.Fatalf("format %d, snapshots %d", md.FormatVersion, md.SnapshotCount)
	}

	page := e.get(c, "/buckets/lake/namespaces/raw/tables/events")
	if page.status != 200 {
		t.Fatalf("table page %d: %s", page.status, page.body)
	}
	for id, want := range map[string]string{
		"iceberg-records": "—", "iceberg-data-files": "—", "iceberg-size": "—", "iceberg-snapshot-count": "0",
		"iceberg-partition-field": "day(ts) AS ts_day", "iceberg-format-version": "v2", "iceberg-unsorted": "Unsorted",
	} {
		if got := page.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if !page.has("iceberg-no-snapshots") || page.has("iceberg-empty") {
		t.Error("a table without snapshots should say so")
	}
	if typ := page.doc.Find(`[data-testid="iceberg-column"][data-path="amount"] [data-testid="iceberg-column-type"]`).Text(); typ != "decimal(9,2)" {
		t.Errorf("amount type = %q", typ)
	}
	data := e.get(c, "/buckets/lake/namespaces/raw/tables/events/data")
	if data.status != 200 || !data.has("iceberg-data-empty") || data.has("data-grid") {
		t.Errorf("Browse Data of an empty table: %d %s", data.status, data.body)
	}

	again := e.post(c, createPath, icebergForm("events"))
	if again.status != http.StatusConflict || !strings.Contains(again.text("error-name"), "already exists") {
		t.Fatalf("re-create: %d %q", again.status, again.text("error-name"))
	}
	bucket := e.post(c, createPath, with(icebergForm("byid"), "part_transform", "bucket", "part_source", "id", "part_n", "16"))
	if bucket.status != http.StatusSeeOther {
		t.Fatalf("bucket partition: %d %s", bucket.status, bucket.body)
	}
	p2 := e.get(c, "/buckets/lake/namespaces/raw/tables/byid")
	if got := p2.text("iceberg-partition-field"); got != "bucket[16](id) AS id_bucket" {
		t.Fatalf("bucket partition field = %q", got)
	}
}

// Every validation failure comes back as 422 with the reason at its field,
// and nothing is created.
func TestIcebergCreateValidation(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()
	cases := []struct {
		name  string
		form  url.Values
		field string
		says  string
	}{
		{"duplicate column", with(icebergForm("t1"), "col_name", "id|name|ID|amount|ts"), "col-2-name", "appears twice"},
		{"partition source missing", with(icebergForm("t1"), "part_transform", "identity", "part_source", "nope"), "part_source", "no column nope"},
		{"partition source empty", with(icebergForm("t1"), "part_transform", "identity"), "part_source", "name the column"},
		{"day on a string", with(icebergForm("t1"), "part_transform", "day", "part_source", "name"), "part_source", "date or timestamp"},
		{"bucket N zero", with(icebergForm("t1"), "part_transform", "bucket", "part_source", "id", "part_n", "0"), "part_n", "1 to 1024"},
		{"bucket N too large", with(icebergForm("t1"), "part_transform", "bucket", "part_source", "id", "part_n", "1025"), "part_n", "1 to 1024"},
		{"bucket N not a number", with(icebergForm("t1"), "part_transform", "bucket", "part_source", "id", "part_n", "ten"), "part_n", "1 to 1024"},
		{"bucket on a double", with(icebergForm("t1"), "col_type", "double|string|string|string|date", "part_transform", "bucket", "part_source", "id", "part_n", "4"), "part_source", "cannot hash"},
		{"bad table name", icebergForm("Bad/Name"), "name", "table name"},
		{"empty table name", icebergForm(""), "name", "table name"},
		{"column name starts with a digit", with(icebergForm("t1"), "col_name", "1id|name|region|amount|ts"), "col-0-name", "letters, digits"},
		{"column name with a dot", with(icebergForm("t1"), "col_name", "id|a.b|region|amount|ts"), "col-1-name", "letters, digits"},
		{"blank column name", with(icebergForm("t1"), "col_name", "id||region|amount|ts"), "col-1-name", "name this column"},
		{"decimal precision too large", with(icebergForm("t1"), "col_precision", "||||40|"), "col-3-type", "precision"},
		{"decimal scale above precision", with(icebergForm("t1"), "col_scale", "|||12|"), "col-3-type", "scale"},
		{"unknown type", with(icebergForm("t1"), "col_type", "long|varchar|string|string|date"), "col-1-type", "pick a type"},
		{"no columns", url.Values{"name": {"t1"}, "part_transform": {"none"}}, "columns", "at least one column"},
		{"unknown transform", with(icebergForm("t1"), "part_transform", "month", "part_source", "ts"), "part_transform", "pick none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(c, createPath, tc.form)
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			msg := r.text("error-" + tc.field)
			if !strings.Contains(strings.ToLower(msg), strings.ToLower(tc.says)) {
				t.Fatalf("error-%s = %q, want it to mention %q (body %s)", tc.field, msg, tc.says, r.body)
			}
			markable := tc.field == "name" || tc.field == "part_source" || tc.field == "part_n" || strings.HasSuffix(tc.field, "-name")
			if inv, _ := r.doc.Find(`[aria-describedby~="err-` + tc.field + `"]`).Attr("aria-invalid"); markable && inv != "true" {
				t.Errorf("field %s not marked invalid", tc.field)
			}
			// What the user typed survives the round trip.
			if got := r.doc.Find(`input[name="col_name"]`).Length(); got != len(tc.form["col_name"]) {
				t.Errorf("rows re-rendered = %d, want %d", got, len(tc.form["col_name"]))
			}
		})
	}
	tables, _, err := e.store.ListTables(context.Background(), "lake", []string{"raw"}, catalog.ListTablesOptions{IncludeDeclared: true})
	if err != nil || len(tables) != 0 {
		t.Fatalf("a refused form created tables: %v %v", tables, err)
	}

	t.Run("markup in names stays inert", func(t *testing.T) {
		xss := `<script>alert(1)</script>`
		r := e.post(c, createPath, with(icebergForm(xss), "col_name", `id|<img src=x onerror=alert(1)>|region|amount|ts`, "part_transform", "identity", "part_source", `"><b>x</b>`))
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d", r.status)
		}
		for _, raw := range []string{xss, `<img src=x`, `"><b>x</b>`} {
			if strings.Contains(r.body, raw) {
				t.Errorf("body carries %q unescaped", raw)
			}
		}
		if v, _ := r.doc.Find(`[data-testid="iceberg-name-input"]`).Attr("value"); v != xss {
			t.Errorf("name input value = %q, want it kept as typed", v)
		}
		if r.doc.Find("script:not([src])").Length() != 0 || r.doc.Find("img").Length() != 0 || r.doc.Find("b").Length() != 0 {
			t.Error("user input became markup")
		}
	})

	t.Run("lance bucket has no create form", func(t *testing.T) {
		e.seed("vec", catalog.FormatLance, "prod")
		if r := e.get(c, "/buckets/vec/namespaces/prod/create-table"); r.status != http.StatusConflict {
			t.Fatalf("status %d", r.status)
		}
		if r := e.get(c, "/buckets/vec/namespaces/prod"); r.has("create-iceberg-table") {
			t.Fatal("Lance namespace offers Create Iceberg table")
		}
	})
	t.Run("multi-level namespace", func(t *testing.T) {
		if _, err := e.store.CreateNamespace(context.Background(), "lake", []string{"raw", "eu"}, nil); err != nil {
			t.Fatal(err)
		}
		r := e.post(c, "/buckets/lake/namespaces/raw.eu/create-table", icebergForm("t2"))
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/lake/namespaces/raw.eu/tables/t2" {
			t.Fatalf("create in raw.eu: %d %q %s", r.status, r.header.Get("Location"), r.body)
		}
		if tb, err := e.table("lake", "raw.eu", "t2"); err != nil || !strings.Contains(tb.Location, "raw.eu") {
			t.Fatalf("table in raw.eu = %+v, %v", tb, err)
		}
	})
	t.Run("unset bucket offers both", func(t *testing.T) {
		e.seed("old", catalog.FormatUnset, "ns")
		r := e.get(c, "/buckets/old/namespaces/ns")
		if !r.has("create-iceberg-table") || !r.has("declare-table-form") {
			t.Fatal("unset bucket should offer Lance declare and Iceberg create")
		}
		if r := e.post(c, "/buckets/old/namespaces/ns/create-table", icebergForm("t")); r.status != http.StatusSeeOther {
			t.Fatalf("create in unset bucket: %d %s", r.status, r.body)
		}
	})
}

// A read-only user sees no Create table control on the namespace page and
// cannot create.
func TestIcebergCreateReadonly(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.reader()
	if r := e.get(c, "/buckets/lake/namespaces/raw"); r.status != 200 || r.has("create-iceberg-table") || r.has("iceberg-create") {
		t.Fatalf("reader namespace page: %d, has create control", r.status)
	}
	// The form itself is readable, disabled (TestHardening8…); writing is not.
	if r := e.post(c, createPath, icebergForm("events")); r.status != http.StatusForbidden {
		t.Fatalf("reader POST: %d", r.status)
	}
	if _, err := e.table("lake", "raw", "events"); err == nil {
		t.Fatal("read-only POST created a table")
	}
}

var eventsArrow = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: false},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "region", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)
