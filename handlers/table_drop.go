package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/safety"
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
	force, err := h.force(r, safety.TableResource(ref), ref.Name)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.store.DropTableWith(r.Context(), ref, catalog.DropOptions{Force: force, By: principalString(r)})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Held() {
		h.flash(r, "Table "+ref.Name+" dropped: it is in bucket "+ref.Bucket+"'s Recently deleted list until "+
			d.PurgeAt.UTC().Format("2006-01-02 15:04 UTC")+", when its data is deleted; Undrop there brings it back")
	} else {
		h.flash(r, "Table "+ref.Name+" dropped with its data")
	}
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}

// DeregisterTable hides a Lance table; its data stays.
func (h *Handlers) DeregisterTable(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	t, err := h.store.GetTable(r.Context(), ref)
	if err == nil && t.Format != catalog.FormatLance {
		err = &fault.Error{Kind: fault.Conflict, Field: "format", Message: "Only Lance tables can be deregistered; Iceberg tables are dropped through their engine or here."}
	}
	var force bool
	if err == nil {
		force, err = h.force(r, safety.TableResource(ref), ref.Name)
	}
	if err == nil {
		_, err = h.store.DeregisterTableWith(r.Context(), ref, force)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Table "+ref.Name+" deregistered; its data stays in storage")
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}
