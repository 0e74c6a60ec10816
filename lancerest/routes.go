package lancerest

import (
	"net/http"
	"strings"

	"github.com/floe/floe/edge"
)

// routes is the surface's one route table: every route of the Lance
// Namespace spec as a ServeMux pattern, the metadata operations floe serves
// first, then the data-plane ones it answers with Unsupported. {id} is one
// path segment: the identifier's names joined by the delimiter, with a
// percent-encoded $ or / kept inside it.
func (s *Server) routes() {
	for _, rt := range []struct {
		pattern string
		name    string // the spec's operation, as the audit trail records it
		access  edge.Access
		op      opFunc
	}{
		{"POST /v1/namespace/{id}/create", "CreateNamespace", edge.Writes, createNamespace},
		// The list operations are GET in the spec; POST is accepted too
		// because older clients sent the request model as a body.
		{"GET /v1/namespace/{id}/list", "ListNamespaces", edge.Reads, listNamespaces},
		{"POST /v1/namespace/{id}/list", "ListNamespaces", edge.Reads, listNamespaces},
		{"POST /v1/namespace/{id}/describe", "DescribeNamespace", edge.Reads, describeNamespace},
		{"POST /v1/namespace/{id}/drop", "DropNamespace", edge.Writes, dropNamespace},
		{"POST /v1/namespace/{id}/exists", "NamespaceExists", edge.Reads, namespaceExists},
		{"GET /v1/namespace/{id}/table/list", "ListTables", edge.Reads, listTables},
		{"POST /v1/namespace/{id}/table/list", "ListTables", edge.Reads, listTables},

		{"GET /v1/table", "ListAllTables", edge.Reads, listAllTables},
		{"POST /v1/table/{id}/declare", "DeclareTable", edge.Writes, declareTable},
		{"POST /v1/table/{id}/register", "RegisterTable", edge.Writes, registerTable},
		{"POST /v1/table/{id}/describe", "DescribeTable", edge.Reads, describeTable},
		{"POST /v1/table/{id}/exists", "TableExists", edge.Reads, tableExists},
		{"POST /v1/table/{id}/drop", "DropTable", edge.Writes, dropTable},
		{"POST /v1/table/{id}/deregister", "DeregisterTable", edge.Writes, deregisterTable},
		{"POST /v1/table/{id}/rename", "RenameTable", edge.Writes, renameTable},
		{"POST /v1/table/{id}/version/list", "ListTableVersions", edge.Reads, listTableVersions},
		{"POST /v1/table/{id}/version/describe", "DescribeTableVersion", edge.Reads, describeTableVersion},
		{"POST /v1/table/{id}/version/create", "CreateTableVersion", edge.Writes, createTableVersion},
		{"POST /v1/table/{id}/version/delete", "BatchDeleteTableVersions", edge.Writes, batchDeleteTableVersions},
		{"POST /v1/table/version/batch-create", "BatchCreateTableVersions", edge.Writes, batchCreateTableVersions},
		{"POST /v1/table/{id}/tags/list", "ListTableTags", edge.Reads, listTableTags},
		{"POST /v1/table/{id}/tags/version", "GetTableTagVersion", edge.Reads, getTableTagVersion},
		{"POST /v1/table/{id}/tags/create", "CreateTableTag", edge.Writes, createTableTag},
		{"POST /v1/table/{id}/tags/update", "UpdateTableTag", edge.Writes, updateTableTag},
		{"POST /v1/table/{id}/tags/delete", "DeleteTableTag", edge.Writes, deleteTableTag},
		{"POST /v1/table/{id}/restore", "RestoreTable", edge.Writes, restoreTable},
		{"POST /v1/table/{id}/undrop", "UndropTable", edge.Writes, undropTable},      // floe's extension: soft delete
		{"POST /v1/table/{id}/cleanup_plan", "CleanupPlan", edge.Reads, cleanupPlan}, // floe's extension: a cleanup's dry run
	} {
		s.surface.Handle(rt.pattern, s.serve(rt.op, strings.Contains(rt.pattern, "{id}")), edge.Op(rt.name, rt.access))
	}
	// Unsupported operations answer 406 code 0 whatever the method, so a
	// client learns that the operation exists but floe does not do it.
	// They change nothing, so they are reads to the audit trail (recorded
	// when refused).
	for _, p := range unsupportedRoutes {
		s.surface.Handle(p, s.serve(unsupported, false), edge.Op("Unsupported", edge.Reads))
	}
}

// unsupportedRoutes are the spec's data-plane, index, branch,
// transaction and view operations: floe's catalog records metadata only.
var unsupportedRoutes = []string{
	"/v1/table/batch-commit",
	"/v1/table/{id}/create",
	"/v1/table/{id}/create-empty",
	"/v1/table/{id}/insert",
	"/v1/table/{id}/merge_insert",
	"/v1/table/{id}/update",
	"/v1/table/{id}/delete",
	"/v1/table/{id}/query",
	"/v1/table/{id}/count_rows",
	"/v1/table/{id}/explain_plan",
	"/v1/table/{id}/analyze_plan",
	"/v1/table/{id}/stats",
	"/v1/table/{id}/add_columns",
	"/v1/table/{id}/alter_columns",
	"/v1/table/{id}/drop_columns",
	"/v1/table/{id}/update_field_metadata",
	"/v1/table/{id}/backfill_column",
	"/v1/table/{id}/schema_metadata/update",
	"/v1/table/{id}/create_index",
	"/v1/table/{id}/create_scalar_index",
	"/v1/table/{id}/index/list",
	"/v1/table/{id}/index/{index}/stats",
	"/v1/table/{id}/index/{index}/drop",
	"/v1/table/{id}/branches/list",
	"/v1/table/{id}/branches/create",
	"/v1/table/{id}/branches/delete",
	"/v1/transaction/{id}/describe",
	"/v1/transaction/{id}/alter",
	"/v1/materialized_view/{id}/create",
	"/v1/materialized_view/{id}/refresh",
}

// unsupported answers every data-plane operation of the spec.
func unsupported(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return NewError(CodeUnsupported,
		"operation not supported: "+r.Method+" "+r.URL.Path,
		"floe's catalog records metadata only; data-plane work (create with data, insert, merge_insert, update, delete, query, count_rows, plans, columns, indices, branches, transactions) goes straight to storage through the Lance SDK at the location DescribeTable returns.")
}

// refuseDotSegments answers an identifier of "." or ".." (which no name
// may be) as invalid input before routing, where ServeMux would otherwise
// clean the path and answer as if another route had been asked for.
func (s *Server) refuseDotSegments(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); strings.Contains(p, "/.") && hasDotSegment(p) {
			s.encode(w, r, invalid("identifier is a dot segment",
				"Names are 1-255 of a-z, 0-9, _ and -; . and .. are not names."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func hasDotSegment(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
