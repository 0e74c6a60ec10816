package handlers

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

func tableRef(r *http.Request) catalog.TableRef {
	return catalog.TableRef{
		Bucket:    chi.URLParam(r, "bucket"),
		Namespace: catalog.SplitNamespace(chi.URLParam(r, "ns")),
		Name:      chi.URLParam(r, "table"),
	}
}

// DeclareTable reserves a Lance table's name and location.
func (h *Handlers) DeclareTable(w http.ResponseWriter, r *http.Request) {
	ref := catalog.TableRef{Bucket: chi.URLParam(r, "bucket"), Namespace: catalog.SplitNamespace(chi.URLParam(r, "ns")),
		Name: strings.TrimSpace(r.PostFormValue("name"))}
	err := catalog.ValidateTableName(ref.Name)
	if err == nil {
		var created bool
		_, created, err = h.store.CreateTable(r.Context(), catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance})
		if err == nil && !created {
			// The catalog treats a repeat declare as success (SDK retries);
			// a person typing a taken name wants to hear it is taken.
			err = &catalog.Error{Kind: catalog.ErrAlreadyExists, Field: "name", Message: "A table named " + ref.Name + " already exists in this namespace."}
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
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}

// ShowTable renders the table page in the table's own format.
func (h *Handlers) ShowTable(w http.ResponseWriter, r *http.Request) {
	v, err := h.tableView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.TablePage(v))
}

func (h *Handlers) tableView(r *http.Request) (views.TableView, error) {
	ref := tableRef(r)
	b, err := h.store.GetBucket(r.Context(), ref.Bucket)
	if err != nil {
		return views.TableView{}, err
	}
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		return views.TableView{}, err
	}
	v := views.TableView{
		Page: h.page(r, t.Name, "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(t.Namespace), Name: t.Name, ID: t.ID, ARN: t.ARN,
		Format: string(t.Format), Location: t.Location, State: string(t.State),
		CreatedAt: t.CreatedAt, ModifiedAt: t.ModifiedAt, Rows: "—",
	}
	if h.stats != nil {
		if st, ok := h.stats.TableStats(t.ID, t.Format); ok {
			v.Rows, v.ObservedAt, v.WorkerID = groupDigits(st.Rows), st.ObservedAt, st.WorkerID
		}
	}
	return v, nil
}

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
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}

// DeregisterTable hides a Lance table; its data stays.
func (h *Handlers) DeregisterTable(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	t, err := h.store.GetTable(r.Context(), ref)
	if err == nil && t.Format != catalog.FormatLance {
		err = &catalog.Error{Kind: catalog.ErrConflict, Field: "format", Message: "Only Lance tables can be deregistered; Iceberg tables are dropped through their engine or here."}
	}
	if err == nil {
		_, err = h.store.DeregisterTable(r.Context(), ref)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	redirect(w, r, views.NamespaceURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace)))
}

// TableData is Browse Data's page until the preview broker lands.
func (h *Handlers) TableData(w http.ResponseWriter, r *http.Request) {
	h.tableSub(w, r, "Browse Data", "Browse Data needs a connected Lance worker: sample rows are read by the worker that last described this table, and none is connected yet.")
}

// TableMaintenance is the maintenance page until the job scheduler lands.
func (h *Handlers) TableMaintenance(w http.ResponseWriter, r *http.Request) {
	h.tableSub(w, r, "Maintenance", "Maintenance (compaction, index building, cleanup) runs as jobs on connected workers, which arrive with the plugin channel. Nothing is scheduled for this table yet.")
}

func (h *Handlers) tableSub(w http.ResponseWriter, r *http.Request, section, msg string) {
	tv, err := h.tableView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.TableSubPage(views.TableSubView{
		Page: h.page(r, section+" · "+tv.Name, "buckets"), Bucket: tv.Bucket, BucketFormat: tv.BucketFormat,
		Namespace: tv.Namespace, Table: tv.Name, Section: section, Message: msg,
	}))
}
