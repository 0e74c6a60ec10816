package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/health"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// maxBulkTables bounds one bulk action: two pages of the list, more than
// anyone ticks by hand, and each table costs a catalog read and a submit.
const maxBulkTables = 2 * tablesPerPage

// bulkActions are the actions a table list's bulk bar offers.
var bulkActions = map[string]string{"fix": "Fix", "compact": "Compact", "drop": "Drop"}

// BulkTables runs one action on the tables ticked in a namespace's list:
// Fix (the jobs each table's health names), Compact (a compaction each) or
// Drop. Drop, and a Fix that submits a job deleting old versions or files,
// first answer a page that lists what will happen and asks to confirm
// (confirm=yes); the server decides that, not the browser. Each table goes
// through the same path as its own page's action: Drop through the
// catalog's DropTable, Fix through submitFix.
func (h *Handlers) BulkTables(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	bucket, ns := r.PathValue("bucket"), catalog.SplitNamespace(r.PathValue("ns"))
	if _, err := h.store.GetNamespace(ctx, bucket, ns); err != nil {
		h.fail(w, r, err)
		return
	}
	listURL := views.NamespaceURL(bucket, catalog.JoinNamespace(ns))
	back := r.PostFormValue("back")
	if back != listURL && !strings.HasPrefix(back, listURL+"?") {
		back = listURL // only ever back to this list
	}
	action := r.PostFormValue("action")
	label, ok := bulkActions[action]
	if !ok {
		h.fail(w, r, catalog.Invalid("action", fmt.Sprintf("%q is not a bulk action; use Fix, Compact or Drop.", action)))
		return
	}
	var names []string
	for _, n := range r.PostForm["table"] {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	switch {
	case len(names) == 0:
		h.flash(r, "Tick the tables to "+strings.ToLower(label)+" first; nothing was done.")
		redirect(w, r, back)
		return
	case len(names) > maxBulkTables:
		h.fail(w, r, catalog.Invalid("table", fmt.Sprintf("A bulk action takes at most %d tables; tick fewer.", maxBulkTables)))
		return
	}
	tables := make([]catalog.Table, 0, len(names))
	for _, n := range names {
		t, err := h.store.GetTable(ctx, catalog.TableRef{Bucket: bucket, Namespace: ns, Name: n})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		tables = append(tables, t)
	}
	// Each table as its own page's action asks: maintain for Fix and
	// Compact, manage for Drop; one refused table refuses the whole batch
	// before anything runs.
	need := identity.Maintain
	if action == "drop" {
		need = identity.Manage
	}
	for _, t := range tables {
		if err := h.Require(ctx, need, tablePlace(t)); err != nil {
			h.Forbidden(w, r, err)
			return
		}
	}
	if action != "drop" && (h.plugin == nil || (action == "fix" && h.health == nil)) {
		h.fail(w, r, &fault.Error{Kind: fault.Conflict, Message: "This console runs no workers, so " + label + " has nothing to submit jobs to."})
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		if v, ask := h.bulkQuestion(r, action, tables); ask {
			v.URL, v.Back = listURL+"/bulk", back
			h.render(w, r, http.StatusOK, views.BulkConfirmPage(v))
			return
		}
	}
	done, failed := 0, []string{}
	for _, t := range tables {
		n, err := h.bulkOne(ctx, action, t)
		if err != nil {
			h.logError(r, http.StatusConflict, err)
			why := fault.Public(err)
			if why == "" {
				why = "failed; the error is in the server log"
			}
			failed = append(failed, t.Name+": "+why)
			continue
		}
		done += n
	}
	h.flash(r, bulkSummary(action, len(tables)-len(failed), done, failed))
	redirect(w, r, back)
}

// bulkQuestion is the confirmation page of an action that deletes data,
// or ask=false when the action deletes nothing.
func (h *Handlers) bulkQuestion(r *http.Request, action string, tables []catalog.Table) (views.BulkConfirmView, bool) {
	v := views.BulkConfirmView{Page: h.page(r, "Confirm", "buckets"), Action: action}
	ask := action == "drop"
	for _, t := range tables {
		row := views.BulkConfirmRow{Name: t.Name, Format: string(t.Format)}
		switch action {
		case "drop":
			row.Detail = "its entry and its data are deleted"
		case "fix":
			var jobs, deletes []string
			for _, j := range h.health.Table(t.ID, t.Format, t.ModifiedAt).Jobs() {
				jobs = append(jobs, j.Job)
				if j.DeletesData {
					deletes = append(deletes, j.Job)
				}
			}
			switch {
			case len(jobs) == 0:
				row.Detail = "nothing to fix"
			case len(deletes) > 0:
				ask = true
				row.Detail = strings.Join(jobs, ", ") + " — " + strings.Join(deletes, ", ") + " deletes old versions or files"
				row.Deletes = true
			default:
				row.Detail = strings.Join(jobs, ", ")
			}
		}
		v.Tables = append(v.Tables, row)
	}
	n := health.Group(int64(len(tables)))
	switch action {
	case "drop":
		v.Question = "Drop " + n + " " + pluralWord(len(tables), "table", "tables") + "? Their entries and their data are deleted."
		v.Button = "Drop " + n + " " + pluralWord(len(tables), "table", "tables")
	default:
		v.Question = "Fix " + n + " " + pluralWord(len(tables), "table", "tables") + "? Some of the jobs delete data no current version or snapshot needs."
		v.Button = "Run the fixes"
	}
	return v, ask
}

// bulkOne runs the action on one table: the number of jobs submitted (a
// drop counts one).
func (h *Handlers) bulkOne(ctx context.Context, action string, t catalog.Table) (int, error) {
	switch action {
	case "drop":
		_, err := h.store.DropTable(ctx, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name})
		if err != nil {
			return 0, err
		}
		return 1, nil
	case "fix":
		return h.submitFix(ctx, t)
	}
	if t.Format == catalog.FormatIceberg {
		_, err := h.plugin.SubmitJob(ctx, plugin.JobSpec{Type: health.JobIcebergCompact, ObjectID: t.ID,
			DedupeKey: health.JobIcebergCompact + ":" + t.ID, Summary: "started from the console (bulk)", Lane: icebergLane})
		if errors.Is(err, plugin.ErrDuplicateJob) {
			return 0, nil // one is already running: follow it
		}
		return 1, err
	}
	if err := h.taskWritable(t); err != nil {
		return 0, err
	}
	if _, err := h.tasks.Submit(ctx, t, tasks.TypeCompact, nil); err != nil {
		return 0, err
	}
	return 1, nil
}

func bulkSummary(action string, ok, jobs int, failed []string) string {
	var s string
	tables := health.Group(int64(ok)) + " " + pluralWord(ok, "table", "tables")
	switch action {
	case "drop":
		s = tables + " dropped with their data."
	case "fix":
		s = "Fix submitted " + health.Group(int64(jobs)) + " " + pluralWord(jobs, "job", "jobs") + " for " + tables + "; follow them on the Jobs page."
	default:
		s = "Compaction submitted for " + tables + "; follow it on the Jobs page."
	}
	if len(failed) > 0 {
		s += " Not done: " + strings.Join(failed, "; ") + "."
	}
	return s
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
