package icebergrest

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
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
	e.Handle("GET "+ns, s.in(read, s.listNamespaces))
	e.Handle("POST "+ns, s.in(write, s.createNamespace))
	e.Handle("GET "+ns+"/{ns}", s.in(read, s.loadNamespace))
	e.Handle("HEAD "+ns+"/{ns}", s.in(read, s.namespaceExists))
	e.Handle("DELETE "+ns+"/{ns}", s.in(write, s.dropNamespace))
	e.Handle("POST "+ns+"/{ns}/properties", s.in(write, s.updateNamespaceProperties))

	tb := ns + "/{ns}/tables"
	e.Handle("GET "+tb, s.in(read, s.listTables))
	e.Handle("POST "+tb, s.in(write, s.createTable))
	e.Handle("GET "+tb+"/{table}", s.in(read, s.loadTable))
	e.Handle("HEAD "+tb+"/{table}", s.in(read, s.tableExists))
	e.Handle("POST "+tb+"/{table}", s.in(write, s.commitTable))
	e.Handle("DELETE "+tb+"/{table}", s.in(write, s.dropTable))
	e.Handle("POST "+tb+"/{table}/metrics", s.in(read, s.reportMetrics))
	e.Handle("GET "+tb+"/{table}/credentials", s.in(read, s.loadCredentials))
	e.Handle("POST "+tb+"/{table}/plan", s.in(read, s.planTableScan))
	e.Handle("GET "+tb+"/{table}/plan/{plan}", s.in(read, s.fetchPlanningResult))
	e.Handle("DELETE "+tb+"/{table}/plan/{plan}", s.in(read, s.cancelPlanning))
	e.Handle("POST "+tb+"/{table}/tasks", s.in(read, s.fetchScanTasks))
	e.Handle("POST "+ns+"/{ns}/register", s.in(write, s.registerTable))
	e.Handle("POST "+ns+"/{ns}/undrop", s.in(write, s.undropTable)) // floe's extension: soft delete
	e.Handle("POST /v1/{prefix}/tables/rename", s.in(write, s.renameTable))
	e.Handle("POST /v1/{prefix}/transactions/commit", s.in(write, s.commitTransaction))

	vw := ns + "/{ns}/views"
	e.Handle("GET "+vw, s.in(read, s.listViews))
	e.Handle("POST "+vw, s.in(write, s.createView))
	e.Handle("GET "+vw+"/{view}", s.in(read, s.loadView))
	e.Handle("HEAD "+vw+"/{view}", s.in(read, s.viewExists))
	e.Handle("POST "+vw+"/{view}", s.in(write, s.commitView))
	e.Handle("DELETE "+vw+"/{view}", s.in(write, s.dropView))
	e.Handle("POST /v1/{prefix}/views/rename", s.in(write, s.renameView))
	e.Handle("POST "+ns+"/{ns}/register-view", s.in(write, s.registerView))

	// The spec's operations floe does not serve answer 406, after the key
	// is checked like any other route's.
	for _, u := range unsupported {
		e.HandleFunc(muxPattern(u.route), s.unsupportedOp(u.why))
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
