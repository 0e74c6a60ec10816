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
	reads := func(op string) edge.Option { return edge.Op(op, edge.Reads) }
	sf.HandleFunc("GET /healthz", healthz, public, reads("Healthz"))
	sf.HandleFunc("GET /readyz", s.readyz, public, reads("Readyz"))
	sf.Handle("GET /static/", static.Handler(), public, reads("Static"))
	sf.Handle("GET /favicon.ico", static.Favicon(), public, reads("Static"))
	sf.HandleFunc("GET /live", s.Live, public, reads("Live")) // websocket: live job and task progress; reads the session itself (see Live)
	sf.HandleFunc("GET /login", h.ShowLogin, public, reads("ShowLogin"))
	sf.HandleFunc("POST /login", h.Login, public, edge.Op("SignIn", edge.Writes))
	sf.HandleFunc("GET /login/oidc", h.StartOIDC, public, reads("StartSignIn"))                               // to the identity provider (404 without one)
	sf.HandleFunc("GET /login/oidc/callback", h.OIDCCallback, public, edge.Op("SignInCallback", edge.Writes)) // its answer
	sf.HandleFunc("POST /logout", h.Logout, edge.Op("SignOut", edge.Writes))                                  // allowed for every role

	// Every page names its operation for the audit trail (a POST, a form,
	// writes; a GET reads) and what its need says of the authorizer (guard).
	page := func(pattern, op string, n need, f http.HandlerFunc) {
		sf.Handle(pattern, describe(guard(h, n, f)), edge.Op(op, accessOf(pattern)))
	}
	page("GET /{$}", "Redirect", see, redirectTo("/buckets"))
	page("GET /buckets", "ListBuckets", see, h.ListBuckets)
	page("GET /search", "Search", see, h.Search)               // lists only what the user may see: the handler
	page("POST /buckets", "CreateBucket", see, h.CreateBucket) // manage on the new bucket: asked by the handler
	page("GET /fragments/endpoint-hint", "EndpointHint", see, h.EndpointHint)
	page("GET /buckets/{bucket}", "ShowBucket", see, h.ShowBucket)
	page("POST /buckets/{bucket}/delete", "DeleteBucket", global(identity.Manage), h.DeleteBucket)
	page("POST /buckets/{bucket}/protect", "ProtectBucket", on(identity.Manage), h.ProtectBucket)
	page("POST /buckets/{bucket}/settings", "SaveBucketSafety", on(identity.Manage), h.SaveBucketSafety)
	page("POST /buckets/{bucket}/undrop", "UndropBucket", global(identity.Manage), h.UndropBucket)
	page("POST /buckets/{bucket}/purge", "PurgeBucket", global(identity.Manage), h.PurgeBucket)
	page("POST /buckets/{bucket}/deleted/{id}/undrop", "UndropTable", see, h.UndropDeletedTable) // manage on the table: the handler
	page("POST /buckets/{bucket}/deleted/{id}/purge", "PurgeTable", see, h.PurgeDeletedTable)    // manage on the table: the handler
	page("POST /buckets/{bucket}/namespaces/{ns}/protect", "ProtectNamespace", on(identity.Manage), h.ProtectNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/protect", "ProtectTable", on(identity.Manage), h.ProtectTable)
	page("POST /buckets/{bucket}/namespaces", "CreateNamespace", see, h.CreateNamespace) // manage on the new namespace: the handler
	page("GET /buckets/{bucket}/namespaces/{ns}", "ShowNamespace", see, h.ShowNamespace)
	page("POST /buckets/{bucket}/namespaces/{ns}/delete", "DeleteNamespace", on(identity.Manage), h.DeleteNamespace)
	// Properties: a namespace's need manage, a table's write (a commit), as on the Iceberg REST.
	page("POST /buckets/{bucket}/namespaces/{ns}/properties", "UpdateNamespaceProperties", on(identity.Manage), h.UpdateNamespaceProperties)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables", "DeclareTable", see, h.DeclareTable) // manage on the new table: the handler
	page("POST /buckets/{bucket}/namespaces/{ns}/bulk", "BulkTables", see, h.BulkTables)       // maintain or manage on each ticked table: the handler
	page("GET /buckets/{bucket}/namespaces/{ns}/create-table", "NewIcebergTable", see, h.NewIcebergTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/create-table", "CreateIcebergTable", see, h.CreateIcebergTable) // the handler
	page("GET /fragments/iceberg-column", "IcebergColumnRow", see, h.IcebergColumnRow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}", "ShowTable", read, h.ShowTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/views/{view}", "ShowView", read, h.ShowView)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/data", "TableData", read, h.TableData)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance", "TableMaintenance", read, h.TableMaintenance)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks", "SubmitTask", on(identity.Maintain), h.SubmitTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks/{task}/delete", "DeleteTask", on(identity.Maintain), h.DeleteTask)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/config", "PutTableMaintenanceConfig", on(identity.Maintain), h.SaveTableMaintenanceConfig) // the S3 Tables API's right for PutTableMaintenanceConfiguration
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/iceberg", "RunIcebergJob", on(identity.Maintain), h.RunIcebergJob)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", "CompactNowControl", read, h.CompactNowControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", "CompactNow", on(identity.Maintain), h.CompactNow)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", "HealthFixControl", read, h.HealthFixControl)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", "HealthFix", on(identity.Maintain), h.HealthFix)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect", "ShowTableConnect", read, h.ShowTableConnect)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/connect/key", "CreateTableConnectKey", on(identity.Manage), h.CreateTableConnectKey)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/properties", "UpdateTableProperties", on(identity.Write), h.UpdateTableProperties)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/drop", "DropTable", on(identity.Manage), h.DropTable)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/deregister", "DeregisterTable", on(identity.Manage), h.DeregisterTable)
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/schema", "TableSchemaHistory", read, h.TableSchemaHistory)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/tags", "CreateLanceTag", on(identity.Write), h.CreateLanceTag)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/tags/{tag}/move", "MoveLanceTag", on(identity.Write), h.MoveLanceTag)
	page("POST /buckets/{bucket}/namespaces/{ns}/tables/{table}/tags/{tag}/delete", "DeleteLanceTag", on(identity.Write), h.DeleteLanceTag)
	// Access tabs: who holds what on a place; its managers grant there.
	for _, at := range []string{"/buckets/{bucket}", "/buckets/{bucket}/namespaces/{ns}", "/buckets/{bucket}/namespaces/{ns}/tables/{table}"} {
		shown := see
		if strings.HasSuffix(at, "{table}") {
			shown = read
		}
		page("GET "+at+"/access", "ShowAccess", shown, h.ShowAccess)
		page("POST "+at+"/access", "AddGrant", on(identity.Manage), h.AddGrant)
		page("POST "+at+"/access/remove", "RemoveGrant", on(identity.Manage), h.RemoveGrant)
	}
	page("GET /connect", "Connect", see, h.Connect)
	page("GET /api-keys", "ListAPIKeys", see, h.ListAPIKeys)
	page("POST /api-keys", "CreateAPIKey", see, h.CreateAPIKey)             // manage on the key's scope: the handler
	page("POST /api-keys/{id}/revoke", "RevokeAPIKey", see, h.RevokeAPIKey) // the handler
	// Users: manage on everything (what an admin's role grants).
	page("GET /users", "ListUsers", global(identity.Manage), h.ListUsers)
	page("POST /users", "CreateUser", global(identity.Manage), h.CreateUser)
	page("POST /users/{name}/role", "SetUserRole", global(identity.Manage), h.SetUserRole)
	page("POST /users/{name}/disable", "DisableUser", global(identity.Manage), h.DisableUser)
	page("POST /users/{name}/enable", "EnableUser", global(identity.Manage), h.EnableUser)
	page("POST /users/{name}/password", "ResetUserPassword", global(identity.Manage), h.ResetUserPassword)
	page("GET /workers", "ListWorkers", see, h.ListWorkers)
	page("POST /workers/tokens", "CreateWorkerToken", global(identity.Manage), h.CreateWorkerToken)
	page("POST /workers/tokens/{id}/revoke", "RevokeWorkerToken", global(identity.Manage), h.RevokeWorkerToken)
	page("GET /job-types", "Redirect", see, redirectTo("/workers#job-types"))
	page("GET /job-types/{type}", "ShowJobType", see, h.ShowJobType)
	page("POST /job-types/{type}", "SaveJobType", global(identity.Maintain), h.SaveJobType)
	page("POST /job-types/{type}/detect", "DetectJobType", global(identity.Maintain), h.DetectJobType)
	page("POST /job-types/{type}/run", "RunJobType", global(identity.Maintain), h.RunJobType)
	page("GET /activity", "Activity", see, h.Activity)                                                            // manage on everything: the handler
	page("GET /buckets/{bucket}/namespaces/{ns}/tables/{table}/activity", "TableActivity", read, h.TableActivity) // manage on the table: the handler
	page("GET /jobs", "Jobs", see, h.Jobs)
	page("GET /jobs/{id}", "ShowJob", see, h.ShowJob)
	page("POST /jobs/{id}/expire", "ExpireJob", see, h.ExpireJob) // maintain on the job's table: the handler
	page("POST /jobs/{id}/cancel", "CancelJob", see, h.CancelJob) // the handler
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
