package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// jobsPageSize is one page of /jobs: every row may carry a live progress bar.
const jobsPageSize = plugin.DefaultJobPage

// Jobs lists jobs newest first, filtered by lane, type and state (a GET
// form, so a filtered page is a link that survives a reload).
func (h *Handlers) Jobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := views.JobsView{Page: h.page(r, "Jobs", "jobs"), Lane: q.Get("lane"), Type: q.Get("type"), State: q.Get("state")}
	for _, s := range plugin.JobStates {
		v.States = append(v.States, string(s))
	}
	if h.plugin == nil {
		v.Notice = "The plugin channel is not running in this console, so there are no jobs to show."
		h.render(w, r, http.StatusOK, views.JobsPage(v))
		return
	}
	if v.State != "" && !slices.Contains(v.States, v.State) {
		h.showError(w, r, http.StatusUnprocessableEntity, "Invalid filter", "State "+v.State+" is not a job state; pick one from the list.")
		return
	}
	v.Lanes, v.Types = h.jobFilterOptions(v.Lane, v.Type)
	order := parseJobOrder(q)
	jobs, next, err := h.plugin.ListJobs(r.Context(), plugin.JobFilter{Lane: v.Lane, Type: v.Type,
		State: plugin.JobState(v.State), Before: q.Get("before"), Limit: jobsPageSize, Order: order})
	if errors.Is(err, plugin.ErrJobNotFound) {
		h.showError(w, r, http.StatusNotFound, "Page not found", "This page of jobs starts at a job that no longer exists; start again from the newest jobs.")
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	names := h.tableNamer()
	ids := make([]string, 0, len(jobs))
	everything := h.Can(r.Context(), identity.Read, identity.Resource{})
	for _, j := range jobs {
		if !everything && !h.Can(r.Context(), identity.Read, h.jobPlace(r.Context(), j)) {
			continue // a job on a table the user may not read says its name
		}
		row := views.JobRowView{ID: j.ID, Type: j.Type, Lane: j.Lane, ObjectID: j.ObjectID, Progress: JobProgress(j),
			Attempts: j.Attempts, MaxAttempts: j.MaxAttempts, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
		row.ObjectLabel, row.ObjectHref = names(r.Context(), j.ObjectID)
		v.Rows = append(v.Rows, row)
		ids = append(ids, j.ID)
	}
	filter := url.Values{}
	for k, val := range map[string]string{"lane": v.Lane, "type": v.Type, "state": v.State} {
		if val != "" {
			filter.Set(k, val)
		}
	}
	v.Sort = jobHeaders(order, filter)
	setJobOrder(filter, order)
	v.SortKey, v.SortDir = filter.Get("sort"), filter.Get("dir")
	if next != "" {
		nq := url.Values{}
		for k, vs := range filter {
			nq[k] = vs
		}
		nq.Set("before", next)
		v.NextHref = "/jobs?" + nq.Encode()
	}
	if q.Get("before") != "" {
		v.FirstHref = "/jobs"
		if len(filter) > 0 {
			v.FirstHref += "?" + filter.Encode()
		}
	}
	v.LiveURL = LiveURL(LiveSub{Jobs: ids})
	v.Rates = h.jobRatesView(r.Context(), time.Now())
	h.render(w, r, http.StatusOK, views.JobsPage(v))
}

// jobFilterOptions lists the lanes and types the connected workers offer,
// plus the ones currently selected (a filter link must keep working after
// the worker that offered it left).
func (h *Handlers) jobFilterOptions(lane, typ string) (lanes, types []string) {
	add := func(list []string, s string) []string {
		if s != "" && !slices.Contains(list, s) {
			list = append(list, s)
		}
		return list
	}
	lanes = []string{"default", "lance", "iceberg"}
	for _, jt := range h.plugin.JobTypes() {
		types = add(types, jt.JobType)
		lanes = add(lanes, jt.Lane)
	}
	lanes, types = add(lanes, lane), add(types, typ)
	slices.Sort(lanes)
	slices.Sort(types)
	return lanes, types
}

// tableNamer resolves job object ids to table links, caching per request
// (a page of jobs usually concerns a handful of tables).
func (h *Handlers) tableNamer() func(ctx context.Context, id string) (label, href string) {
	seen := map[string][2]string{}
	return func(ctx context.Context, id string) (string, string) {
		if id == "" {
			return "", ""
		}
		if v, ok := seen[id]; ok {
			return v[0], v[1]
		}
		var label, href string
		if t, err := h.store.GetTableByID(ctx, id); err == nil {
			ns := catalog.JoinNamespace(t.Namespace)
			label, href = t.Bucket+" / "+ns+" / "+t.Name, views.TableURL(t.Bucket, ns, t.Name)
		}
		seen[id] = [2]string{label, href}
		return label, href
	}
}

// JobProgress is the view of a job's state, bar and stage.
func JobProgress(j plugin.Job) views.JobProgressView {
	v := views.JobProgressView{ID: j.ID, State: string(j.State), Percent: j.Percent, Stage: j.Stage, Message: j.Message}
	if !j.State.Active() {
		// The last stage a worker reported ("observing") is not where the
		// job ended: a finished job's stage is its end.
		v.Stage = finalStage(j.State)
	}
	return v
}

func finalStage(s plugin.JobState) string {
	if s == plugin.JobSucceeded {
		return "done"
	}
	return "ended"
}
