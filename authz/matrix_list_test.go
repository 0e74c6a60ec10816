package authz_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestListingsShowOnlyWhatMayBeRead (#22): a principal that reads one
// table (lnc/ns/other, ice/ns/other) lists, on every surface, exactly the
// buckets, namespaces and tables on the way to it — page by page, one item
// a page, with buckets it holds nothing in sorted before and after its
// own — and no page token it is handed names anything else (the root Lance
// listing used to page before it filtered, and its token named other
// buckets).
func TestListingsShowOnlyWhatMayBeRead(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, b := range []string{"aaa", "mmm", "zzz"} {
		if _, err := w.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: b, Format: catalog.FormatLance}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.store.CreateNamespace(ctx, b, []string{"ns"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a", "b", "zz"} {
		if _, _, err := w.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: name}, Format: catalog.FormatLance}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.store.CreateNamespace(ctx, "lnc", []string{"aa"}, nil); err != nil {
		t.Fatal(err)
	}
	p := principals[2] // reader of another table
	if p.name != "reader of another table" {
		t.Fatal("the principals table changed")
	}
	secret := w.secrets[p.name]
	visible := map[string]bool{"lnc": true, "ice": true, "ns": true, "other": true}

	// checkToken: a token may carry only what the listing showed.
	checkToken := func(what, tok string) {
		t.Helper()
		if tok == "" {
			return
		}
		var names []string
		if name, err := catalog.ParsePageToken(tok); err == nil {
			names = strings.Split(name, ".")
		} else { // ListAllTables's cursor: base64 JSON of bucket, namespace, table
			b, _ := base64.RawURLEncoding.DecodeString(tok)
			var c map[string]string
			if json.Unmarshal(b, &c) != nil {
				t.Errorf("%s: a page token %q that is neither", what, tok)
			}
			for _, v := range c {
				names = append(names, strings.Split(v, ".")...)
			}
		}
		for _, n := range names {
			if !visible[n] {
				t.Errorf("%s: the page token %q names %q, which the caller may not see", what, tok, n)
			}
		}
	}
	lance := func(path string) (items []string, token string) {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("x-api-key", secret)
		a := serve(w.lance, req)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, a.status, a.body)
		}
		var out struct {
			Namespaces []string `json:"namespaces"`
			Tables     []string `json:"tables"`
			PageToken  string   `json:"page_token"`
		}
		if err := json.Unmarshal([]byte(a.body), &out); err != nil {
			t.Fatal(err)
		}
		return append(out.Namespaces, out.Tables...), out.PageToken
	}
	pageAll := func(what, path string) []string {
		t.Helper()
		var all []string
		tok := ""
		for range 20 {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			q := path + sep + "limit=1"
			if tok != "" {
				q += "&page_token=" + url.QueryEscape(tok)
			}
			items, next := lance(q)
			all = append(all, items...)
			checkToken(what, next)
			if next == "" {
				return all
			}
			tok = next
		}
		t.Fatalf("%s: more than 20 pages", what)
		return nil
	}
	for _, c := range []struct {
		what, path string
		want       []string
	}{
		{"Lance root", "/v1/namespace/%24/list", []string{"lnc"}},
		{"Lance bucket", "/v1/namespace/lnc/list", []string{"ns"}},
		{"Lance tables", "/v1/namespace/lnc$ns/table/list", []string{"other"}},
		{"Lance every table", "/v1/table", []string{"lnc$ns$other"}},
	} {
		if got := pageAll(c.what, c.path); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}

	// Iceberg REST and its cross-bucket index.
	ice := func(path string) map[string]any {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("x-api-key", secret)
		a := serve(w.iceberg, req)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, a.status, a.body)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(a.body), &m)
		if tok, _ := m["next-page-token"].(string); tok != "" {
			checkToken(path, tok)
		}
		return m
	}
	if ns := ice("/v1/ice/namespaces?pageSize=1")["namespaces"]; len(ns.([]any)) != 1 {
		t.Errorf("Iceberg namespaces: %v", ns)
	}
	ids := ice("/v1/ice/namespaces/ns/tables?pageSize=10")["identifiers"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["name"] != "other" {
		t.Errorf("Iceberg tables: %v", ids)
	}
	idx := ice("/v1/floe/tables?pageSize=1")["tables"].([]any)
	if len(idx) != 1 || idx[0].(map[string]any)["name"] != "other" {
		t.Errorf("Iceberg table index: %v", idx)
	}

	// S3 Tables.
	s3 := func(path string) map[string]any {
		t.Helper()
		a := s3Do(t, w, p, route{method: "GET", path: path})
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, a.status, a.body)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(a.body), &m)
		return m
	}
	var buckets []string
	for _, b := range s3("/buckets")["tableBuckets"].([]any) {
		buckets = append(buckets, b.(map[string]any)["name"].(string))
	}
	if !slices.Equal(buckets, []string{"ice", "lnc"}) {
		t.Errorf("S3 Tables buckets: %q", buckets)
	}
	arn := url.PathEscape("arn:aws:s3tables:" + s3Region + ":" + s3Account + ":bucket/lnc")
	if ns := s3("/namespaces/" + arn)["namespaces"].([]any); len(ns) != 1 {
		t.Errorf("S3 Tables namespaces of lnc: %v", ns)
	}
	tables := s3("/tables/" + arn + "?maxTables=1")["tables"].([]any)
	if len(tables) != 1 || tables[0].(map[string]any)["name"] != "other" {
		t.Errorf("S3 Tables tables of lnc: %v", tables)
	}
}
