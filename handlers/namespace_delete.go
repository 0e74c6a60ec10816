package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/views"
)

// DeleteNamespace drops a namespace; cascade=true drops its contents (the
// tables recently deleted for the bucket's hold, then their data goes).
// Protection refuses unless a manager forces.
func (h *Handlers) DeleteNamespace(w http.ResponseWriter, r *http.Request) {
	bucket, ns := r.PathValue("bucket"), r.PathValue("ns")
	levels := catalog.SplitNamespace(ns)
	cascade := r.PostFormValue("cascade") == "true"
	force, err := h.force(r, safety.NamespaceResource(bucket, levels), ns)
	if err == nil {
		err = h.store.DropNamespaceWith(r.Context(), bucket, levels, catalog.CascadeOptions{Cascade: cascade, Force: force, By: principalString(r)})
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Namespace "+ns+" deleted")
	redirect(w, r, views.BucketURL(bucket))
}
