package taskapi

import (
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/tasks"
)

// submitAnswer is a submission's answer: the contract's task_id, and floe's
// note when it could not check something it would have refused (an index
// task on a table no worker has described), so the client hears it now
// rather than from the failed task later.
type submitAnswer struct {
	TaskID string `json:"task_id"`
	Note   string `json:"note,omitempty"`
}

// submitTask serves the five POST operations.
func (h *handler) submitTask(w http.ResponseWriter, r *http.Request, req *request, typ tasks.Type) *apiError {
	p, _ := edge.PrincipalFrom(r.Context())
	t, err := h.tasks.Submit(identity.NewContext(r.Context(), p), req.table, typ, req.body)
	if err != nil {
		return fromService(err)
	}
	return writeJSON(w, req.table.ID, submitAnswer{TaskID: t.ID, Note: t.Note})
}
