package web

import (
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/static"
)

// routes lists every console route as a ServeMux pattern. Every route but
// the public ones needs a signed-in session (the edge's authentication
// step); writes are POSTs (HTML forms), refused to the read-only role by
// requireWriter.
func (s *Server) routes(sf *edge.Surface) {
	h := s.h
	public := edge.Public()
	sf.HandleFunc("GET /healthz", healthz, public)
	sf.HandleFunc("GET /readyz", s.readyz, public)
	sf.Handle("GET /static/", static.Handler(), public)
	sf.Handle("GET /favicon.ico", static.Favicon(), public)
	sf.HandleFunc("GET /live", s.Live, public) // websocket: live job and task progress; reads the session itself (see Live)
	sf.HandleFunc("GET /login", h.ShowLogin, public)
	sf.HandleFunc("POST /login", h.Login, public)
	sf.HandleFunc("POST /logout", h.Logout) // allowed for every role

	page := func(pattern string, f http.HandlerFunc) { sf.Handle(pattern, requireWriter(h, f)) }
	page("GET /{$}", redirectTo("/buckets"))
	page("GET /buckets", h.ListBuckets)
	page("POST /buckets", h.CreateBucket)
	page("GET /fragments/endpoint-hint", h.EndpointHint)
	page("GET /buckets/{bucket}", h.ShowBucket)
	page("POST /buckets/{bucket}/delete", h.DeleteBucket)
	page("POST /buckets/{bucket}/namespaces", h.CreateNamespace)
	page("GET /buckets/{bucket}/namespaces/{ns}", h.ShowNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/delete", h.DeleteNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/properties", h.UpdateNamespaceProperties)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables", h.DeclareTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/create-table", h.NewIcebergTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/create-table", h.CreateIcebergTable)
	page("GET /fragments/iceberg-column", h.IcebergColumnRow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}", h.ShowTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/views/{view}", h.ShowView)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/data", h.TableData)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance", h.TableMaintenance)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks", h.SubmitTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks/{task}/delete", h.DeleteTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/iceberg", h.RunIcebergJob)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", h.CompactNowControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", h.CompactNow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", h.HealthFixControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", h.HealthFix)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect", h.ShowTableConnect)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect/key", h.CreateTableConnectKey)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/properties", h.UpdateTableProperties)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/drop", h.DropTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/deregister", h.DeregisterTable)
	page("GET /connect", h.Connect)
	page("GET /api-keys", h.ListAPIKeys)
	page("POST /api-keys", h.CreateAPIKey)
	page("POST /api-keys/{id}/revoke", h.RevokeAPIKey)
	page("GET /users", h.ListUsers) // admins only (the handler refuses others)
	page("POST /users", h.CreateUser)
	page("POST /users/{name}/role", h.SetUserRole)
	page("POST /users/{name}/disable", h.DisableUser)
	page("POST /users/{name}/enable", h.EnableUser)
	page("POST /users/{name}/password", h.ResetUserPassword)
	page("GET /workers", h.ListWorkers)
	page("POST /workers/tokens", h.CreateWorkerToken)
	page("POST /workers/tokens/{id}/revoke", h.RevokeWorkerToken)
	page("GET /job-types", redirectTo("/workers#job-types"))
	page("GET /job-types/{type}", h.ShowJobType)
	page("POST /job-types/{type}", h.SaveJobType)
	page("POST /job-types/{type}/detect", h.DetectJobType)
	page("POST /job-types/{type}/run", h.RunJobType)
	page("GET /jobs", h.Jobs)
	page("GET /jobs/{id}", h.ShowJob)
	page("POST /jobs/{id}/expire", h.ExpireJob)
	page("POST /jobs/{id}/cancel", h.CancelJob)
}

// quietRoutes log at debug: every page view fetches a handful of static
// files and opens /live, which would otherwise outnumber the lines worth
// reading.
var quietRoutes = []string{"GET /static/", "GET /favicon.ico", "GET /live"}

func redirectTo(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusSeeOther) }
}
