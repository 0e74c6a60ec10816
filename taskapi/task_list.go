package taskapi

import (
	"net/http"
	"strconv"

	"github.com/floe/floe/tasks"
)

type listBody struct {
	Tasks      []taskInfo `json:"tasks"`
	NextMarker string     `json:"next_marker"`
}

// listTasks serves ListLanceTasks: one task type, newest first.
func (h *handler) listTasks(w http.ResponseWriter, r *http.Request, req *request) *apiError {
	q := req.query
	for _, p := range []string{"mode", "status"} {
		if _, ok := q[p]; ok {
			return invalid("the " + p + " query parameter is not supported by ListLanceTasks; filter by task_type and page with marker")
		}
	}
	typ, err := tasks.ParseType(q.Get("task_type"))
	if err != nil {
		return fromService(err)
	}
	limit := tasks.DefaultListSize
	if s := q.Get("max_results"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > tasks.MaxListSize {
			return invalid("max_results must be a whole number from 1 to 1000 (default 100)")
		}
		limit = n
	}
	list, next, err := h.tasks.List(r.Context(), req.table.ID, tasks.ListOptions{
		Type: typ, Marker: q.Get("marker"), Limit: limit})
	if err != nil {
		return fromService(err)
	}
	out := listBody{Tasks: make([]taskInfo, 0, len(list)), NextMarker: next}
	for _, t := range list {
		out.Tasks = append(out.Tasks, toInfo(t))
	}
	return writeJSON(w, req.table.ID, out)
}
