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
// step) and what its need says of the authorizer (guard); writes are POSTs
// (HTML forms).
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

	page := func(pattern string, n need, f http.HandlerFunc) { sf.Handle(pattern, guard(h, n, f)) }
	page("GET /{$}", see, redirectTo("/buckets"))
	page("GET /buckets", see, h.ListBuckets)
	page("POST /buckets", see, h.CreateBucket) // manage on the new bucket: asked by the handler
	page("GET /fragments/endpoint-hint", see, h.EndpointHint)
	page("GET /buckets/{bucket}", see, h.ShowBucket)
	page("POST /buckets/{bucket}/delete", global(identity.Manage), h.DeleteBucket)
	page("POST /buckets/{bucket}/namespaces", see, h.CreateNamespace) // manage on the new namespace: the handler
	page("GET /buckets/{bucket}/namespaces/{ns}", see, h.ShowNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/delete", on(identity.Manage), h.DeleteNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables", see, h.DeclareTable) // manage on the new table: the handler
	page("GET /buckets/{bucket}/namespaces/{ns}/create-table", see, h.NewIcebergTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/create-table", see, h.CreateIcebergTable) // the handler
	page("GET /fragments/iceberg-column", see, h.IcebergColumnRow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}", read, h.ShowTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/views/{view}", read, h.ShowView)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/data", read, h.TableData)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance", read, h.TableMaintenance)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks", on(identity.Maintain), h.SubmitTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks/{task}/delete", on(identity.Maintain), h.DeleteTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/iceberg", on(identity.Maintain), h.RunIcebergJob)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", read, h.CompactNowControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", on(identity.Maintain), h.CompactNow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", read, h.HealthFixControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", on(identity.Maintain), h.HealthFix)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect", read, h.ShowTableConnect)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect/key", on(identity.Manage), h.CreateTableConnectKey)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/drop", on(identity.Manage), h.DropTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/deregister", on(identity.Manage), h.DeregisterTable)
	// Access tabs: who holds what on a place; its managers grant there.
	for _, at := range []string{"/buckets/{bucket}", "/buckets/{bucket}/namespaces/{ns}", "/buckets/{bucket}/namespaces/{ns}/tables/{table}"} {
		shown := see
		if strings.HasSuffix(at, "{table}") {
			shown = read
		}
		page("GET "+at+"/access", shown, h.ShowAccess)
		page("POST "+at+"/access", on(identity.Manage), h.AddGrant)
		page("POST "+at+"/access/remove", on(identity.Manage), h.RemoveGrant)
	}
	page("GET /connect", see, h.Connect)
	page("GET /api-keys", see, h.ListAPIKeys)
	page("POST /api-keys", see, h.CreateAPIKey)             // manage on the key's scope: the handler
	page("POST /api-keys/{id}/revoke", see, h.RevokeAPIKey) // the handler
	page("GET /workers", see, h.ListWorkers)
	page("POST /workers/tokens", global(identity.Manage), h.CreateWorkerToken)
	page("POST /workers/tokens/{id}/revoke", global(identity.Manage), h.RevokeWorkerToken)
	page("GET /job-types", see, redirectTo("/workers#job-types"))
	page("GET /job-types/{type}", see, h.ShowJobType)
	page("POST /job-types/{type}", global(identity.Maintain), h.SaveJobType)
	page("POST /job-types/{type}/detect", global(identity.Maintain), h.DetectJobType)
	page("POST /job-types/{type}/run", global(identity.Maintain), h.RunJobType)
	page("GET /jobs", see, h.Jobs)
	page("GET /jobs/{id}", see, h.ShowJob)
	page("POST /jobs/{id}/expire", see, h.ExpireJob) // maintain on the job's table: the handler
	page("POST /jobs/{id}/cancel", see, h.CancelJob) // the handler
}

// quietRoutes log at debug: every page view fetches a handful of static
// files and opens /live, which would otherwise outnumber the lines worth
// reading.
var quietRoutes = []string{"GET /static/", "GET /favicon.ico", "GET /live"}

func redirectTo(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusSeeOther) }
}
