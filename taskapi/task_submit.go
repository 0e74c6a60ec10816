package taskapi

import (
	"net/http"

	"github.com/floe/floe/tasks"
)

// submitTask serves the five POST operations.
func (h *handler) submitTask(w http.ResponseWriter, r *http.Request, req *request, typ tasks.Type) *apiError {
	t, err := h.tasks.Submit(r.Context(), req.table, typ, req.body)
	if err != nil {
		return fromService(err)
	}
	return writeJSON(w, req.table.ID, map[string]string{"task_id": t.ID})
}
