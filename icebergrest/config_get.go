package icebergrest

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
)

// getConfig answers GET /v1/config?warehouse=<bucket> with the prefix the
// client must use for that bucket; the warehouse may also be the bucket's
// ARN, as engines configured for AWS S3 Tables name it, and the prefix is
// then the bucket's name all the same. A client that names no warehouse gets the
// default bucket when one is configured, otherwise a 400 saying how to name
// one: an answer without a prefix would send it to routes that cannot work.
func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	wh := strings.TrimSuffix(strings.TrimPrefix(r.URL.Query().Get("warehouse"), "s3://"), "/")
	if wh == "" {
		wh = s.defaultBucket
	}
	if wh == "" {
		s.writeError(w, r, badRequest("name a warehouse: GET /v1/config?warehouse=<bucket> (in clients the catalog property warehouse=<bucket>), or start floe with --iceberg-default-bucket <bucket>"))
		return
	}
	rt, err := s.loadRights(r)
	var b catalog.Bucket
	if err == nil {
		b, err = s.openBucket(r, wh, rt)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"defaults":  map[string]string{},
		"overrides": map[string]string{"prefix": b.Name},
		"endpoints": endpoints,
	})
}

// endpoints advertised in /v1/config: exactly the operations served, so a
// client never calls one it was promised and gets 406 (see unsupported).
var endpoints = []string{
	"POST /v1/oauth/tokens",
	"GET /v1/{prefix}/namespaces",
	"POST /v1/{prefix}/namespaces",
	"GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}",
	"DELETE /v1/{prefix}/namespaces/{namespace}",
	"POST /v1/{prefix}/namespaces/{namespace}/properties",
	"GET /v1/{prefix}/namespaces/{namespace}/tables",
	"POST /v1/{prefix}/namespaces/{namespace}/tables",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
	"POST /v1/{prefix}/namespaces/{namespace}/register",
	"POST /v1/{prefix}/tables/rename",
	"POST /v1/{prefix}/transactions/commit",
	"GET /v1/{prefix}/namespaces/{namespace}/views",
	"POST /v1/{prefix}/namespaces/{namespace}/views",
	"GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
	"POST /v1/{prefix}/views/rename",
	"POST /v1/{prefix}/namespaces/{namespace}/register-view",
}
