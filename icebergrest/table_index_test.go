package icebergrest

import (
	"context"
	"slices"
	"testing"

	"github.com/floe/floe/catalog"
)

// TestTableIndex: GET /v1/floe/tables lists committed Iceberg tables with
// floe's ids across buckets; a scoped key sees its bucket only; no key is
// 401; a bad page size is 400.
func TestTableIndex(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, false)
	env.bucket(t, "aaa", catalog.FormatIceberg)
	env.bucket(t, "bbb", catalog.FormatIceberg)
	_, all, err := env.store.CreateAPIKey(ctx, "all", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, onlyB, err := env.store.CreateAPIKey(ctx, "b", catalog.RoleReadonly, "bbb", 0)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "struct", "fields": []any{map[string]any{"id": 1, "name": "x", "type": "long", "required": false}}}
	for _, b := range []string{"aaa", "bbb"} {
		if code, body := env.call(t, "POST", "/v1/"+b+"/namespaces", all, map[string]any{"namespace": []string{"ns"}}); code != 200 {
			t.Fatalf("create namespace: %d %v", code, body)
		}
		if code, body := env.call(t, "POST", "/v1/"+b+"/namespaces/ns/tables", all, map[string]any{"name": "t", "schema": schema}); code != 200 {
			t.Fatalf("create table: %d %v", code, body)
		}
	}
	list := func(key string) []string {
		code, body := env.call(t, "GET", "/v1/floe/tables", key, nil)
		if code != 200 {
			t.Fatalf("index: %d %v", code, body)
		}
		var out []string
		for _, e := range body["tables"].([]any) {
			m := e.(map[string]any)
			if m["id"] == "" || m["metadata-location"] == "" {
				t.Fatalf("entry without id or metadata: %v", m)
			}
			out = append(out, m["bucket"].(string)+"/"+m["name"].(string))
		}
		slices.Sort(out)
		return out
	}
	if got := list(all); !slices.Equal(got, []string{"aaa/t", "bbb/t"}) {
		t.Fatalf("unscoped key sees %v", got)
	}
	if got := list(onlyB); !slices.Equal(got, []string{"bbb/t"}) {
		t.Fatalf("key scoped to bbb sees %v", got)
	}
	if code, _ := env.call(t, "GET", "/v1/floe/tables", "", nil); code != 401 {
		t.Fatalf("no key: %d", code)
	}
	if code, body := env.call(t, "GET", "/v1/floe/tables?pageSize=lots", all, nil); code != 400 || errType(body) != typeBadRequest {
		t.Fatalf("bad page size: %d %v", code, body)
	}
}
