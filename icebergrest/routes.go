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
	e.Handle("GET "+ns, s.in(see(inBody), s.listNamespaces), edge.Op("listNamespaces", edge.Reads))
	e.Handle("POST "+ns, s.in(see(inBody), s.createNamespace), edge.Op("createNamespace", edge.Writes))
	e.Handle("GET "+ns+"/{ns}", s.in(see(atNamespace), s.loadNamespace), edge.Op("loadNamespaceMetadata", edge.Reads))
	e.Handle("HEAD "+ns+"/{ns}", s.in(see(atNamespace), s.namespaceExists), edge.Op("namespaceExists", edge.Reads))
	e.Handle("DELETE "+ns+"/{ns}", s.in(need(identity.Manage, atNamespace), s.dropNamespace), edge.Op("dropNamespace", edge.Writes))
	e.Handle("POST "+ns+"/{ns}/properties", s.in(need(identity.Manage, atNamespace), s.updateNamespaceProperties), edge.Op("updateProperties", edge.Writes))

	tb := ns + "/{ns}/tables"
	e.Handle("GET "+tb, s.in(see(atNamespace), s.listTables), edge.Op("listTables", edge.Reads))
	e.Handle("POST "+tb, s.in(see(atNamespace), s.createTable), edge.Op("createTable", edge.Writes))
	e.Handle("GET "+tb+"/{table}", s.in(need(identity.Read, atTable), s.loadTable), edge.Op("loadTable", edge.Reads))
	e.Handle("HEAD "+tb+"/{table}", s.in(need(identity.Read, atTable), s.tableExists), edge.Op("tableExists", edge.Reads))
	e.Handle("POST "+tb+"/{table}", s.in(need(identity.Write, atTable), s.commitTable), edge.Op("updateTable", edge.Writes))
	e.Handle("DELETE "+tb+"/{table}", s.in(need(identity.Manage, atTable), s.dropTable), edge.Op("dropTable", edge.Writes))
	e.Handle("POST "+tb+"/{table}/metrics", s.in(need(identity.Read, atTable), s.reportMetrics), edge.Op("reportMetrics", edge.Reads))
	e.Handle("GET "+tb+"/{table}/credentials", s.in(need(identity.Read, atTable), s.loadCredentials), edge.Op("loadCredentials", edge.Reads))
	e.Handle("POST "+tb+"/{table}/plan", s.in(need(identity.Read, atTable), s.planTableScan), edge.Op("planTableScan", edge.Reads))
	e.Handle("GET "+tb+"/{table}/plan/{plan}", s.in(need(identity.Read, atTable), s.fetchPlanningResult), edge.Op("fetchPlanningResult", edge.Reads))
	e.Handle("DELETE "+tb+"/{table}/plan/{plan}", s.in(need(identity.Read, atTable), s.cancelPlanning), edge.Op("cancelPlanning", edge.Reads))
	e.Handle("POST "+tb+"/{table}/tasks", s.in(need(identity.Read, atTable), s.fetchScanTasks), edge.Op("fetchScanTasks", edge.Reads))
	e.Handle("POST "+ns+"/{ns}/register", s.in(see(atNamespace), s.registerTable), edge.Op("registerTable", edge.Writes))
	e.Handle("POST "+ns+"/{ns}/undrop", s.in(see(atNamespace), s.undropTable), edge.Op("undropTable", edge.Writes)) // floe's extension: soft delete; manage asked by the handler
	e.Handle("POST /v1/{prefix}/tables/rename", s.in(see(inBody), s.renameTable), edge.Op("renameTable", edge.Writes))
	e.Handle("POST /v1/{prefix}/transactions/commit", s.in(see(inBody), s.commitTransaction), edge.Op("commitTransaction", edge.Writes))

	vw := ns + "/{ns}/views"
	e.Handle("GET "+vw, s.in(see(atNamespace), s.listViews), edge.Op("listViews", edge.Reads))
	e.Handle("POST "+vw, s.in(see(atNamespace), s.createView), edge.Op("createView", edge.Writes))
	e.Handle("GET "+vw+"/{view}", s.in(need(identity.Read, atView), s.loadView), edge.Op("loadView", edge.Reads))
	e.Handle("HEAD "+vw+"/{view}", s.in(need(identity.Read, atView), s.viewExists), edge.Op("viewExists", edge.Reads))
	e.Handle("POST "+vw+"/{view}", s.in(need(identity.Write, atView), s.commitView), edge.Op("replaceView", edge.Writes))
	e.Handle("DELETE "+vw+"/{view}", s.in(need(identity.Manage, atView), s.dropView), edge.Op("dropView", edge.Writes))
	e.Handle("POST /v1/{prefix}/views/rename", s.in(see(inBody), s.renameView), edge.Op("renameView", edge.Writes))
	e.Handle("POST "+ns+"/{ns}/register-view", s.in(see(atNamespace), s.registerView), edge.Op("registerView", edge.Writes))

	// The spec's operations floe does not serve answer 406, after the key
	// is checked like any other route's.
	for _, u := range unsupported {
		e.HandleFunc(muxPattern(u.route), s.unsupportedOp(u.why), edge.Op("unsupported", edge.Reads))
	}
}

// bucketHandler serves one route inside a bucket-catalog.
type bucketHandler func(w http.ResponseWriter, r *http.Request, b catalog.Bucket) error

// in serves h inside the bucket the route's {prefix} names (a bucket's name
// or its ARN), once the caller may do what the route's rule needs. The
// handler sees the bucket's name as {prefix}, whichever form the client
// sent, and the caller's rights (rightsOf) for what its body names.
func (s *Server) in(ru rule, h bucketHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.describe(r)
		rt, err := s.loadRights(r)
		var b catalog.Bucket
		if err == nil {
			b, err = s.openBucket(r, r.PathValue("prefix"), rt)
		}
		if err == nil {
			r.SetPathValue("prefix", b.Name)
			err = s.check(r, rt, ru, b.Name)
		}
		if err == nil {
			err = h(w, withRights(r, rt), b)
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
