package handlers

import (
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/safety"
)

// DeleteBucket deletes an empty bucket, or with cascade=true everything in
// it: its tables stay recently deleted for the bucket's hold (and the
// bucket with them), then their data goes. A non-empty bucket without
// cascade is a 409 on the page; so is protection, unless a manager forces.
func (h *Handlers) DeleteBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	cascade := r.PostFormValue("cascade") == "true"
	force, err := h.force(r, safety.NamespaceResource(name, nil), name)
	if err == nil {
		err = h.store.DeleteBucketWith(r.Context(), name, catalog.CascadeOptions{Cascade: cascade, Force: force, By: principalString(r)})
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	msg := "Bucket " + name + " deleted"
	if n, err := h.store.CountDeletedTables(r.Context(), name); err == nil && n > 0 {
		msg += "; its " + strconv.Itoa(n) + " dropped tables are held under Recently deleted buckets, where Undrop brings it back"
	}
	h.flash(r, msg)
	redirect(w, r, "/buckets")
}
