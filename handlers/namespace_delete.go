package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// DeleteNamespace drops a namespace; cascade=true drops its contents and data.
func (h *Handlers) DeleteNamespace(w http.ResponseWriter, r *http.Request) {
	bucket, ns := r.PathValue("bucket"), r.PathValue("ns")
	cascade := r.PostFormValue("cascade") == "true"
	if err := h.store.DropNamespace(r.Context(), bucket, catalog.SplitNamespace(ns), cascade); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Namespace "+ns+" deleted")
	redirect(w, r, views.BucketURL(bucket))
}
