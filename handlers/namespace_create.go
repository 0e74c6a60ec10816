package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// CreateNamespace creates one namespace in a bucket; a.b needs a to exist.
func (h *Handlers) CreateNamespace(w http.ResponseWriter, r *http.Request) {
	bucket := r.PathValue("bucket")
	raw := strings.TrimSpace(r.PostFormValue("namespace"))
	levels := catalog.SplitNamespace(raw)
	edge.Describe(r.Context(), identity.Resource{Bucket: bucket, Namespace: levels}) // the audit trail names what was asked for
	err := validateLevels(levels)
	if perr := h.mayCreate(r.Context(), identity.Resource{Bucket: bucket, Namespace: levels}, err == nil && len(levels) > 0); perr != nil {
		h.Forbidden(w, r, perr)
		return
	}
	if err == nil {
		_, err = h.store.CreateNamespace(r.Context(), bucket, levels, nil)
	}
	if err != nil {
		field, msg, status, ok := fieldError(err, "namespace")
		if !ok {
			h.fail(w, r, err)
			return
		}
		_ = field // every refusal here belongs to the one namespace input
		v, verr := h.bucketView(r, bucket)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.NewNS, v.Errors = raw, views.FieldErrors{"namespace": msg}
		h.render(w, r, status, views.BucketPage(v))
		return
	}
	h.flash(r, "Namespace "+raw+" created")
	redirect(w, r, views.NamespaceURL(bucket, raw))
}

func validateLevels(levels []string) error {
	if len(levels) == 0 {
		return catalog.Invalid("namespace", "Type a namespace name, e.g. sales or sales.eu.")
	}
	for _, l := range levels {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return err
		}
	}
	return nil
}
