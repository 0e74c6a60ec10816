package handlers

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/form"
	"github.com/floe/floe/views"
)

// SaveTableMaintenanceConfig stores the table's own setting of one kind of
// maintenance (action save) or removes it so the table inherits again
// (action inherit), through the catalog functions the S3 Tables API's
// PutTableMaintenanceConfiguration uses. A bad value re-renders the tab
// with 422 and the sentence next to its field.
func (h *Handlers) SaveTableMaintenanceConfig(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.maintenanceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := r.ParseForm(); err != nil {
		if tl := bodyTooLarge(err); tl != nil {
			h.fail(w, r, tl)
			return
		}
		h.showError(w, r, http.StatusBadRequest, "Unreadable form", "The form could not be read; reload the page and submit it again.")
		return
	}
	kind := catalog.MaintenanceKind(r.PostForm.Get("kind"))
	job, ok := tableMaintenanceJob(t.Format, kind)
	if !ok {
		h.showError(w, r, http.StatusUnprocessableEntity, "Unknown maintenance kind",
			"This table has no maintenance setting "+string(kind)+" of its own; use one of the forms on its Maintenance tab.")
		return
	}
	title := maintKindTitles[job.JobType]
	back := views.TableURL(v.Bucket, v.Namespace, v.Table) + "/maintenance#maint-kind-" + string(kind)
	if r.PostForm.Get("action") == "inherit" {
		if err := h.store.DeleteTableMaintenance(r.Context(), t.ID, kind); err != nil {
			h.fail(w, r, err)
			return
		}
		h.flash(r, title+" of "+t.Name+" now inherits its setting from bucket "+t.Bucket+".")
		redirect(w, r, back)
		return
	}
	fields := maintFields(job)
	text := formText(fields, r.PostForm, "")
	vals, errs := form.ValidateText(fields, text)
	var put error
	if len(errs) > 0 {
		put = errs.Err()
	} else {
		put = h.putTableMaintenance(r, t, job, vals)
	}
	if errors.Is(put, fault.Invalid) {
		h.logError(r, http.StatusUnprocessableEntity, put)
		refill := &maintRefill{kind: string(kind), text: text}
		refill.errs, refill.notice = refusalSentences(fieldNames(fields), put)
		if v.Config, err = h.maintConfig(r.Context(), t, views.TableURL(v.Bucket, v.Namespace, v.Table)+"/maintenance", v.CanWrite, refill); err != nil {
			h.fail(w, r, err)
			return
		}
		h.renderMaintenance(w, r, http.StatusUnprocessableEntity, v, t)
		return
	}
	if put != nil {
		h.fail(w, r, put)
		return
	}
	h.flash(r, title+" of "+t.Name+" saved as this table's own setting ("+vals["status"].(string)+").")
	redirect(w, r, back)
}

// putTableMaintenance stores validated form values as the table's own
// setting, keeping what the form does not show (settings only the S3 Tables
// API writes, such as a compaction strategy).
func (h *Handlers) putTableMaintenance(r *http.Request, t catalog.Table, job catalog.MaintenanceJob, vals form.Values) error {
	enabled := vals["status"] == "enabled"
	if err := h.store.CheckDestructiveOptIn(r.Context(), t.Bucket, job.Kind, enabled); err != nil {
		return err
	}
	res, err := h.store.ResolveMaintenance(r.Context(), t, job.Kind)
	if err != nil {
		return err
	}
	set := res.Own
	for _, m := range job.Settings {
		n, _ := vals[m.Name].(int64) // absent: inherit this setting
		set.SetInt(m.Name, int(n))
	}
	return h.store.PutTableMaintenance(r.Context(), t.ID, job.Kind, enabled, set)
}

// tableMaintenanceJob is the job type a table-level kind governs for a
// format.
func tableMaintenanceJob(f catalog.Format, kind catalog.MaintenanceKind) (catalog.MaintenanceJob, bool) {
	if !kindOnTables(kind) {
		return catalog.MaintenanceJob{}, false
	}
	for _, j := range catalog.MaintenanceJobsOf(f) {
		if j.Kind == kind {
			return j, true
		}
	}
	return catalog.MaintenanceJob{}, false
}

func fieldNames(fields []form.Field) map[string]bool {
	shown := make(map[string]bool, len(fields))
	for _, f := range fields {
		shown[f.Name] = true
	}
	return shown
}
