package icebergrest

// The security regression suite for the Iceberg REST surface and schema
// library (issue 15): one test per finding, each named after it.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
)

// nestedType is depth levels of struct around a long.
func nestedType(depth int, nextID *int) any {
	if depth == 0 {
		return "long"
	}
	*nextID++
	id := *nextID
	return map[string]any{"type": "struct", "fields": []any{
		map[string]any{"id": id, "name": fmt.Sprint("f", id), "required": false, "type": nestedType(depth-1, nextID)},
	}}
}

func schemaWith(fields ...any) map[string]any {
	return map[string]any{"type": "struct", "fields": fields}
}

func field(id int, name string, typ any) map[string]any {
	return map[string]any{"id": id, "name": name, "required": false, "type": typ}
}

func deepSchema(depth int) map[string]any {
	next := 1
	return schemaWith(field(1, "root", nestedType(depth, &next)))
}

func wideSchema(n int) map[string]any {
	fs := make([]any, n)
	for i := range fs {
		fs[i] = field(i+1, fmt.Sprint("c", i+1), "long")
	}
	return schemaWith(fs...)
}

func lakeWithNamespace(t *testing.T) *testEnv {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatUnset)
	if code, body := e.call(t, "POST", "/v1/lake/namespaces", "", map[string]any{"namespace": []string{"ns"}}); code != 200 {
		t.Fatalf("namespace: %d %v", code, body)
	}
	return e
}

// TestSecurity_NestedSchemaRefused: a 3,000-level schema took 32 s to create
// and 150 s to render. Past the limits (depth, field count, name length) a
// schema is refused with 400 on create, commit and register.
func TestSecurity_NestedSchemaRefused(t *testing.T) {
	e := lakeWithNamespace(t)
	refused := []struct {
		name   string
		schema map[string]any
		want   string
	}{
		{"deeper than the limit", deepSchema(iceberg.MaxSchemaDepth + 1), "nests deeper"},
		{"3,000 levels", deepSchema(3000), "nests deeper"},
		{"more fields than the limit", wideSchema(iceberg.MaxSchemaFields + 1), "more than"},
		{"a name past the limit", schemaWith(field(1, strings.Repeat("n", iceberg.MaxFieldNameBytes+1), "long")), "bytes"},
	}
	for _, tc := range refused {
		t.Run("create: "+tc.name, func(t *testing.T) {
			code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{"name": "t", "schema": tc.schema})
			if code != 400 || !strings.Contains(fmt.Sprint(body), tc.want) {
				t.Fatalf("create: %d %v", code, truncate(body))
			}
		})
	}
	t.Run("create at the limits", func(t *testing.T) {
		code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{"name": "deep", "schema": deepSchema(iceberg.MaxSchemaDepth - 1)})
		if code != 200 {
			t.Fatalf("a legal deep schema: %d %v", code, truncate(body))
		}
	})
	code, created := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{"name": "base", "schema": schemaWith(field(1, "id", "long"))})
	if code != 200 {
		t.Fatalf("create base: %d %v", code, created)
	}
	t.Run("commit add-schema", func(t *testing.T) {
		deep := deepSchema(iceberg.MaxSchemaDepth + 1)
		deep["schema-id"] = 1
		code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables/base", "", map[string]any{
			"requirements": []any{},
			"updates":      []any{map[string]any{"action": "add-schema", "schema": deep}},
		})
		if code != 400 || !strings.Contains(fmt.Sprint(body), "nests deeper") {
			t.Fatalf("commit: %d %v", code, truncate(body))
		}
	})
	t.Run("register", func(t *testing.T) {
		// Locations are canonical file:// URIs; the file itself is read from disk.
		loc := strings.TrimPrefix(created["metadata-location"].(string), "file://")
		raw, err := os.ReadFile(loc)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		if err := json.Unmarshal(raw, &md); err != nil {
			t.Fatal(err)
		}
		deep := deepSchema(iceberg.MaxSchemaDepth + 1)
		deep["schema-id"] = 0
		md["schemas"] = []any{deep}
		out, _ := json.Marshal(md)
		evil := filepath.Join(filepath.Dir(loc), "00099-evil.metadata.json")
		if err := os.WriteFile(evil, out, 0o644); err != nil {
			t.Fatal(err)
		}
		code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/register", "", map[string]any{"name": "evil", "metadata-location": evil})
		if code != 400 || !strings.Contains(fmt.Sprint(body), "nests deeper") {
			t.Fatalf("register: %d %v", code, truncate(body))
		}
	})
}

// TestSecurity_DecimalAndFixedBounds: decimal(99999999999,2) and
// fixed[99999999999] were accepted.
func TestSecurity_DecimalAndFixedBounds(t *testing.T) {
	e := lakeWithNamespace(t)
	tests := []struct {
		typ  string
		want int
	}{
		{"decimal(99999999999,2)", 400},
		{"decimal(39,2)", 400},
		{"decimal(0,0)", 400},
		{"decimal(10,11)", 400},
		{"fixed[99999999999]", 400},
		{"fixed[0]", 400},
		{fmt.Sprintf("fixed[%d]", iceberg.MaxFixedLength+1), 400},
		{"decimal(38,38)", 200},
		{"decimal(9, 2)", 200},
		{"fixed[16]", 200},
	}
	for i, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", map[string]any{"name": fmt.Sprint("t", i), "schema": schemaWith(field(1, "v", tc.typ))})
			if code != tc.want {
				t.Fatalf("%s: %d %v, want %d", tc.typ, code, body, tc.want)
			}
		})
	}
}

// TestSecurity_DuplicateJSONKeyRefused: a body naming a key twice silently
// took the last value.
func TestSecurity_DuplicateJSONKeyRefused(t *testing.T) {
	e := lakeWithNamespace(t)
	code, body := e.call(t, "POST", "/v1/lake/namespaces", "", `{"namespace":["a"],"namespace":["b"]}`)
	if code != 400 || !strings.Contains(fmt.Sprint(body), "appears twice") {
		t.Fatalf("duplicate key: %d %v", code, body)
	}
	code, body = e.call(t, "POST", "/v1/lake/namespaces/ns/tables", "", `{"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"a","name":"b","required":false,"type":"long"}]}}`)
	if code != 400 || !strings.Contains(fmt.Sprint(body), "appears twice") {
		t.Fatalf("duplicate nested key: %d %v", code, body)
	}
}

// TestSecurity_JunkPageTokenRefused: a junk pageToken answered an empty list.
func TestSecurity_JunkPageTokenRefused(t *testing.T) {
	e := lakeWithNamespace(t)
	for _, path := range []string{"/v1/lake/namespaces?pageToken=zzzz", "/v1/lake/namespaces/ns/tables?pageToken=%00junk", "/v1/lake/namespaces?pageToken=p1.%21%21"} {
		if code, body := e.call(t, "GET", path, "", nil); code != 400 {
			t.Errorf("%s: %d %v", path, code, body)
		}
	}
	// The tokens the server hands out still page.
	for _, ns := range []string{"a", "b", "c"} {
		e.call(t, "POST", "/v1/lake/namespaces", "", map[string]any{"namespace": []string{ns}})
	}
	code, body := e.call(t, "GET", "/v1/lake/namespaces?pageSize=2", "", nil)
	next, _ := body["next-page-token"].(string)
	if code != 200 || next == "" {
		t.Fatalf("first page: %d %v", code, body)
	}
	if code, body := e.call(t, "GET", "/v1/lake/namespaces?pageSize=2&pageToken="+next, "", nil); code != 200 || len(body["namespaces"].([]any)) != 2 {
		t.Fatalf("second page: %d %v", code, body)
	}
}

func truncate(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestIssue23Item7PageTokensNotIssuedRefused: every listing (namespaces,
// tables, views) refuses tokens it did not issue, 100 KB of A and a
// well-formed token standing for no name included.
func TestIssue23Item7PageTokensNotIssuedRefused(t *testing.T) {
	e := lakeWithNamespace(t)
	for _, path := range []string{"/v1/lake/namespaces", "/v1/lake/namespaces/ns/tables", "/v1/lake/namespaces/ns/views"} {
		for _, tok := range []string{"zzzz", "%00", strings.Repeat("A", 100_000), "p1.YQE" /* "a\x01" */} {
			if code, body := e.call(t, "GET", path+"?pageToken="+tok, "", nil); code != 400 || errType(body) != typeBadRequest {
				t.Errorf("%s pageToken %.20q: %d %v", path, tok, code, body)
			}
		}
	}
}
