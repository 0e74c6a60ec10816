package taskapi

import (
	"net/http"
	"net/url"

	"github.com/floe/floe/tasks"
)

// getTask serves GetLanceTaskStatus; a failed task is still a 200.
func (h *handler) getTask(w http.ResponseWriter, r *http.Request, req *request, rawTask string) *apiError {
	id, ok := taskID(rawTask)
	if !ok {
		return taskNotFound("no task " + rawTask + " for this table; task ids are 32 hex characters as returned at submission")
	}
	t, err := h.tasks.Get(r.Context(), req.table.ID, id)
	if err != nil {
		return fromService(err)
	}
	return writeJSON(w, req.table.ID, map[string]taskInfo{"task_info": toInfo(t)})
}

func taskID(raw string) (string, bool) {
	id, err := url.PathUnescape(raw)
	if err != nil || !tasks.ValidTaskID(id) {
		return "", false
	}
	return id, true
}
