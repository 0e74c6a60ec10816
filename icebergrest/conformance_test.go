package icebergrest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
)

// specOp is one operation of the Iceberg REST spec
// (open-api/rest-catalog-open-api.yaml, apache/iceberg main), with a request
// that exercises it against a catalog holding namespace "ns" and table "t".
type specOp struct {
	id, method, route string
	path              string // route with the parameters filled in
	body              any
	// served operations answer one of codes with a body holding keys;
	// others answer 406 with the spec's UnsupportedOperationException body.
	served bool
	codes  []int
	keys   []string
}

// specOps lists all 35 operations of the spec in the spec's order, run in
// that order (creates before the loads and drops that need them).
func specOps(bucket string) []specOp {
	p := "/v1/" + bucket
	tbl := p + "/namespaces/ns/tables/t"
	schema := map[string]any{"type": "struct", "schema-id": 0, "fields": []any{map[string]any{"id": 1, "name": "id", "required": true, "type": "long"}}}
	noop := map[string]any{"requirements": []any{}, "updates": []any{map[string]any{"action": "set-properties", "updates": map[string]string{"k": "v"}}}}
	return []specOp{
		{"getConfig", "GET", "/v1/config", "/v1/config?warehouse=" + bucket, nil, true, []int{200}, []string{"defaults", "overrides", "endpoints"}},
		{"getToken", "POST", "/v1/oauth/tokens", "/v1/oauth/tokens", nil, true, []int{200}, []string{"access_token", "token_type", "expires_in"}},
		{"listNamespaces", "GET", "/v1/{prefix}/namespaces", p + "/namespaces", nil, true, []int{200}, []string{"namespaces"}},
		{"createNamespace", "POST", "/v1/{prefix}/namespaces", p + "/namespaces", map[string]any{"namespace": []string{"ns2"}}, true, []int{200}, []string{"namespace"}},
		{"loadNamespaceMetadata", "GET", "/v1/{prefix}/namespaces/{namespace}", p + "/namespaces/ns", nil, true, []int{200}, []string{"namespace"}},
		{"namespaceExists", "HEAD", "/v1/{prefix}/namespaces/{namespace}", p + "/namespaces/ns", nil, true, []int{204}, nil},
		{"dropNamespace", "DELETE", "/v1/{prefix}/namespaces/{namespace}", p + "/namespaces/ns2", nil, true, []int{204}, nil},
		{"updateProperties", "POST", "/v1/{prefix}/namespaces/{namespace}/properties", p + "/namespaces/ns/properties", map[string]any{"updates": map[string]string{"a": "1"}}, true, []int{200}, []string{"updated", "removed"}},
		{"listTables", "GET", "/v1/{prefix}/namespaces/{namespace}/tables", p + "/namespaces/ns/tables", nil, true, []int{200}, []string{"identifiers"}},
		{"createTable", "POST", "/v1/{prefix}/namespaces/{namespace}/tables", p + "/namespaces/ns/tables", map[string]any{"name": "t2", "schema": schema}, true, []int{200}, []string{"metadata", "metadata-location"}},
		{"listFunctions", "GET", "/v1/{prefix}/namespaces/{namespace}/functions", p + "/namespaces/ns/functions", nil, false, nil, nil},
		{"loadFunction", "GET", "/v1/{prefix}/namespaces/{namespace}/functions/{function}", p + "/namespaces/ns/functions/f", nil, false, nil, nil},
		{"planTableScan", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan", tbl + "/plan", map[string]any{}, true, []int{200}, []string{"status", "plan-id"}},
		// A plan id and plan task nobody issued: the spec's 404s.
		{"fetchPlanningResult", "GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}", tbl + "/plan/p1", nil, true, []int{404}, []string{"error"}},
		{"cancelPlanning", "DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}", tbl + "/plan/p1", nil, true, []int{404}, []string{"error"}},
		{"fetchScanTasks", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks", tbl + "/tasks", map[string]any{"plan-task": "x"}, true, []int{404}, []string{"error"}},
		{"registerTable", "POST", "/v1/{prefix}/namespaces/{namespace}/register", p + "/namespaces/ns/register", nil, true, []int{200}, []string{"metadata", "metadata-location"}},
		{"loadTable", "GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", tbl, nil, true, []int{200}, []string{"metadata", "metadata-location"}},
		{"updateTable", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", tbl, noop, true, []int{200}, []string{"metadata", "metadata-location"}},
		{"dropTable", "DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", p + "/namespaces/ns/tables/t2", nil, true, []int{204}, nil},
		{"tableExists", "HEAD", "/v1/{prefix}/namespaces/{namespace}/tables/{table}", tbl, nil, true, []int{204}, nil},
		{"unregisterTable", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/unregister", tbl + "/unregister", map[string]any{}, false, nil, nil},
		{"loadCredentials", "GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials", tbl + "/credentials", nil, true, []int{200}, []string{"storage-credentials"}},
		{"signRequest", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/sign", tbl + "/sign", map[string]any{}, false, nil, nil},
		{"renameTable", "POST", "/v1/{prefix}/tables/rename", p + "/tables/rename", map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "r"}, "destination": map[string]any{"namespace": []string{"ns"}, "name": "r2"}}, true, []int{204}, nil},
		{"reportMetrics", "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics", tbl + "/metrics", map[string]any{"report-type": "scan-report"}, true, []int{204}, nil},
		{"commitTransaction", "POST", "/v1/{prefix}/transactions/commit", p + "/transactions/commit", map[string]any{"table-changes": []any{withIdent(noop, "t")}}, true, []int{204}, nil},
		{"listViews", "GET", "/v1/{prefix}/namespaces/{namespace}/views", p + "/namespaces/ns/views", nil, true, []int{200}, []string{"identifiers"}},
		{"createView", "POST", "/v1/{prefix}/namespaces/{namespace}/views", p + "/namespaces/ns/views", specView("v2"), true, []int{200}, []string{"metadata", "metadata-location", "config"}},
		{"loadView", "GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}", p + "/namespaces/ns/views/v", nil, true, []int{200}, []string{"metadata", "metadata-location", "config"}},
		{"replaceView", "POST", "/v1/{prefix}/namespaces/{namespace}/views/{view}", p + "/namespaces/ns/views/v", noop, true, []int{200}, []string{"metadata", "metadata-location"}},
		{"dropView", "DELETE", "/v1/{prefix}/namespaces/{namespace}/views/{view}", p + "/namespaces/ns/views/dv", nil, true, []int{204}, nil},
		{"viewExists", "HEAD", "/v1/{prefix}/namespaces/{namespace}/views/{view}", p + "/namespaces/ns/views/v", nil, true, []int{204}, nil},
		{"renameView", "POST", "/v1/{prefix}/views/rename", p + "/views/rename", map[string]any{"source": map[string]any{"namespace": []string{"ns"}, "name": "rv"}, "destination": map[string]any{"namespace": []string{"ns"}, "name": "rv2"}}, true, []int{204}, nil},
		{"registerView", "POST", "/v1/{prefix}/namespaces/{namespace}/register-view", p + "/namespaces/ns/register-view", nil, true, []int{200}, []string{"metadata", "metadata-location"}},
	}
}

// specView is a CreateViewRequest as the spec shapes it.
func specView(name string) map[string]any {
	return map[string]any{
		"name":   name,
		"schema": map[string]any{"type": "struct", "schema-id": 0, "fields": []any{map[string]any{"id": 1, "name": "n", "required": false, "type": "long"}}},
		"view-version": map[string]any{"version-id": 1, "schema-id": 0, "timestamp-ms": 1700000000000, "summary": map[string]string{"engine-name": "spark"},
			"default-namespace": []string{"ns"}, "representations": []any{map[string]any{"type": "sql", "sql": "SELECT 1 AS n", "dialect": "spark"}}},
	}
}

func withIdent(change map[string]any, name string) map[string]any {
	out := map[string]any{"identifier": map[string]any{"namespace": []string{"ns"}, "name": name}}
	for k, v := range change {
		out[k] = v
	}
	return out
}

// TestSpecConformance walks every operation of the Iceberg REST spec and
// checks status and body shape: a served operation answers as the spec
// says; any other answers 406 with an UnsupportedOperationException body
// (never 404) and is not advertised in /v1/config.
func TestSpecConformance(t *testing.T) {
	e := newEnv(t, true)
	e.bucket(t, "lake", catalog.FormatIceberg)
	rawTable(t, e, "lake", "")
	// registerTable needs a metadata file of a table the catalog no longer
	// holds (dropped without purge), renameTable a table of its own.
	gone := rawTableNamed(t, e, "lake", "gone")
	if code, body := e.call(t, "DELETE", "/v1/lake/namespaces/ns/tables/gone", "", nil); code != 204 {
		t.Fatalf("drop: %d %v", code, body)
	}
	rawTableNamed(t, e, "lake", "r")
	// Views: v to load, replace and probe; dv to drop; rv to rename; gv
	// dropped so that registerView can bring its metadata file back.
	var goneView map[string]any
	for _, name := range []string{"v", "dv", "rv", "gv"} {
		code, body := e.call(t, "POST", "/v1/lake/namespaces/ns/views", "", specView(name))
		if code != 200 {
			t.Fatalf("create view %s: %d %v", name, code, body)
		}
		goneView = body
	}
	if code, body := e.call(t, "DELETE", "/v1/lake/namespaces/ns/views/gv", "", nil); code != 204 {
		t.Fatalf("drop view: %d %v", code, body)
	}
	key, secret, err := e.store.CreateAPIKey(context.Background(), "conformance", catalog.RoleReadonly, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ops := specOps("lake")
	for i := range ops {
		if ops[i].id == "registerTable" {
			ops[i].body = map[string]any{"name": "reg", "metadata-location": gone["metadata-location"], "overwrite": false}
		}
		if ops[i].id == "registerView" {
			ops[i].body = map[string]any{"name": "regv", "metadata-location": goneView["metadata-location"]}
		}
	}
	code, cfg := e.call(t, "GET", "/v1/config?warehouse=lake", "", nil)
	if code != 200 {
		t.Fatalf("config: %d %v", code, cfg)
	}
	advertised := map[string]bool{}
	for _, ep := range cfg["endpoints"].([]any) {
		advertised[ep.(string)] = true
	}

	var report strings.Builder
	fmt.Fprintf(&report, "\n%-22s %-7s %-72s %-6s %s\n", "operation", "method", "route", "status", "result")
	served := 0
	for _, op := range ops {
		ok := t.Run(op.id, func(t *testing.T) {
			code, body := e.call(t, op.method, op.path, "", op.body)
			if op.id == "getToken" { // a form, not JSON
				code, body = e.postToken(t, url.Values{"grant_type": {"client_credentials"}, "client_id": {key.ID}, "client_secret": {secret}}, [2]string{})
			}
			route := op.method + " " + op.route
			if !op.served {
				if code != 406 || (op.method != "HEAD" && errType(body) != typeUnsupported) {
					t.Fatalf("%s: %d %v, want 406 %s", route, code, body, typeUnsupported)
				}
				if op.method != "HEAD" {
					checkErrorModel(t, body, 406)
				}
				if advertised[route] {
					t.Errorf("%s answers 406 but /v1/config advertises it", route)
				}
				return
			}
			if !slices.Contains(op.codes, code) {
				t.Fatalf("%s: %d %v, want one of %v", route, code, body, op.codes)
			}
			for _, k := range op.keys {
				if _, ok := body[k]; !ok {
					t.Errorf("%s: body lacks %q: %v", route, k, body)
				}
			}
			if op.route != "/v1/config" && !advertised[route] {
				t.Errorf("%s is served but /v1/config does not advertise it", route)
			}
		})
		result, codes := "unsupported", "406"
		if op.served {
			codes = fmt.Sprint(op.codes)
			result = "served"
			served++
		}
		if !ok {
			result = "FAIL"
		}
		fmt.Fprintf(&report, "%-22s %-7s %-72s %-6s %s\n", op.id, op.method, op.route, codes, result)
	}
	fmt.Fprintf(&report, "%d of %d operations served\n", served, len(ops))
	t.Log(report.String())
	if len(advertised) != served-1 { // getConfig itself is not an endpoint entry
		t.Errorf("/v1/config advertises %d endpoints, %d operations are served besides getConfig", len(advertised), served-1)
	}
}

// checkErrorModel checks the spec's ErrorModel: message, type and code.
func checkErrorModel(t *testing.T, body map[string]any, code int) {
	t.Helper()
	e, ok := body["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object: %v", body)
	}
	if m, _ := e["message"].(string); m == "" {
		t.Errorf("error without message: %v", e)
	}
	if c, _ := e["code"].(float64); int(c) != code {
		t.Errorf("error code %v, want %d", e["code"], code)
	}
}

// rawTableNamed creates Iceberg table name in the existing namespace "ns".
func rawTableNamed(t testing.TB, e *testEnv, bucket, name string) map[string]any {
	t.Helper()
	code, body := e.call(t, "POST", "/v1/"+bucket+"/namespaces/ns/tables", "", map[string]any{
		"name":   name,
		"schema": map[string]any{"type": "struct", "schema-id": 0, "fields": []any{map[string]any{"id": 1, "name": "id", "required": true, "type": "long"}}},
	})
	if code != 200 {
		t.Fatalf("create table %s: %d %v", name, code, body)
	}
	return body
}
