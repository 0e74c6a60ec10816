package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// DeclareTable reserves a Lance table's name and location.
func (h *Handlers) DeclareTable(w http.ResponseWriter, r *http.Request) {
	ref := catalog.TableRef{Bucket: r.PathValue("bucket"), Namespace: catalog.SplitNamespace(r.PathValue("ns")),
		Name: strings.TrimSpace(r.PostFormValue("name"))}
	edge.Describe(r.Context(), identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}) // what was asked for
	err := catalog.ValidateTableName(ref.Name)
	if perr := h.mayCreate(r.Context(), identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}, err == nil); perr != nil {
		h.Forbidden(w, r, perr)
		return
	}
	if err == nil {
		var created bool
		_, created, err = h.store.CreateTable(r.Context(), catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
		if err == nil && !created {
			// The catalog treats a repeat declare as success (SDK retries);
			// a person typing a taken name wants to hear it is taken.
			err = &fault.Error{Kind: fault.AlreadyExists, Field: "name", Message: "A table named " + ref.Name + " already exists in this namespace."}
		}
	}
	if err != nil {
		_, msg, status, ok := fieldError(err, "name")
		if !ok {
			h.fail(w, r, err)
			return
		}
		v, verr := h.namespaceView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.NewTable, v.Errors = ref.Name, views.FieldErrors{"name": msg}
		h.render(w, r, status, views.NamespacePage(v))
		return
	}
	h.flash(r, "Table "+ref.Name+" declared")
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}
