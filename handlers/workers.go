package handlers

import (
	"net/http"

	"github.com/floe/floe/views"
)

// Workers says plainly that workers arrive with the plugin channel.
func (h *Handlers) Workers(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, views.EmptyPage(views.EmptyView{
		Page: h.page(r, "Workers", "workers"), Heading: "Workers", TestID: "workers-empty",
		Message: "No workers are connected. Workers dial the plugin channel (gRPC) to describe tables, serve sample rows and run maintenance; they appear here once the plugin channel is running. make run starts one Lance worker.",
	}))
}

// Jobs says plainly that jobs arrive with the plugin channel.
func (h *Handlers) Jobs(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, views.EmptyPage(views.EmptyView{
		Page: h.page(r, "Jobs", "jobs"), Heading: "Jobs", TestID: "jobs-empty",
		Message: "No jobs yet. Maintenance jobs (compaction, indexing, cleanup) run on workers connected through the plugin channel and show their progress here once it is running.",
	}))
}
