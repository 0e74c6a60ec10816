package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// icebergJobsShown is how many of a table's latest maintenance jobs the tab
// lists: the recent history an operator checks, not an archive (the Jobs
// page has every job).
const icebergJobsShown = 25

// icebergLane is the lane the Iceberg worker's job types run in.
const icebergLane = "iceberg"

// icebergActions are the jobs the tab offers, in the order they matter.
// The two that delete files ask first, as Fix does.
var icebergActions = []views.IcebergAction{
	{Type: "iceberg_expire_snapshots", Title: "Expire snapshots (dry run)", Help: "Lists the snapshots past retention and the files and bytes expiring them would delete; deletes nothing.", DryRun: true},
	{Type: "iceberg_expire_snapshots", Title: "Expire snapshots", Help: "Removes snapshots past retention (never a branch or tag head) and the files only they needed.",
		Confirm: "Expire snapshots now? Snapshots past retention are removed for good, and the data files only they needed are deleted; time travel to them stops working. The dry run lists them first."},
	{Type: "iceberg_remove_orphans", Title: "Remove orphans (dry run)", Help: "Lists the files no metadata references; deletes nothing.", DryRun: true},
	{Type: "iceberg_remove_orphans", Title: "Remove orphan files", Help: "Deletes unreferenced files older than the job type's threshold.",
		Confirm: "Remove orphan files now? Files no metadata references, older than the job type's threshold, are deleted for good. The dry run lists them first."},
	{Type: "iceberg_compact", Title: "Compact now", Help: "Bin-packs small data files per partition; the rows stay the same."},
	{Type: "iceberg_rewrite_manifests", Title: "Rewrite manifests", Help: "Merges small manifests so scans plan faster."},
}

// icebergFigures are the observed attributes the tab shows, labelled.
var icebergFigures = []struct{ key, label string }{
	{"rows", "Rows"},
	{"data_files", "Data files"},
	{"data_bytes", "Data bytes"},
	{"small_files", "Small data files"},
	{"max_small_files_per_partition", "Most small files in one partition"},
	{"delete_files", "Delete files"},
	{"snapshots", "Snapshots"},
	{"oldest_snapshot_age_seconds", "Oldest snapshot age (s)"},
	{"expirable_snapshots", "Snapshots past retention"},
	{"manifests", "Manifests"},
	{"orphan_candidates", "Orphan candidates"},
	{"orphan_candidate_bytes", "Orphan candidate bytes"},
}

// icebergMaintenance fills the Iceberg tab: figures as seen, actions, jobs.
func (h *Handlers) icebergMaintenance(r *http.Request, v *views.MaintenanceView, t catalog.Table) error {
	since := renderedAt() // before the observation and the jobs are read
	base := views.TableURL(v.Bucket, v.Namespace, v.Table) + "/maintenance"
	iv := &views.IcebergMaintView{RunURL: base + "/iceberg", MaintURL: base, Actions: icebergActions, WorkerConnected: h.laneConnected(icebergLane)}
	if h.observe != nil {
		if o, ok := h.observe.Get(t.ID, catalog.FormatIceberg); ok {
			iv.ObservedAt, iv.ObservedBy = o.ObservedAt, o.WorkerID
			var attrs map[string]json.Number
			dec := json.NewDecoder(strings.NewReader(string(o.Attributes)))
			dec.UseNumber()
			_ = dec.Decode(&attrs) // a worker's odd attribute shows as missing, not as an error
			var skip struct {
				Unreadable string `json:"unreadable"`
			}
			_ = json.Unmarshal(o.Attributes, &skip)
			iv.Unreadable = skip.Unreadable
			iv.RepairCommand = "floe table repair " + v.Bucket + " " + v.Namespace + " " + v.Table
			for _, f := range icebergFigures {
				if n, ok := attrs[f.key]; ok {
					iv.Figures = append(iv.Figures, views.Figure{Key: f.key, Label: f.label, Value: n.String()})
				}
			}
		}
	}
	live := LiveSub{Table: t.ID, Refresh: true, Page: PageMaintenance, Since: since}
	if h.plugin != nil {
		jobs, _, err := h.plugin.ListJobs(r.Context(), plugin.JobFilter{ObjectID: t.ID, Limit: icebergJobsShown})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if !strings.HasPrefix(j.Type, "iceberg_") {
				continue
			}
			row := jobHistoryRow(j)
			if row.Progress != nil {
				live.Jobs = append(live.Jobs, j.ID)
			}
			iv.Jobs = append(iv.Jobs, row)
		}
	}
	iv.LiveURL = LiveURL(live)
	v.Iceberg = iv
	return nil
}

// jobHistoryRow is a maintenance job's row: its progress while it can
// still move, its outcome once it ended.
func jobHistoryRow(j plugin.Job) views.IcebergJobRow {
	row := views.IcebergJobRow{ID: j.ID, Type: j.Type, State: string(j.State), CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt,
		Summary: j.ResultSummary, Error: j.Error, Href: "/jobs/" + j.ID}
	if j.State.Active() {
		p := JobProgress(j)
		row.Progress = &p
	}
	return row
}

// RunIcebergJob starts one Iceberg maintenance job on the table and goes
// back to its Maintenance tab.
func (h *Handlers) RunIcebergJob(w http.ResponseWriter, r *http.Request) {
	v, t, err := h.maintenanceView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if t.Format != catalog.FormatIceberg {
		h.fail(w, r, &fault.Error{Kind: fault.Invalid, Message: "Iceberg maintenance runs on Iceberg tables only; this one is " + string(t.Format) + "."})
		return
	}
	if err := h.Require(r.Context(), identity.Maintain, tablePlace(t)); err != nil {
		h.fail(w, r, err)
		return
	}
	if h.plugin == nil {
		h.fail(w, r, &fault.Error{Kind: fault.Conflict, Message: "The job service is not running in this console, so no job can start."})
		return
	}
	typ := r.PostFormValue("job_type")
	known := false
	for _, a := range icebergActions {
		known = known || a.Type == typ
	}
	if !known {
		h.fail(w, r, catalog.Invalid("job_type", fmt.Sprintf("%q is not an Iceberg maintenance job; pick one of the buttons.", typ)))
		return
	}
	params := map[string]string{}
	if dry, _ := strconv.ParseBool(r.PostFormValue("dry_run")); dry {
		params["dry_run"] = "true"
	}
	_, err = h.plugin.SubmitJob(r.Context(), plugin.JobSpec{Type: typ, ObjectID: t.ID, Parameters: params,
		DedupeKey: typ + ":" + t.ID, Summary: "started from the console", Lane: icebergLane, By: principalOf(r.Context())})
	if errors.Is(err, plugin.ErrDuplicateJob) {
		h.fail(w, r, &fault.Error{Kind: fault.Conflict, Message: "A " + typ + " job is already active on this table; wait for it to finish."})
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	redirect(w, r, views.TableURL(v.Bucket, v.Namespace, v.Table)+"/maintenance")
}

// laneConnected reports whether a connected worker executes jobs in lane.
func (h *Handlers) laneConnected(lane string) bool {
	if h.plugin == nil {
		return false
	}
	for _, w := range h.plugin.Snapshot() {
		if w.Status != plugin.WorkerConnected {
			continue
		}
		for _, c := range w.Capabilities {
			if c.Lane == lane && c.CanExecute {
				return true
			}
		}
	}
	return false
}
