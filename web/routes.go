package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/floe/floe/static"
)

// routes lists every console route. Writes are POSTs (HTML forms); the
// read-only role is refused on all of them by requireWriter.
func (s *Server) routes() http.Handler {
	h := s.h
	r := chi.NewRouter()
	r.Use(requestID, s.instrument, compressHTML(), securityHeaders, s.forwarded, limitBody)
	r.Use(s.crossOrigin().Handler)
	r.NotFound(s.sessions.LoadAndSave(s.withUser(http.HandlerFunc(h.NotFound))).ServeHTTP)
	r.MethodNotAllowed(s.sessions.LoadAndSave(s.withUser(http.HandlerFunc(h.MethodNotAllowed))).ServeHTTP)

	r.Get("/healthz", healthz)
	r.Get("/readyz", s.readyz)
	r.Handle("/static/*", static.Handler())
	r.Get("/live", s.Live) // websocket: live job and task progress; reads the session itself (see Live)

	r.Group(func(r chi.Router) {
		r.Use(s.sessions.LoadAndSave)
		r.Get("/login", h.ShowLogin)
		r.Post("/login", h.Login)

		r.Group(func(r chi.Router) {
			r.Use(s.requireUser)
			r.Post("/logout", h.Logout) // allowed for every role

			r.Group(func(r chi.Router) {
				r.Use(requireWriter(h))
				r.Get("/", redirectTo("/buckets"))
				r.Get("/buckets", h.ListBuckets)
				r.Post("/buckets", h.CreateBucket)
				r.Get("/fragments/endpoint-hint", h.EndpointHint)
				r.Get("/buckets/{bucket}", h.ShowBucket)
				r.Post("/buckets/{bucket}/delete", h.DeleteBucket)
				r.Post("/buckets/{bucket}/namespaces", h.CreateNamespace)
				r.Get("/buckets/{bucket}/namespaces/{ns}", h.ShowNamespace)
				r.Post("/buckets/{bucket}/namespaces/{ns}/delete", h.DeleteNamespace)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables", h.DeclareTable)
				r.Get("/buckets/{bucket}/namespaces/{ns}/create-table", h.NewIcebergTable)
				r.Post("/buckets/{bucket}/namespaces/{ns}/create-table", h.CreateIcebergTable)
				r.Get("/fragments/iceberg-column", h.IcebergColumnRow)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}", h.ShowTable)
				r.Get("/buckets/{bucket}/namespaces/{ns}/views/{view}", h.ShowView)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}/data", h.TableData)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance", h.TableMaintenance)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks", h.SubmitTask)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/tasks/{task}/delete", h.DeleteTask)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/maintenance/iceberg", h.RunIcebergJob)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", h.CompactNowControl)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/compact", h.CompactNow)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", h.HealthFixControl)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/fix", h.HealthFix)
				r.Get("/buckets/{bucket}/namespaces/{ns}/tables/{table}/connect", h.ShowTableConnect)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/connect/key", h.CreateTableConnectKey)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/drop", h.DropTable)
				r.Post("/buckets/{bucket}/namespaces/{ns}/tables/{table}/deregister", h.DeregisterTable)
				r.Get("/connect", h.Connect)
				r.Get("/api-keys", h.ListAPIKeys)
				r.Post("/api-keys", h.CreateAPIKey)
				r.Post("/api-keys/{id}/revoke", h.RevokeAPIKey)
				r.Get("/workers", h.ListWorkers)
				r.Post("/workers/tokens", h.CreateWorkerToken)
				r.Post("/workers/tokens/{id}/revoke", h.RevokeWorkerToken)
				r.Get("/job-types", redirectTo("/workers#job-types"))
				r.Get("/job-types/{type}", h.ShowJobType)
				r.Post("/job-types/{type}", h.SaveJobType)
				r.Post("/job-types/{type}/detect", h.DetectJobType)
				r.Post("/job-types/{type}/run", h.RunJobType)
				r.Get("/jobs", h.Jobs)
				r.Get("/jobs/{id}", h.ShowJob)
				r.Post("/jobs/{id}/expire", h.ExpireJob)
				r.Post("/jobs/{id}/cancel", h.CancelJob)
			})
		})
	})
	return r
}

func redirectTo(to string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusSeeOther) }
}
