package handlers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/health"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// healthBadge turns a report into its badge.
func healthBadge(r health.Report) views.HealthBadgeView {
	v := views.HealthBadgeView{State: r.State.Slug(), Label: r.State.String(), Summary: r.Summary}
	for _, x := range r.Reasons {
		v.Reasons = append(v.Reasons, views.HealthReasonView{Rule: x.Rule, State: x.State.Slug(), What: x.What,
			Figure: health.Amount(x.Figure, x.Unit), Threshold: health.Amount(x.Threshold, x.Unit), Note: x.Note, Job: x.Job})
	}
	return v
}

// healthPanel is the table page's health panel (nil without the service),
// rendered at since: the Fix control it loads carries it (LiveSub.Since).
func (h *Handlers) healthPanel(t catalog.Table, since time.Time) *views.HealthPanelView {
	if h.health == nil {
		return nil
	}
	ov := h.health.Table(t.ID, t.Format, t.ModifiedAt)
	v := &views.HealthPanelView{Badge: healthBadge(ov.Report), ObservedAt: ov.ObservedAt}
	if h.plugin != nil {
		v.FixURL = views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name) + "/fix" + views.SinceQuery(since)
	}
	return v
}

// HealthFixControl renders the Fix control (loaded by htmx once the table
// page shows) with the jobs on the table it would run or is running.
func (h *Handlers) HealthFixControl(w http.ResponseWriter, r *http.Request) {
	t, err := h.store.GetTable(r.Context(), tableRef(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	since, err := sinceOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v, _ := h.fixView(r.Context(), t, since)
	h.render(w, r, http.StatusOK, views.HealthFix(v))
}

// HealthFix submits, through the job machinery, each job that clears one
// of the table's reasons (a job already active for the table is followed,
// not doubled) and shows their progress in place. The page refreshes its
// panels as each finishes, so the badge changes once the worker re-observed
// the table.
func (h *Handlers) HealthFix(w http.ResponseWriter, r *http.Request) {
	since := renderedAt() // the page's panels are older: see CompactNow
	t, err := h.store.GetTable(r.Context(), tableRef(r))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if h.health == nil || h.plugin == nil {
		h.fail(w, r, &fault.Error{Kind: fault.Conflict, Message: "This console runs no workers, so Fix has nothing to submit jobs to."})
		return
	}
	ctx := r.Context()
	var notice string
	if _, err := h.submitFix(ctx, t); err != nil {
		h.logError(r, http.StatusServiceUnavailable, err)
		notice = "A job could not be submitted. The error is in the server log."
	}
	v, tableURL := h.fixView(ctx, t, since)
	if !isHTMX(r) { // a plain form (the namespace list's row Fix): say what happened on the table page
		switch {
		case notice != "":
			h.flash(r, notice)
		case len(v.Running) > 0 && v.Waiting:
			h.flash(r, "Fix submitted "+health.Group(int64(len(v.Running)))+" job(s); they wait until a worker that runs them connects.")
		case len(v.Running) > 0:
			h.flash(r, "Fix is running "+health.Group(int64(len(v.Running)))+" job(s); their progress shows below.")
		}
		redirect(w, r, tableURL)
		return
	}
	v.Notice = notice
	status := http.StatusOK
	if notice != "" { // the job store failed (database unreachable, shutting down): try again later
		status = http.StatusServiceUnavailable
	}
	h.render(w, r, status, views.HealthFix(v))
}

// submitFix submits each job that clears one of the table's reasons (a
// job already active for the table is followed, not doubled) and returns
// how many it submitted; the error is the first submission that failed.
// Fix on the table page and the lists' bulk Fix both come here.
func (h *Handlers) submitFix(ctx context.Context, t catalog.Table) (int, error) {
	ov := h.health.Table(t.ID, t.Format, t.ModifiedAt)
	active := h.activeJobTypes(ctx, t.ID)
	var first error
	n := 0
	for _, job := range ov.Jobs() {
		if active[job.Job] {
			continue // e.g. a Compact now or a task API compaction already runs: follow it, do not race it
		}
		// The table's own maintenance settings apply, as they do to what
		// detection schedules: a Fix keeps the versions the table keeps.
		params, err := h.store.MaintenanceParams(ctx, job.Job, t, job.Params)
		if err == nil {
			_, err = h.plugin.SubmitJob(ctx, plugin.JobSpec{Type: job.Job, ObjectID: t.ID, Parameters: params,
				DedupeKey: job.Job + ":" + t.ID, Summary: "Fix: " + job.Sentence(), By: principalOf(ctx)})
		}
		switch {
		case err == nil:
			n++
		case errors.Is(err, plugin.ErrDuplicateJob):
		case first == nil:
			first = err
		}
	}
	return n, first
}

// fixConfirm is the question asked before a Fix that deletes data ("" =
// none to ask).
func fixConfirm(jobs []health.Reason) string {
	v := views.HealthFixView{}
	for _, j := range jobs {
		if j.DeletesData {
			v.Deletes = append(v.Deletes, j.Job)
		}
	}
	return v.ConfirmText()
}

// fixJobTypes are the job types Fix may submit: what health's reasons name.
var fixJobTypes = []string{health.JobLanceCompact, health.JobLanceOptimize, health.JobLanceCleanup,
	health.JobIcebergExpire, health.JobIcebergOrphans, health.JobIcebergCompact, health.JobIcebergManifests}

// fixListLimit bounds the jobs read to find the table's active ones: the
// newest few, since a table runs at most one of each type at a time.
const fixListLimit = 20

func (h *Handlers) fixView(ctx context.Context, t catalog.Table, since time.Time) (views.HealthFixView, string) {
	tableURL := views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)
	v := views.HealthFixView{URL: tableURL + "/fix", TableURL: tableURL, CanWrite: h.plugin != nil && h.Can(ctx, identity.Maintain, tablePlace(t)),
		OwnRefresh: t.Format != catalog.FormatLance} // Lance pages carry it in Compact now
	if h.health != nil {
		for _, j := range h.health.Table(t.ID, t.Format, t.ModifiedAt).Jobs() {
			v.Jobs = append(v.Jobs, j.Job)
			if j.DeletesData {
				v.Deletes = append(v.Deletes, j.Job)
			}
			if !h.canExecute(j.Job) {
				v.Waiting = true
			}
		}
	}
	var ids []string
	if h.plugin != nil {
		jobs, _, err := h.plugin.ListJobs(ctx, plugin.JobFilter{ObjectID: t.ID, Limit: fixListLimit})
		if err == nil {
			for _, j := range jobs {
				if j.State.Active() && slices.Contains(fixJobTypes, j.Type) {
					v.Running = append(v.Running, JobProgress(j))
					v.RunHrefs = append(v.RunHrefs, "/jobs/"+j.ID)
					ids = append(ids, j.ID)
				}
			}
		}
	}
	v.LiveURL = LiveURL(LiveSub{Jobs: ids, Table: t.ID, Refresh: v.OwnRefresh, Since: since})
	return v, tableURL
}

// activeJobTypes are the job types with an active job on the table, from
// whatever submitted them (detection, Compact now, the task API, Fix).
func (h *Handlers) activeJobTypes(ctx context.Context, tableID string) map[string]bool {
	out := map[string]bool{}
	jobs, _, err := h.plugin.ListJobs(ctx, plugin.JobFilter{ObjectID: tableID, Limit: fixListLimit})
	if err != nil {
		return out // the dedupe key still stops a second Fix of the same type
	}
	for _, j := range jobs {
		if j.State.Active() {
			out[j.Type] = true
		}
	}
	return out
}

// canExecute reports whether a connected worker runs jobType.
func (h *Handlers) canExecute(jobType string) bool {
	if h.plugin == nil {
		return false
	}
	for _, w := range h.plugin.Snapshot() {
		if w.Status != plugin.WorkerConnected {
			continue
		}
		for _, c := range w.Capabilities {
			if c.JobType == jobType && c.CanExecute {
				return true
			}
		}
	}
	return false
}

// WarmBucketSums computes the buckets page's sums ahead of its first view
// (floe serve calls it once the observations are loaded): on a large
// catalog the first pass reads every bucket's tables, which the first
// operator to open /buckets would otherwise wait for.
func (h *Handlers) WarmBucketSums(ctx context.Context) error {
	if h.health == nil {
		return nil
	}
	_, err := h.health.Buckets(ctx)
	return err
}
