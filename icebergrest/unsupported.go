package icebergrest

import (
	"net/http"
	"strings"
)

// unsupported lists the operations of the Iceberg REST spec floe does not
// serve. Each answers the spec's UnsupportedOperationResponse (406 with an
// UnsupportedOperationException body) rather than a 404, which clients read
// as "no such table"; none is advertised in /v1/config's endpoints.
var unsupported = []struct {
	route, why string
}{
	{"GET /v1/{prefix}/namespaces/{namespace}/functions", "floe keeps no functions"},
	{"GET /v1/{prefix}/namespaces/{namespace}/functions/{function}", "floe keeps no functions"},
	{"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/unregister", "unregistering is not offered; drop the table without purgeRequested to keep its files"},
	{"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign", "floe signs no storage requests; the warehouse is read directly"},
}

// unsupportedOp answers an operation of the unsupported list with 406.
func (s *Server) unsupportedOp(why string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(http.StatusNotAcceptable, typeUnsupported, "%s %s is not supported: %s", r.Method, r.URL.Path, why))
	}
}

// muxPattern turns a spec route ("GET /v1/{prefix}/namespaces/{namespace}")
// into a ServeMux pattern: wildcards may not contain '-' and {namespace} is
// {ns} in our handlers.
func muxPattern(route string) string {
	r := strings.ReplaceAll(route, "{namespace}", "{ns}")
	return strings.ReplaceAll(r, "{plan-id}", "{plan}")
}
