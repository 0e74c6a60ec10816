package web

import (
	"net/http"
	"strings"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/static"
)

// routes lists every console route as a ServeMux pattern. Every route but
// the public ones needs a signed-in session (the edge's authentication
// step); writes are POSTs (HTML forms), refused to the read-only role by
// requireWriter.
func (s *Server) routes(sf *edge.Surface) {
	h := s.h
	public := edge.Public()
	read := func(op string) edge.Option { return edge.Op(op, edge.Reads) }
	sf.HandleFunc("GET /healthz", healthz, public, read("Healthz"))
	sf.HandleFunc("GET /readyz", s.readyz, public, read("Readyz"))
	sf.Handle("GET /static/", static.Handler(), public, read("Static"))
	sf.Handle("GET /favicon.ico", static.Favicon(), public, read("Static"))
	sf.HandleFunc("GET /live", s.Live, public, read("Live")) // websocket: live job and task progress; reads the session itself (see Live)
	sf.HandleFunc("GET /login", h.ShowLogin, public, read("ShowLogin"))
	sf.HandleFunc("POST /login", h.Login, public, edge.Op("SignIn", edge.Writes))
	sf.HandleFunc("GET /login/oidc", h.StartOIDC, public, read("StartSignIn"))                                // to the identity provider (404 without one)
	sf.HandleFunc("GET /login/oidc/callback", h.OIDCCallback, public, edge.Op("SignInCallback", edge.Writes)) // its answer
	sf.HandleFunc("POST /logout", h.Logout, edge.Op("SignOut", edge.Writes))                                  // allowed for every role

	// Every page names its operation for the audit trail; a POST (a form)
	// writes, a GET reads.
	page := func(pattern, op string, f http.HandlerFunc) {
		sf.Handle(pattern, describe(requireWriter(h, f)), edge.Op(op, accessOf(pattern)))
	}
	page("GET /{$}", "Redirect", redirectTo("/buckets"))
	page("GET /buckets", "ListBuckets", h.ListBuckets)
	page("POST /buckets", "CreateBucket", h.CreateBucket)
	page("GET /fragments/endpoint-hint", "EndpointHint", h.EndpointHint)
	page("GET /buckets/{bucket}", "ShowBucket", h.ShowBucket)
	page("POST /buckets/{bucket}/delete", "DeleteBucket", h.DeleteBucket)
	page("POST /buckets/{bucket}/namespaces", "CreateNamespace", h.CreateNamespace)
	page("GET /buckets/{bucket}/namespaces/{ns}", "ShowNamespace", h.ShowNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/delete", "DeleteNamespace", h.DeleteNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables", "DeclareTable", h.DeclareTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/create-table", "NewIcebergTable", h.NewIcebergTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/create-table", "CreateIcebergTable", h.CreateIcebergTable)
	page("GET /fragments/iceberg-column", "IcebergColumnRow", h.IcebergColumnRow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}", "ShowTable", h.ShowTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/views/{view}", "ShowView", h.ShowView)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/data", "TableData", h.TableData)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance", "TableMaintenance", h.TableMaintenance)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks", "SubmitTask", h.SubmitTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks/{task}/delete", "DeleteTask", h.DeleteTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/iceberg", "RunIcebergJob", h.RunIcebergJob)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", "CompactNowControl", h.CompactNowControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", "CompactNow", h.CompactNow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", "HealthFixControl", h.HealthFixControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", "HealthFix", h.HealthFix)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect", "ShowTableConnect", h.ShowTableConnect)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect/key", "CreateTableConnectKey", h.CreateTableConnectKey)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/drop", "DropTable", h.DropTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/deregister", "DeregisterTable", h.DeregisterTable)
	page("GET /connect", "Connect", h.Connect)
	page("GET /api-keys", "ListAPIKeys", h.ListAPIKeys)
	page("POST /api-keys", "CreateAPIKey", h.CreateAPIKey)
	page("POST /api-keys/{id}/revoke", "RevokeAPIKey", h.RevokeAPIKey)
	page("GET /workers", "ListWorkers", h.ListWorkers)
	page("POST /workers/tokens", "CreateWorkerToken", h.CreateWorkerToken)
	page("POST /workers/tokens/{id}/revoke", "RevokeWorkerToken", h.RevokeWorkerToken)
	page("GET /job-types", "Redirect", redirectTo("/workers#job-types"))
	page("GET /job-types/{type}", "ShowJobType", h.ShowJobType)
	page("POST /job-types/{type}", "SaveJobType", h.SaveJobType)
	page("POST /job-types/{type}/detect", "DetectJobType", h.DetectJobType)
	page("POST /job-types/{type}/run", "RunJobType", h.RunJobType)
	page("GET /activity", "Activity", h.Activity)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/activity", "TableActivity", h.TableActivity)
	page("GET /jobs", "Jobs", h.Jobs)
	page("GET /jobs/{id}", "ShowJob", h.ShowJob)
	page("POST /jobs/{id}/expire", "ExpireJob", h.ExpireJob)
	page("POST /jobs/{id}/cancel", "CancelJob", h.CancelJob)
}

// quietRoutes log at debug: every page view fetches a handful of static
// files and opens /live, which would otherwise outnumber the lines worth
// reading.
var quietRoutes = []string{"GET /static/", "GET /favicon.ico", "GET /live"}

func redirectTo(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusSeeOther) }
}

// accessOf marks a console route: a form post writes, a page reads.
func accessOf(pattern string) edge.Access {
	if strings.HasPrefix(pattern, "POST ") {
		return edge.Writes
	}
	return edge.Reads
}

// describe names a page's resource for the audit trail from its path:
// {bucket}, {ns} (levels joined by "."), {table} or {view}.
func describe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b := r.PathValue("bucket"); b != "" {
			res := identity.Resource{Bucket: b}
			if ns := r.PathValue("ns"); ns != "" {
				res.Namespace = strings.Split(ns, ".")
				res.Table = r.PathValue("table")
				if res.Table == "" {
					res.Table = r.PathValue("view")
				}
			}
			edge.Describe(r.Context(), res)
		}
		next.ServeHTTP(w, r)
	})
}
