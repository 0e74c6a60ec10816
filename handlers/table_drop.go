package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/views"
)

// DropTable deletes the entry and the data, but only when the typed name
// matches: the server checks it, not just the browser.
func (h *Handlers) DropTable(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	if r.PostFormValue("confirm") != ref.Name {
		v, err := h.tableView(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		msg := "Type the table name " + ref.Name + " exactly to drop it; nothing was deleted."
		h.logError(r, http.StatusUnprocessableEntity, catalog.Invalid("confirm", msg))
		v.Errors = views.FieldErrors{"confirm": msg}
		h.render(w, r, http.StatusUnprocessableEntity, views.TablePage(v))
		return
	}
	if _, err := h.store.DropTable(r.Context(), ref); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Table "+ref.Name+" dropped with its data")
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}

// DeregisterTable hides a Lance table; its data stays.
func (h *Handlers) DeregisterTable(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	t, err := h.store.GetTable(r.Context(), ref)
	if err == nil && t.Format != catalog.FormatLance {
		err = &fault.Error{Kind: fault.Conflict, Field: "format", Message: "Only Lance tables can be deregistered; Iceberg tables are dropped through their engine or here."}
	}
	if err == nil {
		_, err = h.store.DeregisterTable(r.Context(), ref)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Table "+ref.Name+" deregistered; its data stays in storage")
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}
