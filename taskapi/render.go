package taskapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/floe/floe/tasks"
)

// taskInfo is a task as the API shows it.
type taskInfo struct {
	TaskID      string           `json:"task_id"`
	TaskType    string           `json:"task_type"`
	Params      map[string]any   `json:"params"`
	Status      string           `json:"status"`
	CreatedAt   string           `json:"created_at"`
	StartedAt   string           `json:"started_at"`
	CompletedAt string           `json:"completed_at"`
	Result      map[string]any   `json:"result"`
	Error       *tasks.TaskError `json:"error"`
}

// timeLayout is RFC 3339 with microseconds and an explicit +00:00.
const timeLayout = "2006-01-02T15:04:05.000000+00:00"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func toInfo(t tasks.Task) taskInfo {
	in := taskInfo{
		TaskID: t.ID, TaskType: string(t.Type), Params: t.Params, Status: string(t.Status),
		CreatedAt: formatTime(t.CreatedAt), StartedAt: formatTime(t.StartedAt),
		CompletedAt: formatTime(t.CompletedAt), Result: t.Result, Error: t.Error,
	}
	if in.Params == nil {
		in.Params = map[string]any{}
	}
	if in.Result == nil {
		in.Result = map[string]any{}
	}
	return in
}

// writeJSON renders v into a buffer first, so a failure never leaves half an
// answer, and sends it with the table id header every success carries.
func writeJSON(w http.ResponseWriter, tableID string, v any) *apiError {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // params and results come back exactly as stored
	if err := enc.Encode(v); err != nil {
		return internal(err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("x-oss-table-id", tableID)
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	return nil
}
