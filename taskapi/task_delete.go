package taskapi

import (
	"net/http"
)

// deleteTask serves DeleteLanceTask: 204 for a finished task; it never
// undoes what the task did.
func (h *handler) deleteTask(w http.ResponseWriter, r *http.Request, req *request) *apiError {
	id, e := taskID(r)
	if e != nil {
		return e
	}
	if err := h.tasks.Delete(r.Context(), req.table.ID, id); err != nil {
		return fromService(err)
	}
	w.Header().Set("x-oss-table-id", req.table.ID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
