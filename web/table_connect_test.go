package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestTableConnect covers the per-table Connect tab: snippets for the
// table's own format with its real names, the read-only key button
// (post-redirect-get: shown once, a reload neither shows it nor makes
// another), and the reader role refused the button.
func TestTableConnect(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	e.seed("lake", catalog.FormatIceberg, "raw")
	ctx := context.Background()
	if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lake", Namespace: []string{"raw"}, Name: "events"},
		Format: catalog.FormatIceberg, MetadataLocation: ""}); err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	pages := []struct {
		path    string
		ids     []string
		want    []string
		notWant []string
	}{
		{"/buckets/vec/namespaces/prod/tables/items/connect",
			[]string{"snippet-lancedb-js", "snippet-lancedb-python", "snippet-pylance", "snippet-duckdb-lance", "snippet-lance-spark", "table-connect-key-form"},
			[]string{`db.openTable(&#34;items&#34;, [&#34;vec&#34;, &#34;prod&#34;])`, "process.env.FLOE_API_KEY", "@lancedb/lancedb@0.39.0", "http://127.0.0.1:9101"},
			[]string{"<", "my_table", "snippet-pyiceberg"}},
		{"/buckets/lake/namespaces/raw/tables/events/connect",
			[]string{"snippet-iceberg-go", "snippet-pyiceberg", "snippet-duckdb-iceberg", "snippet-spark-iceberg"},
			[]string{`table.Identifier{&#34;raw&#34;, &#34;events&#34;}`, `os.Getenv(&#34;FLOE_API_KEY&#34;)`, "iceberg-go@v0.7.0", "http://127.0.0.1:8181"},
			[]string{"<", "snippet-lancedb-js"}},
	}
	for _, p := range pages {
		r := e.get(c, p.path)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d", p.path, r.status)
		}
		for _, id := range p.ids {
			if !r.has(id) {
				t.Errorf("%s: missing %q", p.path, id)
			}
		}
		for _, w := range p.want {
			if !strings.Contains(r.body, w) {
				t.Errorf("%s: missing %s", p.path, w)
			}
		}
		for _, w := range p.notWant {
			if strings.Contains(r.text("snippets"), w) || (strings.HasPrefix(w, "snippet-") && r.has(w)) {
				t.Errorf("%s: has %s", p.path, w)
			}
		}
	}
	if r := e.get(c, "/buckets/vec/namespaces/prod/tables/items"); !r.has("connect-link") {
		t.Error("the table page has no Connect link")
	}

	const tab = "/buckets/vec/namespaces/prod/tables/items/connect"
	created := e.post(c, tab+"/key", url.Values{})
	if created.status != http.StatusSeeOther || created.header.Get("Location") != tab || strings.Contains(created.body, "floe_") {
		t.Fatalf("key button: %d to %q", created.status, created.header.Get("Location"))
	}
	keys, err := e.store.ListAPIKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].Role != catalog.RoleReadonly || keys[0].Bucket != "vec" {
		t.Fatalf("keys after the button: %+v, %v; want one readonly key scoped to vec", keys, err)
	}
	r := e.get(c, tab)
	if !r.has("table-connect-key") || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("after the redirect: key notice %v, Cache-Control %q", r.has("table-connect-key"), r.header.Get("Cache-Control"))
	}
	code := r.doc.Find(`#code-lancedb-js`).Text()
	i := strings.Index(code, `"x-api-key": "`)
	if i < 0 {
		t.Fatalf("no key in the snippet:\n%s", code)
	}
	secret := strings.SplitN(code[i+len(`"x-api-key": "`):], `"`, 2)[0]
	if _, err := e.store.VerifyAPIKey(ctx, secret); err != nil {
		t.Fatalf("the key in the snippet does not verify: %v", err)
	}
	reload := e.get(c, tab)
	if strings.Contains(reload.body, secret) || reload.has("table-connect-key") {
		t.Fatal("the key is shown again on reload")
	}
	if keys, _ := e.store.ListAPIKeys(ctx); len(keys) != 1 {
		t.Fatalf("%d keys after reload; want 1", len(keys))
	}
	if r := e.post(e.reader(), tab+"/key", url.Values{}); r.status != http.StatusForbidden {
		t.Fatalf("reader pressed the key button: %d", r.status)
	}
	if r := e.post(c, "/buckets/vec/namespaces/prod/tables/nope/connect/key", url.Values{}); r.status != http.StatusNotFound {
		t.Fatalf("key for a missing table: %d", r.status)
	}
}

// TestTableConnectSigV4: with the S3 Tables region configured, an Iceberg
// table's Connect tab adds the snippets that sign with SigV4 and name the
// bucket by its S3 Tables ARN; after the key button they carry that key's
// access key pair, which is the key just made.
func TestTableConnectSigV4(t *testing.T) {
	s := allSurfaces
	s.S3TablesRegion, s.S3TablesAccount = "eu-west-1", "123456789012"
	e := newEnv(t, s)
	e.seed("lake", catalog.FormatIceberg, "raw")
	ctx := context.Background()
	if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lake", Namespace: []string{"raw"}, Name: "events"},
		Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	c := e.admin()
	const tab = "/buckets/lake/namespaces/raw/tables/events/connect"
	r := e.get(c, tab)
	for _, id := range []string{"snippet-iceberg-go-sigv4", "snippet-pyiceberg-sigv4", "snippet-duckdb-iceberg-sigv4", "snippet-spark-iceberg-sigv4"} {
		if !r.has(id) {
			t.Errorf("missing %s", id)
		}
	}
	code := r.doc.Find(`#code-iceberg-go-sigv4`).Text()
	for _, want := range []string{`rest.WithWarehouseLocation("arn:aws:s3tables:eu-west-1:123456789012:bucket/lake")`, `rest.WithSigV4RegionSvc("eu-west-1", "s3tables")`, `os.Getenv("FLOE_ACCESS_KEY_ID")`} {
		if !strings.Contains(code, want) {
			t.Errorf("the iceberg-go SigV4 snippet lacks %s:\n%s", want, code)
		}
	}
	if created := e.post(c, tab+"/key", url.Values{}); created.status != http.StatusSeeOther {
		t.Fatalf("key button: %d", created.status)
	}
	keys, err := e.store.ListAPIKeys(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys: %+v %v", keys, err)
	}
	code = e.get(c, tab).doc.Find(`#code-iceberg-go-sigv4`).Text()
	if !strings.Contains(code, `NewStaticCredentialsProvider("`+keys[0].AccessKeyID+`", "`) || strings.Contains(code, "FLOE_ACCESS_KEY_ID") {
		t.Fatalf("the SigV4 snippet does not carry the new key's pair %s:\n%s", keys[0].AccessKeyID, code)
	}
	i := strings.Index(code, keys[0].AccessKeyID+`", "`)
	secret := strings.SplitN(code[i+len(keys[0].AccessKeyID+`", "`):], `"`, 2)[0]
	k, err := e.store.LookupAccessKey(ctx, keys[0].AccessKeyID)
	if err != nil || k.SecretAccessKey != secret {
		t.Fatalf("the pair in the snippet is not the key's: %v", err)
	}
}
