package web

import (
	"context"
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/handlers"
	"github.com/floe/floe/warehouse"
)

// StorageHealth is what the console needs of warehouse.Health: a fresh
// answer for /readyz, the last one for page banners.
type StorageHealth interface {
	Check(ctx context.Context) warehouse.HealthStatus
	Status() warehouse.HealthStatus
}

// storageStatus hands the handlers the banner side, or nil.
func storageStatus(h StorageHealth) handlers.StorageStatus {
	if h == nil {
		return nil
	}
	return h
}

// storageReady asks the store now; when it does not answer, /readyz says
// why with a 503 (and the banner follows, since Check records it).
func (s *Server) storageReady(w http.ResponseWriter, r *http.Request) bool {
	if s.storage == nil {
		return true
	}
	st := s.storage.Check(r.Context())
	if st.OK {
		return true
	}
	s.log.Warn("readiness check failed: warehouse store", "reason", st.Reason, "request_id", edge.RequestID(r.Context()))
	http.Error(w, "warehouse storage unreachable: "+st.Reason, http.StatusServiceUnavailable)
	return false
}
