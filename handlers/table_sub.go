package handlers

import (
	"net/http"

	"github.com/floe/floe/views"
)

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
