package lancerest

import (
	"net/http"
	"strings"
)

type opFunc func(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error

type route struct {
	op    opFunc
	rawID string // the {id} segment, still percent-encoded
	hasID bool
	allow string // set when the path matched but the method did not
}

// matchRoute maps a request to an operation. Every route of the Lance
// Namespace spec is listed here; the metadata operations floe serves come
// first, then the data-plane ones it answers with Unsupported.
func matchRoute(method, path string) (route, bool) {
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return route{}, false
	}
	kind, rest, hasRest := strings.Cut(rest, "/")
	switch kind {
	case "namespace":
		id, op, ok := strings.Cut(rest, "/")
		if !ok || id == "" {
			return route{}, false
		}
		switch op {
		case "create":
			return withID(post(method, createNamespace), id), true
		case "list":
			return withID(list(method, listNamespaces), id), true
		case "describe":
			return withID(post(method, describeNamespace), id), true
		case "drop":
			return withID(post(method, dropNamespace), id), true
		case "exists":
			return withID(post(method, namespaceExists), id), true
		case "table/list":
			return withID(list(method, listTables), id), true
		}
		return route{}, false

	case "table":
		if !hasRest {
			rt := route{op: listAllTables}
			if method != http.MethodGet && method != http.MethodHead {
				rt.allow = "GET"
			}
			return rt, true
		}
		switch rest {
		case "batch-commit":
			return route{op: unsupported}, true
		case "version/batch-create":
			return post(method, batchCreateTableVersions), true
		}
		id, op, ok := strings.Cut(rest, "/")
		if !ok || id == "" {
			return route{}, false
		}
		switch op {
		case "declare":
			return withID(post(method, declareTable), id), true
		case "register":
			return withID(post(method, registerTable), id), true
		case "describe":
			return withID(post(method, describeTable), id), true
		case "exists":
			return withID(post(method, tableExists), id), true
		case "drop":
			return withID(post(method, dropTable), id), true
		case "deregister":
			return withID(post(method, deregisterTable), id), true
		case "rename":
			return withID(post(method, renameTable), id), true
		case "version/list":
			return withID(post(method, listTableVersions), id), true
		case "version/describe":
			return withID(post(method, describeTableVersion), id), true
		case "version/create":
			return withID(post(method, createTableVersion), id), true
		case "version/delete":
			return withID(post(method, batchDeleteTableVersions), id), true
		case "tags/list":
			return withID(post(method, listTableTags), id), true
		case "tags/version":
			return withID(post(method, getTableTagVersion), id), true
		case "tags/create":
			return withID(post(method, createTableTag), id), true
		case "tags/update":
			return withID(post(method, updateTableTag), id), true
		case "tags/delete":
			return withID(post(method, deleteTableTag), id), true
		case "restore":
			return withID(post(method, restoreTable), id), true
		}
		if unsupportedTableOp(op) {
			return route{op: unsupported}, true
		}
		return route{}, false

	case "transaction":
		id, op, ok := strings.Cut(rest, "/")
		if ok && id != "" && (op == "describe" || op == "alter") {
			return route{op: unsupported}, true
		}
	case "materialized_view":
		id, op, ok := strings.Cut(rest, "/")
		if ok && id != "" && (op == "create" || op == "refresh") {
			return route{op: unsupported}, true
		}
	}
	return route{}, false
}

func withID(rt route, id string) route {
	rt.rawID, rt.hasID = id, true
	return rt
}

func post(method string, op opFunc) route {
	if method != http.MethodPost {
		return route{op: op, allow: "POST"}
	}
	return route{op: op}
}

// list operations are GET in the spec; POST is accepted too because older
// clients sent the request model as a body.
func list(method string, op opFunc) route {
	if method != http.MethodGet && method != http.MethodPost {
		return route{op: op, allow: "GET, POST"}
	}
	return route{op: op}
}

// unsupportedTableOps are the spec's data-plane and versioning operations on
// /v1/table/{id}/...; floe's catalog records metadata only.
var unsupportedTableOps = map[string]bool{
	"create": true, "create-empty": true, "insert": true, "merge_insert": true,
	"update": true, "delete": true, "query": true, "count_rows": true,
	"explain_plan": true, "analyze_plan": true, "stats": true,
	"add_columns": true, "alter_columns": true, "drop_columns": true,
	"update_field_metadata": true, "backfill_column": true, "schema_metadata/update": true,
	"create_index": true, "create_scalar_index": true, "index/list": true,
	"branches/list": true, "branches/create": true, "branches/delete": true,
}

func unsupportedTableOp(op string) bool {
	if unsupportedTableOps[op] {
		return true
	}
	// index/{index_name}/stats and index/{index_name}/drop
	if name, verb, ok := strings.Cut(strings.TrimPrefix(op, "index/"), "/"); ok && strings.HasPrefix(op, "index/") && name != "" {
		return verb == "stats" || verb == "drop"
	}
	return false
}

// unsupported answers every data-plane operation of the spec.
func unsupported(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return NewError(CodeUnsupported,
		"operation not supported: "+r.Method+" "+r.URL.Path,
		"floe's catalog records metadata only; data-plane work (create with data, insert, merge_insert, update, delete, query, count_rows, plans, columns, indices, branches, transactions) goes straight to storage through the Lance SDK at the location DescribeTable returns.")
}
