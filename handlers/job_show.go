package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// ShowJob is one job's page: parameters, progress, log, result.
func (h *Handlers) ShowJob(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if h.plugin == nil {
		h.showError(w, r, http.StatusNotFound, "No such job", "There is no job "+id+": the plugin channel is not running in this console.")
		return
	}
	j, err := h.plugin.GetJob(r.Context(), id)
	if errors.Is(err, plugin.ErrJobNotFound) {
		h.showError(w, r, http.StatusNotFound, "No such job", "There is no job "+id+". It may have been typed wrong; the jobs list shows every recorded job.")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := views.JobView{Page: h.page(r, "Job "+j.ID, "jobs"), ID: j.ID, Type: j.Type, Lane: j.Lane, Source: j.Source,
		Summary: j.Summary, ObjectID: j.ObjectID, WorkerID: j.WorkerID, Progress: JobProgress(j),
		Detail: JobDetail(j, h.Can(r.Context(), identity.Maintain, h.jobPlace(r.Context(), j))), LiveURL: LiveURL(LiveSub{Jobs: []string{j.ID}, Detail: j.ID})}
	v.ObjectLabel, v.ObjectHref = h.tableNamer()(r.Context(), j.ObjectID)
	for _, k := range slices.Sorted(maps.Keys(j.Parameters)) {
		v.Params = append(v.Params, views.KV{Key: k, Value: j.Parameters[k]})
	}
	h.render(w, r, http.StatusOK, views.JobPage(v))
}

// JobDetail is the changing part of the job page; j should come from GetJob
// (which fills the activity log).
func JobDetail(j plugin.Job, canWrite bool) views.JobDetailView {
	d := views.JobDetailView{ID: j.ID, Active: j.State.Active(), CanWrite: canWrite, Attempts: j.Attempts,
		MaxAttempts: j.MaxAttempts, Message: j.Message, ResultSummary: j.ResultSummary, Error: j.Error,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
		NextAttemptAt: j.NextAttemptAt, DeadlineAt: j.DeadlineAt, Result: prettyResult(j.ResultJSON, j.Result)}
	if j.State == plugin.JobSucceeded {
		d.ResultLine, _ = resultSummary(tasks.JobResult(j.ResultJSON, j.Result))
	}
	for _, k := range slices.Sorted(maps.Keys(j.Metrics)) {
		d.Metrics = append(d.Metrics, views.KV{Key: k, Value: strconv.FormatFloat(j.Metrics[k], 'g', -1, 64)})
	}
	for _, a := range j.Activity {
		d.Activity = append(d.Activity, views.JobActivityLine{At: a.At, Message: a.Message})
	}
	return d
}

// prettyResult indents a JSON result, else lists the result map's entries.
func prettyResult(js string, m map[string]string) string {
	if js != "" {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(js), "", "  ") == nil {
			return buf.String()
		}
		return js
	}
	if len(m) == 0 {
		return ""
	}
	var buf bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(m)) {
		buf.WriteString(k + " = " + m[k] + "\n")
	}
	return buf.String()
}
