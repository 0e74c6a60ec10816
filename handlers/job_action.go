package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
)

// ExpireJob marks an active job expired (admin only: the route sits behind
// requireWriter) and returns to the job page.
func (h *Handlers) ExpireJob(w http.ResponseWriter, r *http.Request) {
	h.endJob(w, r, (*plugin.Plugin).ExpireJob)
}

// CancelJob marks an active job canceled and tells its worker to stop.
func (h *Handlers) CancelJob(w http.ResponseWriter, r *http.Request) {
	h.endJob(w, r, (*plugin.Plugin).CancelJob)
}

func (h *Handlers) endJob(w http.ResponseWriter, r *http.Request, end func(*plugin.Plugin, context.Context, string) (plugin.Job, error)) {
	id := r.PathValue("id")
	if h.plugin == nil {
		h.showError(w, r, http.StatusNotFound, "No such job", "There is no job "+id+": the plugin channel is not running in this console.")
		return
	}
	// Ending a job is its table's maintainers' (everything's, for a job on
	// no table); an unknown job is answered as such below.
	if j, err := h.plugin.GetJob(r.Context(), id); err == nil {
		if err := h.Require(r.Context(), identity.Maintain, h.jobPlace(r.Context(), j)); err != nil {
			h.Forbidden(w, r, err)
			return
		}
	}
	_, err := end(h.plugin, r.Context(), id)
	if errors.Is(err, plugin.ErrJobNotFound) {
		h.showError(w, r, http.StatusNotFound, "No such job", "There is no job "+id+"; the jobs list shows every recorded job.")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	redirect(w, r, "/jobs/"+id) // a job that had already finished is left as it was
}
