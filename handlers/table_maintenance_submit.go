package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// SubmitTask validates a maintenance form with the task API's own rules and
// submits the task; a bad value re-renders the tab with 422 next to its field.
func (h *Handlers) SubmitTask(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.maintenanceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.taskWritable(t); err != nil {
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
	typ := tasks.Type(r.PostForm.Get("task_type"))
	forms := h.tasks.Forms(t)
	at := -1
	for i, f := range forms {
		if f.Type == typ {
			at = i
		}
	}
	if at < 0 {
		h.showError(w, r, http.StatusUnprocessableEntity, "Unknown task type", "There is no task type "+string(typ)+"; use one of the forms on the Maintenance tab.")
		return
	}
	text := formText(forms[at].Fields, r.PostForm, "")
	task, err := h.tasks.SubmitForm(identity.NewContext(r.Context(), principalOf(r.Context())), t, typ, text)
	if errors.Is(err, fault.Invalid) || errors.Is(err, fault.Quota) {
		status := http.StatusUnprocessableEntity
		if errors.Is(err, fault.Quota) {
			status = http.StatusConflict
		}
		h.logError(r, status, err)
		v.Forms = maintForms(forms, typ, text)
		mf := &v.Forms[at]
		if status == http.StatusUnprocessableEntity {
			refusalAtFields(mf, err)
		} else {
			mf.Notice = fault.Message(err, "")
		}
		v.SelectedType = string(typ)
		r.URL.RawQuery = url.Values{"type": {string(typ)}}.Encode()
		if err := h.fillTaskHistory(r, &v, t); err != nil {
			h.fail(w, r, err)
			return
		}
		h.render(w, r, status, views.MaintenancePage(v))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	msg := "Task " + task.ID + " submitted"
	if task.Note != "" {
		msg += ". " + task.Note
	}
	h.flash(r, msg)
	redirect(w, r, views.TableURL(v.Bucket, v.Namespace, v.Table)+"/maintenance?"+url.Values{"type": {string(typ)}}.Encode()+"#task-"+task.ID)
}

// DeleteTask removes a finished task's record; submitted and running tasks
// are refused with 409 by the task service.
func (h *Handlers) DeleteTask(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.maintenanceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := h.taskWritable(t); err != nil {
		h.fail(w, r, err)
		return
	}
	id := r.PathValue("task")
	task, err := h.tasks.Get(r.Context(), t.ID, id)
	if err == nil {
		err = h.tasks.Delete(r.Context(), t.ID, id)
	}
	var te *fault.Error
	switch {
	case errors.As(err, &te) && errors.Is(err, fault.NotFound):
		h.showError(w, r, http.StatusNotFound, "No such task", te.Message)
		return
	case errors.As(err, &te) && errors.Is(err, fault.Conflict):
		h.logError(r, http.StatusConflict, err)
		h.showError(w, r, http.StatusConflict, "Task still active", te.Message)
		return
	case err != nil:
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Task "+id+" deleted")
	redirect(w, r, views.TableURL(v.Bucket, v.Namespace, v.Table)+"/maintenance?"+url.Values{"type": {string(task.Type)}}.Encode())
}

// taskWritable refuses task writes on a table that takes none.
func (h *Handlers) taskWritable(t catalog.Table) error {
	if h.tasks == nil {
		return &fault.Error{Kind: fault.Unavailable, Field: "tasks", Message: "The Lance task service is not running in this console."}
	}
	if t.Format != catalog.FormatLance {
		return &fault.Error{Kind: fault.Invalid, Message: "Maintenance tasks are for Lance tables; " + t.Name + " is an Iceberg table."}
	}
	return nil
}
