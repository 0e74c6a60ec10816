package icebergrest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
)

// routes is the Iceberg REST's one route table. Every route but the token
// exchange is authenticated by the edge (API key, OAuth bearer or SigV4)
// before its handler runs; an unknown path, a wrong method (405 with Allow)
// and an oversized body are answered by the edge through writeError.
func (s *Server) routes(e *edge.Surface) {
	// The exchange that gets a client its bearer: it checks the client's
	// credentials itself.
	e.HandleFunc("POST /v1/oauth/tokens", s.issueToken, edge.Public(), edge.Op("getToken", edge.Writes))
	e.HandleFunc("GET /v1/config", s.getConfig, edge.Op("getConfig", edge.Reads))
	e.HandleFunc(indexPath, s.indexTables, edge.Op("indexTables", edge.Reads))

	ns := "/v1/{prefix}/namespaces"
	e.Handle("GET "+ns, s.in(read, s.listNamespaces), edge.Op("listNamespaces", edge.Reads))
	e.Handle("POST "+ns, s.in(write, s.createNamespace), edge.Op("createNamespace", edge.Writes))
	e.Handle("GET "+ns+"/{ns}", s.in(read, s.loadNamespace), edge.Op("loadNamespaceMetadata", edge.Reads))
	e.Handle("HEAD "+ns+"/{ns}", s.in(read, s.namespaceExists), edge.Op("namespaceExists", edge.Reads))
	e.Handle("DELETE "+ns+"/{ns}", s.in(write, s.dropNamespace), edge.Op("dropNamespace", edge.Writes))
	e.Handle("POST "+ns+"/{ns}/properties", s.in(write, s.updateNamespaceProperties), edge.Op("updateProperties", edge.Writes))

	tb := ns + "/{ns}/tables"
	e.Handle("GET "+tb, s.in(read, s.listTables), edge.Op("listTables", edge.Reads))
	e.Handle("POST "+tb, s.in(write, s.createTable), edge.Op("createTable", edge.Writes))
	e.Handle("GET "+tb+"/{table}", s.in(read, s.loadTable), edge.Op("loadTable", edge.Reads))
	e.Handle("HEAD "+tb+"/{table}", s.in(read, s.tableExists), edge.Op("tableExists", edge.Reads))
	e.Handle("POST "+tb+"/{table}", s.in(write, s.commitTable), edge.Op("updateTable", edge.Writes))
	e.Handle("DELETE "+tb+"/{table}", s.in(write, s.dropTable), edge.Op("dropTable", edge.Writes))
	e.Handle("POST "+tb+"/{table}/metrics", s.in(read, s.reportMetrics), edge.Op("reportMetrics", edge.Reads))
	e.Handle("GET "+tb+"/{table}/credentials", s.in(read, s.loadCredentials), edge.Op("loadCredentials", edge.Reads))
	e.Handle("POST "+tb+"/{table}/plan", s.in(read, s.planTableScan), edge.Op("planTableScan", edge.Reads))
	e.Handle("GET "+tb+"/{table}/plan/{plan}", s.in(read, s.fetchPlanningResult), edge.Op("fetchPlanningResult", edge.Reads))
	e.Handle("DELETE "+tb+"/{table}/plan/{plan}", s.in(read, s.cancelPlanning), edge.Op("cancelPlanning", edge.Reads))
	e.Handle("POST "+tb+"/{table}/tasks", s.in(read, s.fetchScanTasks), edge.Op("fetchScanTasks", edge.Reads))
	e.Handle("POST "+ns+"/{ns}/register", s.in(write, s.registerTable), edge.Op("registerTable", edge.Writes))
	e.Handle("POST /v1/{prefix}/tables/rename", s.in(write, s.renameTable), edge.Op("renameTable", edge.Writes))
	e.Handle("POST /v1/{prefix}/transactions/commit", s.in(write, s.commitTransaction), edge.Op("commitTransaction", edge.Writes))

	vw := ns + "/{ns}/views"
	e.Handle("GET "+vw, s.in(read, s.listViews), edge.Op("listViews", edge.Reads))
	e.Handle("POST "+vw, s.in(write, s.createView), edge.Op("createView", edge.Writes))
	e.Handle("GET "+vw+"/{view}", s.in(read, s.loadView), edge.Op("loadView", edge.Reads))
	e.Handle("HEAD "+vw+"/{view}", s.in(read, s.viewExists), edge.Op("viewExists", edge.Reads))
	e.Handle("POST "+vw+"/{view}", s.in(write, s.commitView), edge.Op("replaceView", edge.Writes))
	e.Handle("DELETE "+vw+"/{view}", s.in(write, s.dropView), edge.Op("dropView", edge.Writes))
	e.Handle("POST /v1/{prefix}/views/rename", s.in(write, s.renameView), edge.Op("renameView", edge.Writes))
	e.Handle("POST "+ns+"/{ns}/register-view", s.in(write, s.registerView), edge.Op("registerView", edge.Writes))

	// The spec's operations floe does not serve answer 406, after the key
	// is checked like any other route's.
	for _, u := range unsupported {
		e.HandleFunc(muxPattern(u.route), s.unsupportedOp(u.why), edge.Op("unsupported", edge.Reads))
	}
}

// access says what a route does to its bucket.
type access int

const (
	read access = iota
	write
)

// bucketHandler serves one route inside a bucket-catalog.
type bucketHandler func(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error

// in serves h inside the bucket the route's {prefix} names (a bucket's name
// or its ARN), once the caller may read or write it. The handler sees the
// bucket's name as {prefix}, whichever form the client sent.
func (s *Server) in(a access, h bucketHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.describe(r)
		b, err := s.openBucket(r, r.PathValue("prefix"), a)
		if err == nil {
			r.SetPathValue("prefix", b.Name)
			err = h(w, r, b)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// describe names the route's resource for the audit trail from the path:
// the bucket ({prefix}, a name or an ARN), the namespace, the table or
// view. A part that does not parse is left out (the handler refuses it).
func (s *Server) describe(r *http.Request) {
	name, _, err := s.bucketName(r.PathValue("prefix"))
	if err != nil || name == "" {
		return
	}
	res := identity.Resource{Bucket: name}
	if ns, err := parseNamespace(r.PathValue("ns")); err == nil && len(ns) > 0 {
		res.Namespace = ns
		res.Table = r.PathValue("table")
		if res.Table == "" {
			res.Table = r.PathValue("view")
		}
	}
	edge.Describe(r.Context(), res)
}
