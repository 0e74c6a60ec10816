package handlers

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// tasksPageSize is one page of a table's task history.
const tasksPageSize = 25

// TableMaintenance is a Lance table's Maintenance tab: a form per task type
// and the table's task history for one type.
func (h *Handlers) TableMaintenance(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.maintenanceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderMaintenance(w, r, http.StatusOK, v, t)
}

// renderMaintenance fills the tab's forms and history for the table's
// format and renders it with status.
func (h *Handlers) renderMaintenance(w http.ResponseWriter, r *http.Request, status int, v views.MaintenanceView, t catalog.Table) {
	if v.IsLance {
		if h.tasks != nil {
			v.Forms = maintForms(h.tasks.Forms(t), "", nil)
		}
		if err := h.fillTaskHistory(r, &v, t); err != nil {
			h.fail(w, r, err)
			return
		}
	} else if t.Format == catalog.FormatIceberg {
		if err := h.icebergMaintenance(r, &v, t); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, status, views.MaintenancePage(v))
}

// maintenanceView fills what the tab needs besides forms and history.
func (h *Handlers) maintenanceView(r *http.Request) (views.MaintenanceView, catalog.Table, error) {
	ref := tableRef(r)
	b, err := h.store.GetBucket(r.Context(), ref.Bucket)
	if err != nil {
		return views.MaintenanceView{}, catalog.Table{}, err
	}
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		return views.MaintenanceView{}, catalog.Table{}, err
	}
	ns := catalog.JoinNamespace(t.Namespace)
	base := views.TableURL(b.Name, ns, t.Name) + "/maintenance"
	page := h.page(r, "Maintenance · "+t.Name, "buckets")
	page.CanWrite = h.Can(r.Context(), identity.Maintain, tablePlace(t)) // the tab's controls are maintenance
	v := views.MaintenanceView{Page: page, Bucket: b.Name,
		BucketFormat: string(b.Format), Namespace: ns, Table: t.Name, TableID: t.ID,
		IsLance: t.Format == catalog.FormatLance, WorkerConnected: h.lanceWorkerConnected(),
		SubmitURL: base + "/tasks", SelectedType: string(tasks.TypeCompact)}
	for _, typ := range tasks.Types {
		v.Types = append(v.Types, string(typ))
	}
	if v.Config, err = h.maintConfig(r.Context(), t, base, page.CanWrite, nil); err != nil {
		return v, t, err
	}
	if h.tasks == nil {
		v.Notice = "The Lance task service is not running in this console, so tasks can be neither submitted nor listed."
	}
	return v, t, nil
}

// fillTaskHistory lists one page of the selected type's tasks.
func (h *Handlers) fillTaskHistory(r *http.Request, v *views.MaintenanceView, t catalog.Table) error {
	q := r.URL.Query()
	if typ := q.Get("type"); typ != "" {
		if _, err := tasks.ParseType(typ); err != nil {
			return &fault.Error{Kind: fault.NotFound, Message: "There is no task type " + typ + "; pick one of the tabs."}
		}
		v.SelectedType = typ
	}
	live := LiveSub{Table: t.ID, Rows: v.SelectedType}
	defer func() { v.LiveURL = LiveURL(live) }()
	if h.plugin != nil {
		jobs, _, err := h.plugin.ListJobs(r.Context(), plugin.JobFilter{ObjectID: t.ID, Limit: icebergJobsShown})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if j.Parameters["task_id"] != "" {
				continue // listed with its task
			}
			row := jobHistoryRow(j)
			if row.Progress != nil {
				live.Jobs = append(live.Jobs, j.ID)
			}
			v.Jobs = append(v.Jobs, row)
		}
	}
	if h.tasks == nil {
		return nil
	}
	marker := q.Get("marker")
	list, next, err := h.tasks.List(r.Context(), t.ID, tasks.ListOptions{Type: tasks.Type(v.SelectedType), Marker: marker, Limit: tasksPageSize})
	if err != nil {
		if marker == "" {
			return err
		}
		return &fault.Error{Kind: fault.NotFound, Message: "This page of tasks does not exist; start again from the newest tasks."}
	}
	base := views.TableURL(v.Bucket, v.Namespace, v.Table) + "/maintenance"
	deleteBase := ""
	if v.CanWrite {
		deleteBase = base
	}
	jobs := h.activeJobsOn(t.ID)
	for _, task := range list {
		var job *plugin.Job
		if j, ok := jobs[task.JobID]; ok && task.JobID != "" {
			job = &j
		}
		v.Tasks = append(v.Tasks, taskRow(task, job, deleteBase))
		live.Tasks = append(live.Tasks, task.ID)
	}
	if next != "" {
		v.NextHref = base + "?" + url.Values{"type": {v.SelectedType}, "marker": {next}}.Encode()
	}
	if marker != "" {
		v.FirstHref = base + "?" + url.Values{"type": {v.SelectedType}}.Encode()
	}
	return nil
}

// activeJobsOn maps the active jobs on a table by id (cheap: from memory).
func (h *Handlers) activeJobsOn(tableID string) map[string]plugin.Job {
	out := map[string]plugin.Job{}
	if h.plugin == nil {
		return out
	}
	for _, j := range h.plugin.ActiveJobs() {
		if j.ObjectID == tableID {
			out[j.ID] = j
		}
	}
	return out
}

// lanceWorkerConnected reports whether any connected worker runs the lance lane.
func (h *Handlers) lanceWorkerConnected() bool {
	if h.plugin == nil {
		return false
	}
	for _, w := range h.plugin.Snapshot() {
		if w.Status != plugin.WorkerConnected {
			continue
		}
		for _, c := range w.Capabilities {
			if c.Lane == "lance" && c.CanExecute {
				return true
			}
		}
	}
	return false
}

// taskRow is a task's history row. job is its running job (nil when none is
// known): its progress shows, and its state runs ahead of the task's status,
// which follows job events a moment later. deleteBase is the maintenance URL
// for a user who may delete ("" hides Delete).
func taskRow(t tasks.Task, job *plugin.Job, deleteBase string) views.TaskRowView {
	row := views.TaskRowView{ID: t.ID, Type: string(t.Type), Status: string(t.Status), Params: compactJSON(t.Params),
		CreatedAt: t.CreatedAt, StartedAt: t.StartedAt, CompletedAt: t.CompletedAt}
	if job != nil && !t.Status.Terminal() {
		switch {
		case job.State == plugin.JobSucceeded:
			row.Status = string(tasks.StatusCompleted)
		case job.State == plugin.JobFailed || job.State == plugin.JobCanceled || job.State == plugin.JobExpired:
			row.Status, row.Error = string(tasks.StatusFailed), job.Error
		case job.State == plugin.JobRunning && t.Status == tasks.StatusSubmitted:
			row.Status = string(tasks.StatusRunning)
		}
		if row.CompletedAt.IsZero() && !job.FinishedAt.IsZero() {
			row.CompletedAt = job.FinishedAt
		}
		if row.StartedAt.IsZero() && !job.StartedAt.IsZero() {
			row.StartedAt = job.StartedAt
		}
		if job.State.Active() { // a finished job's bar would repeat the status
			p := JobProgress(*job)
			p.NoBadge = true // one badge per task: the row's status
			row.Progress = &p
		}
	}
	result := t.Result
	if len(result) == 0 && job != nil && job.State == plugin.JobSucceeded {
		result = tasks.JobResult(job.ResultJSON, job.Result)
	}
	if len(result) > 0 {
		row.Result = compactJSON(result)
		row.ResultLine, _ = resultSummary(result)
		if row.ResultLine == "" && job != nil {
			row.ResultLine = job.ResultSummary
		}
	}
	if t.Error != nil {
		row.Error = t.Error.Message
	}
	if deleteBase != "" && (t.Status.Terminal() || row.Status == string(tasks.StatusCompleted) || row.Status == string(tasks.StatusFailed)) {
		row.DeleteURL = deleteBase + "/tasks/" + t.ID + "/delete"
	}
	return row
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
