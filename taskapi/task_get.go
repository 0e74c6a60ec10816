package taskapi

import (
	"net/http"
	"strconv"

	"github.com/floe/floe/tasks"
)

// getTask serves GetLanceTaskStatus; a failed task is still a 200.
func (h *handler) getTask(w http.ResponseWriter, r *http.Request, req *request) *apiError {
	id, e := taskID(r)
	if e != nil {
		return e
	}
	t, err := h.tasks.Get(r.Context(), req.table.ID, id)
	if err != nil {
		return fromService(err)
	}
	return writeJSON(w, req.table.ID, map[string]taskInfo{"task_info": toInfo(t)})
}

// taskID is the {task_id} segment (ServeMux hands it over unescaped).
func taskID(r *http.Request) (string, *apiError) {
	id := r.PathValue("task_id")
	if !tasks.ValidTaskID(id) {
		return "", taskNotFound("no task " + quoteID(id) + " for this table; task ids are 32 hex characters as returned at submission")
	}
	return id, nil
}

// quoteID shows a client's id in a sentence, cut short and quoted.
func quoteID(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
