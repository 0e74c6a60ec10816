package icebergrest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
)

// rawTable creates ns "ns" and an Iceberg table "t" through the REST API and
// returns its load result.
func rawTable(t testing.TB, e *testEnv, bucket, key string) map[string]any {
	t.Helper()
	if code, body := e.call(t, "POST", "/v1/"+bucket+"/namespaces", key, map[string]any{"namespace": []string{"ns"}}); code != 200 {
		t.Fatalf("create namespace: %d %v", code, body)
	}
	code, body := e.call(t, "POST", "/v1/"+bucket+"/namespaces/ns/tables", key, map[string]any{
		"name": "t",
		"schema": map[string]any{"type": "struct", "schema-id": 0, "fields": []any{
			map[string]any{"id": 1, "name": "id", "required": true, "type": "long"},
			map[string]any{"id": 2, "name": "tags", "required": false, "type": map[string]any{"type": "list", "element-id": 3, "element": "string", "element-required": false}},
		}},
	})
	if code != 200 {
		t.Fatalf("create table: %d %v", code, body)
	}
	return body
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, false)
	e.bucket(t, "lake", catalog.FormatUnset) // holds a Lance table beside the Iceberg one
	e.bucket(t, "other", catalog.FormatIceberg)
	e.bucket(t, "lancey", catalog.FormatLance)
	_, rw, _ := e.store.CreateAPIKey(ctx, "rw", catalog.RoleReadWrite, "", 0)
	_, ro, _ := e.store.CreateAPIKey(ctx, "ro", catalog.RoleReadonly, "", 0)
	_, scoped, _ := e.store.CreateAPIKey(ctx, "scoped", catalog.RoleReadWrite, "other", 0)
	loaded := rawTable(t, e, "lake", rw)
	md := loaded["metadata"].(map[string]any)
	uuid := md["table-uuid"].(string)
	if _, _, err := e.store.CreateTable(ctx, catalog.CreateTableInput{
		TableRef: catalog.TableRef{Bucket: "lake", Namespace: []string{"ns"}, Name: "ds"}, Format: catalog.FormatLance,
	}); err != nil {
		t.Fatal(err)
	}
	tbl := "/v1/lake/namespaces/ns/tables/t"
	outside := "/etc/passwd"
	snapshot := func(list string) map[string]any {
		return map[string]any{"action": "add-snapshot", "snapshot": map[string]any{
			"snapshot-id": 7, "sequence-number": 1, "timestamp-ms": time.Now().UnixMilli(),
			"manifest-list": list, "summary": map[string]any{"operation": "append"}}}
	}
	cases := []struct {
		name, method, path, key string
		body                    any
		code                    int
		typ                     string
	}{
		{"no key", "GET", "/v1/lake/namespaces", "", nil, 401, typeNotAuthorized},
		{"unknown key", "GET", "/v1/lake/namespaces", "floe_nope", nil, 401, typeNotAuthorized},
		{"readonly writes", "POST", "/v1/lake/namespaces", ro, map[string]any{"namespace": []string{"x"}}, 403, typeForbidden},
		{"readonly reads", "GET", "/v1/lake/namespaces", ro, nil, 200, ""},
		{"other bucket scope", "GET", "/v1/lake/namespaces", scoped, nil, 403, typeForbidden},
		{"config other scope", "GET", "/v1/config?warehouse=lake", scoped, nil, 403, typeForbidden},
		{"lance bucket config", "GET", "/v1/config?warehouse=lancey", rw, nil, 400, typeBadRequest},
		{"lance bucket namespaces", "GET", "/v1/lancey/namespaces", rw, nil, 400, typeBadRequest},
		{"missing bucket", "GET", "/v1/nobucket/namespaces", rw, nil, 404, typeNoSuchWarehouse},
		{"bad bucket name", "GET", "/v1/Bad_Bucket/namespaces", rw, nil, 400, typeBadRequest},
		{"malformed json", "POST", "/v1/lake/namespaces", rw, `{"namespace": [`, 400, typeBadRequest},
		{"empty body", "POST", "/v1/lake/namespaces", rw, "", 400, typeBadRequest},
		{"bad namespace name", "POST", "/v1/lake/namespaces", rw, map[string]any{"namespace": []string{"bad/name"}}, 400, typeBadRequest},
		{"child without parent", "POST", "/v1/lake/namespaces", rw, map[string]any{"namespace": []string{"nope", "child"}}, 404, typeNoSuchNamespace},
		{"namespace exists", "POST", "/v1/lake/namespaces", rw, map[string]any{"namespace": []string{"ns"}}, 409, typeAlreadyExists},
		{"missing namespace", "GET", "/v1/lake/namespaces/nope", rw, nil, 404, typeNoSuchNamespace},
		{"drop non-empty namespace", "DELETE", "/v1/lake/namespaces/ns", rw, nil, 409, typeNamespaceNotEmpty},
		{"remove and update one key", "POST", "/v1/lake/namespaces/ns/properties", rw, map[string]any{"removals": []string{"a"}, "updates": map[string]string{"a": "1"}}, 422, typeUnprocessable},
		{"bad table name", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "bad$name", "schema": map[string]any{"type": "struct", "fields": []any{}}}, 400, typeBadRequest},
		{"table without schema", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "noschema"}, 400, typeBadRequest},
		{"unknown column type", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "x", "schema": map[string]any{"type": "struct", "fields": []any{map[string]any{"id": 1, "name": "a", "required": false, "type": "varchar"}}}}, 400, typeBadRequest},
		{"location outside bucket", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "x", "location": "/tmp/elsewhere", "schema": map[string]any{"type": "struct", "fields": []any{}}}, 400, typeBadRequest},
		{"table exists", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "t", "schema": map[string]any{"type": "struct", "fields": []any{}}}, 409, typeAlreadyExists},
		{"lance name taken", "POST", "/v1/lake/namespaces/ns/tables", rw, map[string]any{"name": "ds", "schema": map[string]any{"type": "struct", "fields": []any{}}}, 409, typeAlreadyExists},
		{"lance table invisible", "GET", "/v1/lake/namespaces/ns/tables/ds", rw, nil, 404, typeNoSuchTable},
		{"missing table", "GET", "/v1/lake/namespaces/ns/tables/nope", rw, nil, 404, typeNoSuchTable},
		{"commit malformed", "POST", tbl, rw, `{"requirements": 5}`, 400, typeBadRequest},
		{"commit unknown requirement", "POST", tbl, rw, map[string]any{"requirements": []any{map[string]any{"type": "assert-moon-phase"}}, "updates": []any{}}, 400, typeBadRequest},
		{"commit requirement missing field", "POST", tbl, rw, map[string]any{"requirements": []any{map[string]any{"type": "assert-table-uuid"}}, "updates": []any{}}, 400, typeBadRequest},
		{"commit unknown update", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "make-it-fast"}}}, 400, typeBadRequest},
		{"commit update missing field", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "set-current-schema"}}}, 400, typeBadRequest},
		{"commit no such schema", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "set-current-schema", "schema-id": 42}}}, 400, typeBadRequest},
		{"commit set-location outside", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "set-location", "location": outside}}}, 400, typeBadRequest},
		{"commit manifest list outside", "POST", tbl, rw, map[string]any{"updates": []any{snapshot(outside)}}, 400, typeBadRequest},
		{"commit format version 4", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "upgrade-format-version", "format-version": 4}}}, 400, typeBadRequest},
		{"commit downgrade", "POST", tbl, rw, map[string]any{"updates": []any{map[string]any{"action": "upgrade-format-version", "format-version": 1}}}, 400, typeBadRequest},
		{"commit stale uuid", "POST", tbl, rw, map[string]any{"requirements": []any{map[string]any{"type": "assert-table-uuid", "uuid": "00000000-0000-0000-0000-000000000000"}}, "updates": []any{}}, 409, typeCommitFailed},
		{"commit stale ref", "POST", tbl, rw, map[string]any{"requirements": []any{map[string]any{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 99}}, "updates": []any{}}, 409, typeCommitFailed},
		{"commit assert-create on existing", "POST", tbl, rw, map[string]any{"requirements": []any{map[string]any{"type": "assert-create"}}, "updates": []any{}}, 409, typeCommitFailed},
		{"commit missing table", "POST", "/v1/lake/namespaces/ns/tables/nope", rw, map[string]any{"updates": []any{}}, 404, typeNoSuchTable},
		{"commit on lance", "POST", "/v1/lake/namespaces/ns/tables/ds", rw, map[string]any{"updates": []any{}}, 404, typeNoSuchTable},
		{"register outside", "POST", "/v1/lake/namespaces/ns/register", rw, map[string]any{"name": "r", "metadata-location": outside}, 400, typeBadRequest},
		{"register traversal", "POST", "/v1/lake/namespaces/ns/register", rw, map[string]any{"name": "r", "metadata-location": e.dir + "/warehouse/lake/../../../etc/passwd"}, 400, typeBadRequest},
		{"register missing file", "POST", "/v1/lake/namespaces/ns/register", rw, map[string]any{"name": "r", "metadata-location": e.dir + "/warehouse/lake/ns/none/metadata/00000-x.metadata.json"}, 400, typeBadRequest},
		{"rename missing source", "POST", "/v1/lake/tables/rename", rw, map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "nope"}, "destination": map[string]any{"namespace": []string{"ns"}, "name": "n2"}}, 404, typeNoSuchTable},
		{"rename to missing namespace", "POST", "/v1/lake/tables/rename", rw, map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "destination": map[string]any{"namespace": []string{"gone"}, "name": "n2"}}, 404, typeNoSuchNamespace},
		{"rename onto existing", "POST", "/v1/lake/tables/rename", rw, map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "destination": map[string]any{"namespace": []string{"ns"}, "name": "ds"}}, 409, typeAlreadyExists},
		{"bad page size", "GET", "/v1/lake/namespaces?pageSize=-3", rw, nil, 400, typeBadRequest},
		{"unknown route", "GET", "/v2/whatever", rw, nil, 404, typeNotFound},
		{"wrong method", "PUT", "/v1/lake/namespaces", rw, map[string]any{}, 405, typeBadRequest},
		{"multi-table transaction", "POST", "/v1/lake/transactions/commit", rw, map[string]any{"table-changes": []any{
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "updates": []any{}},
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "u"}, "updates": []any{}}}}, 404, typeNoSuchTable},
		{"transaction naming a table twice", "POST", "/v1/lake/transactions/commit", rw, map[string]any{"table-changes": []any{
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "updates": []any{}},
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "updates": []any{}}}}, 400, typeBadRequest},
		{"transaction creating a table", "POST", "/v1/lake/transactions/commit", rw, map[string]any{"table-changes": []any{
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "t"}, "updates": []any{}},
			map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": "new"}, "requirements": []any{map[string]any{"type": "assert-create"}}, "updates": []any{}}}}, 400, typeBadRequest},
		{"transaction without identifier", "POST", "/v1/lake/transactions/commit", rw, map[string]any{"table-changes": []any{map[string]any{"updates": []any{}}}}, 400, typeBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.call(t, c.method, c.path, c.key, c.body)
			if code != c.code {
				t.Fatalf("status %d, want %d: %v", code, c.code, body)
			}
			if c.typ != "" && errType(body) != c.typ {
				t.Fatalf("type %q, want %q: %v", errType(body), c.typ, body)
			}
			if c.code >= 400 {
				eo := body["error"].(map[string]any)
				if eo["message"] == "" || int(eo["code"].(float64)) != c.code {
					t.Fatalf("error body %v", body)
				}
			}
		})
	}
	// The Lance table beside it never shows in an Iceberg listing.
	if code, body := e.call(t, "GET", "/v1/lake/namespaces/ns/tables", rw, nil); code != 200 || len(body["identifiers"].([]any)) != 1 {
		t.Fatalf("list tables = %d %v", code, body)
	}
	// Nothing above changed the table.
	_, after := e.call(t, "GET", tbl, rw, nil)
	if after["metadata-location"] != loaded["metadata-location"] || after["metadata"].(map[string]any)["table-uuid"] != uuid {
		t.Fatalf("a refused request changed the table: %v", after["metadata-location"])
	}
}

func TestNamespaceREST(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatUnset)
	for _, ns := range [][]string{{"a"}, {"b"}, {"c"}, {"a", "x"}} {
		if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", map[string]any{"namespace": ns, "properties": map[string]string{"k": "v"}}); code != 200 {
			t.Fatalf("create %v: %d %v", ns, code, body)
		}
	}
	t.Run("paging", func(t *testing.T) {
		var all []any
		token := ""
		for range 5 {
			path := "/v1/lake/namespaces?pageSize=2"
			if token != "" {
				path += "&pageToken=" + token
			}
			code, body := e.call(t, "GET", path, "", nil)
			if code != 200 {
				t.Fatalf("%d %v", code, body)
			}
			all = append(all, body["namespaces"].([]any)...)
			next, _ := body["next-page-token"].(string)
			if next == "" {
				break
			}
			token = next
		}
		if len(all) != 3 {
			t.Fatalf("top-level namespaces = %v", all)
		}
	})
	t.Run("parent", func(t *testing.T) {
		code, body := e.call(t, "GET", "/v1/lake/namespaces?parent=a", "", nil)
		if code != 200 || len(body["namespaces"].([]any)) != 1 {
			t.Fatalf("%d %v", code, body)
		}
	})
	t.Run("multi-level with unit separator", func(t *testing.T) {
		code, body := e.call(t, "GET", "/v1/lake/namespaces/a%1Fx", "", nil)
		if code != 200 || len(body["namespace"].([]any)) != 2 {
			t.Fatalf("%d %v", code, body)
		}
		if code, _ := e.call(t, "HEAD", "/v1/lake/namespaces/a%1Fx", "", nil); code != http.StatusNoContent {
			t.Fatalf("HEAD = %d", code)
		}
		if code, _ := e.call(t, "HEAD", "/v1/lake/namespaces/a%1Fy", "", nil); code != http.StatusNotFound {
			t.Fatalf("HEAD missing = %d", code)
		}
	})
	t.Run("properties", func(t *testing.T) {
		code, body := e.call(t, "POST", "/v1/lake/namespaces/b/properties", "", map[string]any{"removals": []string{"k", "absent"}, "updates": map[string]string{"new": "1"}})
		if code != 200 {
			t.Fatalf("%d %v", code, body)
		}
		if len(body["removed"].([]any)) != 1 || body["missing"].([]any)[0] != "absent" || body["updated"].([]any)[0] != "new" {
			t.Fatalf("%v", body)
		}
		_, ns := e.call(t, "GET", "/v1/lake/namespaces/b", "", nil)
		props := ns["properties"].(map[string]any)
		if props["new"] != "1" || props["k"] != nil {
			t.Fatalf("properties after update = %v", props)
		}
	})
	t.Run("config", func(t *testing.T) {
		code, body := e.call(t, "GET", "/v1/config?warehouse=lake", "", nil)
		if code != 200 || body["overrides"].(map[string]any)["prefix"] != "lake" {
			t.Fatalf("%d %v", code, body)
		}
	})
	t.Run("drop empty", func(t *testing.T) {
		if code, _ := e.call(t, "DELETE", "/v1/lake/namespaces/c", "", nil); code != http.StatusNoContent {
			t.Fatalf("drop = %d", code)
		}
	})
}

// TestAPIKeyHeader: x-api-key works like the Bearer header, and a key whose
// scope is the bucket may write it.
func TestAPIKeyHeader(t *testing.T) {
	e := newEnv(t, false)
	e.bucket(t, "lake", catalog.FormatIceberg)
	_, key, err := e.store.CreateAPIKey(context.Background(), "k", catalog.RoleReadWrite, "lake", 0)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", e.http.URL+"/v1/lake/namespaces", strings.NewReader(`{"namespace":["a"]}`))
	req.Header.Set("x-api-key", key)
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("x-api-key create = %d", resp.StatusCode)
	}
	if code, _ := e.call(t, "GET", "/v1/config?warehouse=lake", key, nil); code != 200 {
		t.Fatalf("config = %d", code)
	}
}
