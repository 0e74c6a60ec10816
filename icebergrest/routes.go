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
	e.HandleFunc("POST /v1/oauth/tokens", s.issueToken, edge.Public())
	e.HandleFunc("GET /v1/config", s.getConfig)
	e.HandleFunc(indexPath, s.indexTables)

	ns := "/v1/{prefix}/namespaces"
	e.Handle("GET "+ns, s.in(see(inBody), s.listNamespaces))
	e.Handle("POST "+ns, s.in(see(inBody), s.createNamespace))
	e.Handle("GET "+ns+"/{ns}", s.in(see(atNamespace), s.loadNamespace))
	e.Handle("HEAD "+ns+"/{ns}", s.in(see(atNamespace), s.namespaceExists))
	e.Handle("DELETE "+ns+"/{ns}", s.in(need(identity.Manage, atNamespace), s.dropNamespace))
	e.Handle("POST "+ns+"/{ns}/properties", s.in(need(identity.Manage, atNamespace), s.updateNamespaceProperties))

	tb := ns + "/{ns}/tables"
	e.Handle("GET "+tb, s.in(see(atNamespace), s.listTables))
	e.Handle("POST "+tb, s.in(see(atNamespace), s.createTable))
	e.Handle("GET "+tb+"/{table}", s.in(need(identity.Read, atTable), s.loadTable))
	e.Handle("HEAD "+tb+"/{table}", s.in(need(identity.Read, atTable), s.tableExists))
	e.Handle("POST "+tb+"/{table}", s.in(need(identity.Write, atTable), s.commitTable))
	e.Handle("DELETE "+tb+"/{table}", s.in(need(identity.Manage, atTable), s.dropTable))
	e.Handle("POST "+tb+"/{table}/metrics", s.in(need(identity.Read, atTable), s.reportMetrics))
	e.Handle("GET "+tb+"/{table}/credentials", s.in(need(identity.Read, atTable), s.loadCredentials))
	e.Handle("POST "+tb+"/{table}/plan", s.in(need(identity.Read, atTable), s.planTableScan))
	e.Handle("GET "+tb+"/{table}/plan/{plan}", s.in(need(identity.Read, atTable), s.fetchPlanningResult))
	e.Handle("DELETE "+tb+"/{table}/plan/{plan}", s.in(need(identity.Read, atTable), s.cancelPlanning))
	e.Handle("POST "+tb+"/{table}/tasks", s.in(need(identity.Read, atTable), s.fetchScanTasks))
	e.Handle("POST "+ns+"/{ns}/register", s.in(see(atNamespace), s.registerTable))
	e.Handle("POST /v1/{prefix}/tables/rename", s.in(see(inBody), s.renameTable))
	e.Handle("POST /v1/{prefix}/transactions/commit", s.in(see(inBody), s.commitTransaction))

	vw := ns + "/{ns}/views"
	e.Handle("GET "+vw, s.in(see(atNamespace), s.listViews))
	e.Handle("POST "+vw, s.in(see(atNamespace), s.createView))
	e.Handle("GET "+vw+"/{view}", s.in(need(identity.Read, atView), s.loadView))
	e.Handle("HEAD "+vw+"/{view}", s.in(need(identity.Read, atView), s.viewExists))
	e.Handle("POST "+vw+"/{view}", s.in(need(identity.Write, atView), s.commitView))
	e.Handle("DELETE "+vw+"/{view}", s.in(need(identity.Manage, atView), s.dropView))
	e.Handle("POST /v1/{prefix}/views/rename", s.in(see(inBody), s.renameView))
	e.Handle("POST "+ns+"/{ns}/register-view", s.in(see(atNamespace), s.registerView))

	// The spec's operations floe does not serve answer 406, after the key
	// is checked like any other route's.
	for _, u := range unsupported {
		e.HandleFunc(muxPattern(u.route), s.unsupportedOp(u.why))
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
