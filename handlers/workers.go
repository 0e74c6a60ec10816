package handlers

import (
	"net/http"

	"github.com/go-chi/chi/v5"

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

// JobType is a job type's settings page; its form comes from a worker's
// descriptor, so with no worker connected there is nothing to configure.
func (h *Handlers) JobType(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "type")
	h.render(w, r, http.StatusOK, views.EmptyPage(views.EmptyView{
		Page: h.page(r, name, "workers"), Heading: "Job type " + name, TestID: "job-type-empty",
		Message: "No connected worker offers the job type " + name + ". Its settings form is rendered from the descriptor a worker sends over the plugin channel.",
	}))
}

// ShowJob is one job's page; without the plugin channel there are no jobs.
func (h *Handlers) ShowJob(w http.ResponseWriter, r *http.Request) {
	h.showError(w, r, http.StatusNotFound, "No such job", "There is no job "+chi.URLParam(r, "id")+". Jobs are recorded once workers connect through the plugin channel.")
}
