package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
)

// Every page renders for an admin with the elements tests and users rely on:
// PocketBase-style scenarios with expected and not-expected content.
func TestPagesRender(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	e.seed("lake", catalog.FormatIceberg, "raw")
	if _, err := e.store.CreateNamespace(context.Background(), "vec", []string{"prod", "eu"}, nil); err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	cases := []struct {
		path    string
		ids     []string
		want    []string
		notWant []string
	}{
		{"/buckets", []string{"buckets-table", "open-create-bucket", "format-card-LANCE", "format-card-ICEBERG", "nav-buckets"},
			[]string{"LanceDB, pylance, lance-spark, lance-ray", "Spark, Trino, DuckDB, PyIceberg", `htmx.min.js?v=`, `includeIndicatorStyles&#34;:false`}, nil},
		{"/buckets/vec", []string{"namespaces-table", "create-namespace-form", "snippet-lancedb-js", "delete-bucket-form", "breadcrumb"},
			[]string{"prod.eu", "then their data is deleted", "connectNamespace"}, []string{"pyiceberg"}},
		{"/buckets/lake", []string{"snippet-pyiceberg"}, []string{`warehouse=&#34;lake&#34;`, `list_tables(&#34;raw&#34;)`}, []string{"connectNamespace", "&lt;API_KEY"}},
		{"/buckets/vec/namespaces/prod", []string{"tables-table", "declare-table-form", "child-namespaces", "table-filter"},
			[]string{"items", "prod.eu"}, []string{"iceberg-create-note"}},
		{"/buckets/lake/namespaces/raw", []string{"iceberg-create-note", "tables-empty"}, []string{"PyIceberg", "Spark"}, []string{"declare-table-form"}},
		{"/buckets/vec/namespaces/prod/tables/items", []string{"table-metadata", "meta-arn", "meta-id", "meta-location", "meta-state", "lance-empty", "drop-table-form", "deregister-table-form"},
			[]string{"No worker has described this table yet", "declared", "deletes the table", "the data stays"}, nil},
		{"/buckets/vec/namespaces/prod/tables/items/data", []string{"data-unavailable", "data-form"}, []string{"Browse Data needs a connected Lance worker"}, nil},
		{"/buckets/vec/namespaces/prod/tables/items/maintenance", []string{"notice", "task-history"}, []string{"Maintenance", "task service is not running"}, nil},
		// items is only declared (no data to open): the snippets list prod's tables.
		{"/connect", []string{"snippet-lancedb-js", "snippet-pyiceberg", "copy-lancedb-js"},
			[]string{"http://127.0.0.1:9101", "http://127.0.0.1:8181", "FLOE_API_KEY", `db.tableNames([&#34;vec&#34;, &#34;prod&#34;])`, `warehouse=&#34;lake&#34;`},
			[]string{"&lt;API_KEY&gt;", "&#34;default&#34;", "my_table", "my-bucket", "&lt;lance-spark-version&gt;"}},
		{"/connect?bucket=lake", []string{"snippet-pyiceberg"}, nil, []string{"snippet-lancedb-js"}},
		{"/api-keys", []string{"keys-empty", "create-key-form"}, nil, nil},
		{"/workers", []string{"workers-empty"}, []string{"plugin channel"}, nil},
		{"/jobs", []string{"jobs-empty"}, []string{"plugin channel"}, nil},
		{"/job-types/lance_compact", []string{"job-type-empty"}, []string{"lance_compact", "descriptor"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(c, tc.path)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			for _, id := range tc.ids {
				if !r.has(id) {
					t.Errorf("missing data-testid %q", id)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("body lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(r.body, w) || r.has(w) {
					t.Errorf("body has %q", w)
				}
			}
			if strings.Contains(r.body, "<style") || strings.Contains(r.body, " style=") || strings.Contains(r.body, " onclick=") {
				t.Error("inline style or handler in page (CSP forbids it)")
			}
			r.doc.Find("script").Each(func(_ int, s *goquery.Selection) {
				if strings.TrimSpace(s.Text()) != "" {
					t.Error("inline script in page")
				}
			})
		})
	}
}

func TestConnectWithSurfacesOff(t *testing.T) {
	e := newEnv(t, Surfaces{Console: "127.0.0.1:9400", Iceberg: "0.0.0.0:8181"})
	r := e.get(e.admin(), "/connect")
	if r.has("snippet-lancedb-js") || strings.Contains(r.body, "9101") {
		t.Fatal("Lance snippets shown with the Lance surface off")
	}
	if r.has("snippet-pyiceberg") || !r.has("connect-no-bucket-Iceberg") || strings.Contains(r.body, "my-bucket") {
		t.Fatalf("without an Iceberg bucket the page should say so, not show a made-up one:\n%s", r.body)
	}
	e.seed("lake", catalog.FormatIceberg, "")
	r = e.get(e.admin(), "/connect")
	host := strings.TrimPrefix(e.srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]
	if !r.has("snippet-pyiceberg") || !strings.Contains(r.body, "http://"+host+":8181") || !strings.Contains(r.body, `warehouse=&#34;lake&#34;`) {
		t.Fatalf("iceberg snippet should use the browser's host for a wildcard bind and the real bucket:\n%s", r.text("snippets"))
	}
	none := newEnv(t, Surfaces{Console: "127.0.0.1:9400"})
	if r := none.get(none.admin(), "/connect"); !r.has("connect-empty") {
		t.Fatal("no empty state when every catalog is off")
	}
}

func TestNotFoundPages(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	c := e.admin()
	cases := []struct{ path, back string }{
		{"/buckets/nope", "/buckets"},
		{"/buckets/vec/namespaces/nope", "/buckets/vec"},
		{"/buckets/vec/namespaces/prod/tables/nope", "/buckets/vec/namespaces/prod"},
		{"/buckets/vec/namespaces/prod/tables/nope/data", "/buckets/vec/namespaces/prod"},
		{"/buckets/nope/namespaces/prod/tables/items", "/buckets/nope/namespaces/prod"},
		{"/jobs/j-1", "/jobs"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(c, tc.path)
			if r.status != http.StatusNotFound || !r.has("error-page") {
				t.Fatalf("status %d", r.status)
			}
			if href := r.doc.Find(`[data-testid="error-back"]`).AttrOr("href", ""); href != tc.back {
				t.Fatalf("back link %q, want %q", href, tc.back)
			}
			if r.text("current-user") != "admin" {
				t.Error("404 page lost the layout")
			}
		})
	}
}

func TestNamespaces(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "")
	c := e.admin()
	cases := []struct {
		name, input string
		status      int
		msg         string
	}{
		{"top level", "sales", http.StatusSeeOther, ""},
		{"child of existing", "sales.eu", http.StatusSeeOther, ""},
		{"child without parent", "ops.eu", http.StatusUnprocessableEntity, "ops"},
		{"mixed case and a space", "Sales EU", http.StatusSeeOther, ""},
		{"bad level", "sa$les", http.StatusUnprocessableEntity, "must not contain"},
		{"empty level", "a..b", http.StatusUnprocessableEntity, "1–255"},
		{"exists", "sales", http.StatusConflict, "sales"},
		{"empty", "", http.StatusUnprocessableEntity, "namespace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(c, "/buckets/vec/namespaces", url.Values{"namespace": {tc.input}})
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.text("error-namespace"))
			}
			if tc.status == http.StatusSeeOther {
				if r.header.Get("Location") != "/buckets/vec/namespaces/"+url.PathEscape(tc.input) {
					t.Fatalf("location %q", r.header.Get("Location"))
				}
				return
			}
			if msg := r.text("error-namespace"); !strings.Contains(msg, tc.msg) {
				t.Fatalf("field message %q lacks %q", msg, tc.msg)
			}
		})
	}
	r := e.post(c, "/buckets/vec/namespaces/sales/delete", url.Values{})
	if r.status != http.StatusConflict {
		t.Fatalf("delete non-empty namespace: %d", r.status)
	}
	if r := e.post(c, "/buckets/vec/namespaces/sales/delete", url.Values{"cascade": {"true"}}); r.status != http.StatusSeeOther {
		t.Fatalf("cascade delete: %d %s", r.status, r.body)
	}
}

func TestTablesPaginationAndFilter(t *testing.T) {
	e := newEnv(t, allSurfaces)
	names := make([]string, 120)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	e.seed("vec", catalog.FormatLance, "prod", names...)
	t5, _ := e.table("vec", "prod", "t005")
	e.stats.set(t5.ID, 1234567)
	c := e.admin()

	cases := []struct {
		query       string
		rows        int
		first, last string
		next        string // the Next link ("" = none)
		firstLink   bool
	}{
		{"", 50, "t000", "t049", "/buckets/vec/namespaces/prod?after=t049", false},
		{"?after=t049", 50, "t050", "t099", "/buckets/vec/namespaces/prod?after=t099", true},
		{"?after=t099", 20, "t100", "t119", "", true},
		{"?page=2", 50, "t050", "t099", "/buckets/vec/namespaces/prod?after=t099", false}, // an old numbered link still lands
		{"?page=99", 20, "t100", "t119", "", false},
		{"?after=t119", 0, "", "", "", true},
		{"?q=t11", 10, "t110", "t119", "", false},
		{"?q=t&after=t049", 50, "t050", "t099", "/buckets/vec/namespaces/prod?after=t099&q=t", true},
		{"?q=zzz", 0, "", "", "", false},
		{"?q=t1", 20, "t100", "t119", "", false}, // two characters: names starting with them
		{"?q=11", 0, "", "", "", false},          // t011, t110…: none starts with 11
		{"?q=a%2Fb", 0, "", "", "", false},       // no name holds a '/'
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.get(c, "/buckets/vec/namespaces/prod"+tc.query)
			rows := r.doc.Find(`[data-testid="table-row"]`)
			if rows.Length() != tc.rows {
				t.Fatalf("%d rows, want %d", rows.Length(), tc.rows)
			}
			if tc.rows == 0 {
				if !r.has("tables-empty") {
					t.Fatal("no empty state")
				}
				return
			}
			if f := rows.First().AttrOr("data-table", ""); f != tc.first {
				t.Errorf("first %q, want %q", f, tc.first)
			}
			if l := rows.Last().AttrOr("data-table", ""); l != tc.last {
				t.Errorf("last %q, want %q", l, tc.last)
			}
			if next := r.doc.Find(`[data-testid="page-next"]`).AttrOr("href", ""); next != tc.next {
				t.Errorf("next link %q, want %q", next, tc.next)
			}
			if r.has("page-first") != tc.firstLink {
				t.Errorf("first link shown %v, want %v", r.has("page-first"), tc.firstLink)
			}
		})
	}
	if r := e.get(c, "/buckets/vec/namespaces/prod?q=11"); !strings.Contains(r.text("tables-empty"), "No table name starts with “11”") {
		t.Errorf("a short filter's empty state: %q", r.text("tables-empty"))
	}
	if r := e.get(c, "/buckets/vec/namespaces/prod?q=zzz"); !strings.Contains(r.text("tables-empty"), "No table name contains “zzz”") {
		t.Errorf("a filter's empty state: %q", r.text("tables-empty"))
	}
	r := e.get(c, "/buckets/vec/namespaces/prod?q=t")
	if !strings.Contains(r.text("table-filter-help"), "one or two its start") {
		t.Errorf("the filter's hint: %q", r.text("table-filter-help"))
	}
	first := r.doc.Find(`[data-table="t000"]`)
	if got := strings.TrimSpace(first.Find(`[data-testid="table-rows"]`).Text()); got != "—" {
		t.Errorf("unknown rows shown as %q, want a dash", got)
	}
	if f := first.Find(`[data-testid="format-badge"]`).AttrOr("data-format", ""); f != "LANCE" {
		t.Errorf("format %q", f)
	}
	if got := strings.TrimSpace(r.doc.Find(`[data-table="t005"] [data-testid="table-rows"]`).Text()); got != "1,234,567" {
		t.Errorf("observed rows %q", got)
	}
	tp := e.get(c, "/buckets/vec/namespaces/prod/tables/t005")
	if tp.text("meta-rows") != "1,234,567" || !tp.has("lance-observed") {
		t.Errorf("table page rows %q", tp.text("meta-rows"))
	}
}

func TestDeclareDropDeregister(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod")
	e.seed("lake", catalog.FormatIceberg, "raw")
	c := e.admin()

	if r := e.post(c, "/buckets/vec/namespaces/prod/tables", url.Values{"name": {"bad/name"}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("error-name"), "must not contain") {
		t.Fatalf("bad table name: %d %q", r.status, r.text("error-name"))
	}
	if r := e.post(c, "/buckets/lake/namespaces/raw/tables", url.Values{"name": {"t"}}); r.status != http.StatusConflict {
		t.Fatalf("lance table in an iceberg bucket: %d %s", r.status, r.text("error-name"))
	}
	r := e.post(c, "/buckets/vec/namespaces/prod/tables", url.Values{"name": {"items"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/buckets/vec/namespaces/prod" {
		t.Fatalf("declare: %d %q", r.status, r.header.Get("Location"))
	}
	if tb, err := e.table("vec", "prod", "items"); err != nil || tb.State != catalog.StateDeclared || tb.Format != catalog.FormatLance {
		t.Fatalf("declared table %+v %v", tb, err)
	}
	if r := e.post(c, "/buckets/vec/namespaces/prod/tables", url.Values{"name": {"items"}}); r.status != http.StatusConflict || !strings.Contains(r.text("error-name"), "already exists") {
		t.Fatalf("declare taken name: %d %q", r.status, r.text("error-name"))
	}

	for _, wrong := range []string{"", "item", "ITEMS", " items"} {
		r := e.post(c, "/buckets/vec/namespaces/prod/tables/items/drop", url.Values{"confirm": {wrong}})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text("error-confirm"), "items") {
			t.Fatalf("drop confirm %q: %d %q", wrong, r.status, r.text("error-confirm"))
		}
	}
	if _, err := e.table("vec", "prod", "items"); err != nil {
		t.Fatal("table dropped without the typed name")
	}

	if r := e.post(c, "/buckets/vec/namespaces/prod/tables/items/deregister", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("deregister: %d %s", r.status, r.body)
	}
	if tb, err := e.table("vec", "prod", "items"); err != nil || tb.State != catalog.StateDeregistered {
		t.Fatalf("after deregister %+v %v", tb, err)
	}
	if r := e.post(c, "/buckets/vec/namespaces/prod/tables/items/drop", url.Values{"confirm": {"items"}}); r.status != http.StatusSeeOther {
		t.Fatalf("drop: %d %s", r.status, r.body)
	}
	if _, err := e.table("vec", "prod", "items"); err == nil {
		t.Fatal("table still there after drop")
	}
}

func TestAPIKeys(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "")
	c := e.admin()
	bad := []struct {
		form  url.Values
		field string
	}{
		{url.Values{"name": {""}, "role": {"readwrite"}}, "name"},
		{url.Values{"name": {"k"}, "role": {"admin"}}, "role"},
		{url.Values{"name": {"k"}, "role": {"readonly"}, "bucket": {"nope"}}, "bucket"},
	}
	for _, b := range bad {
		r := e.post(c, "/api-keys", b.form)
		if r.status != http.StatusUnprocessableEntity || r.text("error-"+b.field) == "" {
			t.Fatalf("%v: %d, message at %s %q", b.form, r.status, b.field, r.text("error-"+b.field))
		}
	}
	// Post-redirect-get: the POST answers 303, the GET it leads to shows
	// the secret once, and reloading that GET neither shows it again nor
	// creates a second key.
	created := e.post(c, "/api-keys", url.Values{"name": {"spark-job"}, "role": {"readonly"}, "bucket": {"vec"}})
	if created.status != http.StatusSeeOther || created.header.Get("Location") != "/api-keys" || strings.Contains(created.body, "floe_") {
		t.Fatalf("create key: %d to %q, body %q", created.status, created.header.Get("Location"), created.body)
	}
	r := e.get(c, "/api-keys")
	if r.status != http.StatusOK || !strings.HasPrefix(r.text("new-key-secret"), "floe_") || !r.has("copy-new-key") {
		t.Fatalf("after redirect: %d %q", r.status, r.text("new-key-secret"))
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Error("secret page may be cached")
	}
	secret := r.text("new-key-secret")
	akid, sak := r.text("new-key-access-key-id"), r.text("new-key-secret-access-key")
	if !strings.HasPrefix(akid, "FLOE") || len(sak) != 40 {
		t.Fatalf("create key shows no S3 Tables pair: %q %q", akid, sak)
	}
	if _, err := e.store.VerifyAPIKey(context.Background(), secret); err != nil {
		t.Fatalf("shown secret does not verify: %v", err)
	}
	list := e.get(c, "/api-keys") // the reload
	if strings.Contains(list.body, secret) || strings.Contains(list.body, sak) || list.has("new-key") {
		t.Fatal("secret shown again on reload")
	}
	if keys, err := e.store.ListAPIKeys(context.Background()); err != nil || len(keys) != 1 {
		t.Fatalf("after create and reload: %d keys, %v; want 1", len(keys), err)
	}
	if !strings.Contains(list.body, akid) {
		t.Fatal("the list does not show the key's access key id")
	}
	row := list.doc.Find(`[data-testid="key-row"]`)
	if row.Length() != 1 || strings.TrimSpace(row.Find(`[data-testid="key-role"]`).Text()) != "readonly" {
		t.Fatalf("key list: %d rows", row.Length())
	}
	id := row.AttrOr("data-key", "")
	if r := e.post(c, "/api-keys/"+id+"/revoke", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.status)
	}
	if after := e.get(c, "/api-keys"); !strings.HasPrefix(after.text("flash"), "Key spark-job revoked") {
		t.Fatalf("revoke flash %q", after.text("flash"))
	}
	if again := e.get(c, "/api-keys"); again.has("flash") {
		t.Fatal("the revoke flash is shown twice")
	}
	if _, err := e.store.VerifyAPIKey(context.Background(), secret); err == nil {
		t.Fatal("revoked key still verifies")
	}
}
