package handlers

import (
	"net/http"

	"github.com/floe/floe/views"
)

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
