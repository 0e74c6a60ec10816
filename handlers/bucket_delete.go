package handlers

import (
	"net/http"
)

// DeleteBucket deletes an empty bucket, or with cascade=true everything in it
// including data. A non-empty bucket without cascade is a 409 on the page.
func (h *Handlers) DeleteBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	cascade := r.PostFormValue("cascade") == "true"
	if err := h.store.DeleteBucket(r.Context(), name, cascade); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Bucket "+name+" deleted")
	redirect(w, r, "/buckets")
}
