package handlers

import (
	"net/http"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// compactRecent keeps a finished compact job on the table header for a
// while, so a page reloaded after completion still shows how it ended.
const compactRecent = 10 * time.Minute

// CompactNowControl renders the table header's Compact now control (loaded
// by htmx once the table page shows) with the table's latest compact job.
func (h *Handlers) CompactNowControl(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.compactNowView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	since, err := sinceOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if h.plugin != nil {
		jobs, _, err := h.plugin.ListJobs(r.Context(), plugin.JobFilter{ObjectID: t.ID, Type: string(tasks.TypeCompact), Limit: 1})
		if err == nil && len(jobs) == 1 && (jobs[0].State.Active() || time.Since(jobs[0].UpdatedAt) < compactRecent) {
			p := JobProgress(jobs[0])
			v.Job, v.JobHref = &p, "/jobs/"+jobs[0].ID
		}
	}
	v.LiveURL = compactLiveURL(t.ID, v.Job, since)
	h.render(w, r, http.StatusOK, views.CompactNow(v))
}

// compactLiveURL follows the shown job's progress and refreshes the table's
// panels when any job on the table finishes; since is when the panels it
// refreshes were rendered (see LiveSub.Since).
func compactLiveURL(tableID string, job *views.JobProgressView, since time.Time) string {
	s := LiveSub{Table: tableID, Refresh: true, Since: since}
	if job != nil {
		s.Jobs = []string{job.ID}
	}
	return LiveURL(s)
}

// CompactNow submits a compact task with the task API's defaults and shows
// its job's progress in place.
func (h *Handlers) CompactNow(w http.ResponseWriter, r *http.Request) {
	// The page's panels are older than this request; a job ending from here
	// on, before the control's new socket subscribes, still refreshes them.
	since := renderedAt()
	v, t, err := h.compactNowView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.taskWritable(t); err != nil {
		h.fail(w, r, err)
		return
	}
	task, err := h.tasks.Submit(identity.NewContext(r.Context(), principalOf(r.Context())), t, tasks.TypeCompact, nil)
	if err != nil {
		v.Notice = sentenceOf(err)
		v.LiveURL = compactLiveURL(t.ID, nil, since)
		h.logError(r, http.StatusConflict, err)
		h.render(w, r, http.StatusConflict, views.CompactNow(v))
		return
	}
	// Submit hands the task to the scheduler before returning; read it
	// back for the job id it was given.
	if got, err := h.tasks.Get(r.Context(), t.ID, task.ID); err == nil && got.JobID != "" && h.plugin != nil {
		if j, err := h.plugin.GetJob(r.Context(), got.JobID); err == nil {
			p := JobProgress(j)
			v.Job, v.JobHref = &p, "/jobs/"+j.ID
		}
	}
	if v.Job == nil { // no job yet: the task waits as submitted
		v.Job = &views.JobProgressView{ID: "task-" + task.ID, State: "pending", Stage: "submitted; waiting for a Lance worker"}
		v.JobHref = v.TableURL + "/maintenance"
	}
	if !isHTMX(r) {
		redirect(w, r, v.TableURL)
		return
	}
	v.LiveURL = compactLiveURL(t.ID, v.Job, since)
	h.render(w, r, http.StatusOK, views.CompactNow(v))
}

func (h *Handlers) compactNowView(r *http.Request) (views.CompactNowView, catalog.Table, error) {
	t, err := h.store.GetTable(r.Context(), tableRef(r))
	if err != nil {
		return views.CompactNowView{}, catalog.Table{}, err
	}
	url := views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)
	return views.CompactNowView{TableURL: url, URL: url + "/compact",
		CanWrite: h.tasks != nil && h.Can(r.Context(), identity.Maintain, tablePlace(t)) && t.Format == catalog.FormatLance, Waiting: !h.lanceWorkerConnected()}, t, nil
}

// sentenceOf is an error's message for the page.
func sentenceOf(err error) string {
	if te, ok := err.(*fault.Error); ok {
		return te.Message
	}
	return "The task could not be submitted. The error is in the server log."
}
