package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/tasks"
)

const maintURL = "/buckets/lbk/namespaces/ns/tables/docs/maintenance"

func TestMaintenanceTab(t *testing.T) {
	e := newLiveEnv(t)
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	e.seed("ice", catalog.FormatIceberg, "ns", "events")
	t.Run("lance table: five forms, waiting notice, empty history", func(t *testing.T) {
		r := e.get(e.admin(), maintURL)
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		for _, op := range []string{"compact", "create_scalar_index", "create_vector_index", "optimize_indices", "cleanup"} {
			if !r.has("form-" + op + "-form") {
				t.Errorf("no %s form", op)
			}
		}
		if !r.has("no-lance-worker") || !r.has("tasks-empty") {
			t.Error("missing no-worker notice or empty history")
		}
		if r.doc.Find(`[data-testid="tab-lance_compact"]`).AttrOr("aria-current", "") != "page" {
			t.Error("compact is not the default tab")
		}
	})
	t.Run("readonly sees no forms", func(t *testing.T) {
		if r := e.get(e.reader(), maintURL); r.has("maintenance-forms") {
			t.Error("reader sees forms")
		}
	})
	t.Run("iceberg table gets the Iceberg tab", func(t *testing.T) {
		r := e.get(e.admin(), "/buckets/ice/namespaces/ns/tables/events/maintenance")
		if r.status != http.StatusOK || !r.has("iceberg-maintenance") || r.has("maintenance-not-lance") {
			t.Errorf("status %d", r.status)
		}
	})
	t.Run("a connected Lance worker removes the notice", func(t *testing.T) {
		e.lanceWorker(nil)
		if r := e.get(e.admin(), maintURL); r.has("no-lance-worker") {
			t.Error("notice still shown")
		}
	})
}

func TestMaintenanceSubmitValidation(t *testing.T) {
	e := newLiveEnv(t)
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	admin := e.admin()
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"compaction mode is case-sensitive", url.Values{"task_type": {"lance_compact"}, "compaction_mode": {"REENCODE"}}, "compaction_mode"},
		{"target rows must be a number", url.Values{"task_type": {"lance_compact"}, "target_rows_per_fragment": {"lots"}}, "target_rows_per_fragment"},
		{"cleanup needs a field", url.Values{"task_type": {"lance_cleanup"}}, "older_than"},
		{"older_than has no weeks", url.Values{"task_type": {"lance_cleanup"}, "older_than": {"1w"}}, "older_than"},
		{"scalar index needs a column", url.Values{"task_type": {"lance_scalar_index"}, "index_type": {"BTREE"}}, "column"},
		{"vector index type", url.Values{"task_type": {"lance_vector_index"}, "column": {"v"}, "index_type": {"ivf_pq"}}, "index_type"},
		{"FTS option on a BTREE index", url.Values{"task_type": {"lance_scalar_index"}, "column": {"c"}, "index_type": {"BTREE"}, "stem": {"false"}}, "stem"},
		{"an empty index name in the list", url.Values{"task_type": {"lance_optimize_indices"}, "index_names": {"a, ,b"}}, "index_names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(admin, maintURL+"/tasks", tc.form)
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d", r.status)
			}
			if !r.has("error-" + tc.field) {
				t.Errorf("no error at %s; body: %s", tc.field, r.doc.Find(".field-error, [data-testid=form-notice]").Text())
			}
			for k, v := range tc.form {
				if k == "task_type" {
					continue
				}
				if r.doc.Find(`[data-testid="field-`+strings.TrimPrefix(tc.form.Get("task_type"), "lance_")+`-`+k+`"][data-kind="fixed"]`).Length() > 0 {
					continue // no input: the engine fixes the value
				}
				if got := r.doc.Find(`[name="` + k + `"]`).FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Closest("details").AttrOr("open", "x") != "x" }).First(); got.Length() == 0 {
					t.Errorf("form with %s not reopened", k)
				} else if val := got.AttrOr("value", ""); got.Is("input") && val != v[0] {
					t.Errorf("%s re-rendered as %q, want %q", k, val, v[0])
				}
			}
		})
	}
	t.Run("readonly is refused", func(t *testing.T) {
		r := e.post(e.reader(), maintURL+"/tasks", url.Values{"task_type": {"lance_compact"}})
		if r.status != http.StatusForbidden {
			t.Errorf("status %d", r.status)
		}
	})
}

func TestMaintenanceSubmitAndDelete(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	tb, _ := e.table("lbk", "ns", "docs")
	admin := e.admin()
	r := e.post(admin, maintURL+"/tasks", url.Values{"task_type": {"lance_cleanup"}, "older_than": {"7d"}, "retain_versions": {"3"}})
	if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "type=lance_cleanup") {
		t.Fatalf("status %d location %q body %s", r.status, r.header.Get("Location"), r.body)
	}
	list, _, err := e.tasks.List(ctx, tb.ID, tasks.ListOptions{Type: tasks.TypeCleanup})
	if err != nil || len(list) != 1 {
		t.Fatalf("tasks %v err %v", list, err)
	}
	task := list[0]
	if task.Params["older_than"] != "7d" || fmt.Sprint(task.Params["retain_versions"]) != "3" {
		t.Errorf("params %v", task.Params)
	}
	page := e.get(admin, maintURL+"?type=lance_cleanup")
	row := page.doc.Find(`[data-task="` + task.ID + `"]`)
	if row.Length() != 1 || row.AttrOr("data-status", "") != "submitted" {
		t.Fatalf("history row missing or wrong: %d %q", row.Length(), row.AttrOr("data-status", ""))
	}
	if row.Find(`[data-testid="task-delete"]`).Length() != 0 {
		t.Error("a submitted task offers Delete")
	}
	del := maintURL + "/tasks/" + task.ID + "/delete"
	if r := e.post(admin, del, nil); r.status != http.StatusConflict {
		t.Errorf("delete of a submitted task: status %d", r.status)
	}
	got, _ := e.tasks.Get(ctx, tb.ID, task.ID)
	if _, err := e.tasks.OnJobUpdate(ctx, tasks.JobUpdate{JobID: got.JobID, State: "failed", Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	page = e.get(admin, maintURL+"?type=lance_cleanup")
	if page.doc.Find(`[data-task="`+task.ID+`"] [data-testid="task-delete"]`).Length() != 1 {
		t.Fatal("a failed task offers no Delete")
	}
	if r := e.post(e.reader(), del, nil); r.status != http.StatusForbidden {
		t.Errorf("reader delete: status %d", r.status)
	}
	if r := e.post(admin, del, nil); r.status != http.StatusSeeOther {
		t.Fatalf("delete: status %d %s", r.status, r.body)
	}
	if _, err := e.tasks.Get(ctx, tb.ID, task.ID); err == nil {
		t.Error("task still stored")
	}
	if r := e.post(admin, del, nil); r.status != http.StatusNotFound {
		t.Errorf("second delete: status %d", r.status)
	}
}

func TestCompactNow(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	tb, _ := e.table("lbk", "ns", "docs")
	compact := "/buckets/lbk/namespaces/ns/tables/docs/compact"
	if r := e.get(e.admin(), "/buckets/lbk/namespaces/ns/tables/docs"); !r.has("compact-now-slot") {
		t.Fatal("table page has no Compact now slot")
	}
	if r := e.get(e.reader(), compact); r.status != http.StatusOK || r.has("compact-now-button") {
		t.Errorf("reader control: status %d, button shown %v", r.status, r.has("compact-now-button"))
	}
	if r := e.do(e.reader(), "POST", compact, url.Values{}, map[string]string{"HX-Request": "true"}); r.status != http.StatusForbidden {
		t.Errorf("reader submit: status %d", r.status)
	}
	r := e.do(e.admin(), "POST", compact, url.Values{}, map[string]string{"HX-Request": "true"})
	if r.status != http.StatusOK || !r.has("compact-now-job") {
		t.Fatalf("status %d body %s", r.status, r.body)
	}
	list, _, _ := e.tasks.List(ctx, tb.ID, tasks.ListOptions{Type: tasks.TypeCompact})
	if len(list) != 1 {
		t.Fatalf("%d compact tasks", len(list))
	}
	got, _ := e.tasks.Get(ctx, tb.ID, list[0].ID)
	if r.doc.Find(`#job-`+got.JobID).Length() != 1 {
		t.Errorf("fragment does not show job %s", got.JobID)
	}
	if !r.has("compact-now-waiting") {
		t.Error("no waiting note without a worker")
	}
	if ws, _ := r.doc.Find(`[data-testid="compact-now"]`).Attr("ws-connect"); !strings.Contains(ws, "table="+tb.ID) {
		t.Errorf("ws-connect %q", ws)
	}
	// The control, reloaded, still shows the job.
	if r := e.get(e.admin(), compact); r.doc.Find(`#job-`+got.JobID).Length() != 1 {
		t.Error("reloaded control lost the job")
	}
}

func TestMaintenanceHistoryPaging(t *testing.T) {
	e := newLiveEnv(t)
	ctx := context.Background()
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	tb, _ := e.table("lbk", "ns", "docs")
	for range 27 { // tasksPageSize + 2
		if _, err := e.tasks.Submit(ctx, tb, tasks.TypeCleanup, []byte(`{"older_than":"7d"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.tasks.Submit(ctx, tb, tasks.TypeCompact, nil); err != nil {
		t.Fatal(err)
	}
	admin := e.admin()
	r := e.get(admin, maintURL)
	if n := r.doc.Find(`[data-testid="task-row"]`).Length(); n != 1 {
		t.Errorf("compact tab shows %d rows, want 1", n)
	}
	r = e.get(admin, maintURL+"?type=lance_cleanup")
	if n := r.doc.Find(`[data-testid="task-row"]`).Length(); n != 25 {
		t.Fatalf("first cleanup page shows %d rows", n)
	}
	if ws, _ := r.doc.Find(`[data-testid="maintenance-live"]`).Attr("ws-connect"); !strings.Contains(ws, "rows=lance_cleanup") {
		t.Errorf("ws-connect %q does not follow the cleanup rows", ws)
	}
	next, ok := r.doc.Find(`[data-testid="tasks-next"]`).Attr("href")
	if !ok {
		t.Fatal("no next page")
	}
	r = e.get(admin, next)
	if n := r.doc.Find(`[data-testid="task-row"]`).Length(); n != 2 || !r.has("tasks-first") || r.has("tasks-next") {
		t.Errorf("second page: %d rows, first link %v, next link %v", n, r.has("tasks-first"), r.has("tasks-next"))
	}
	if r := e.get(admin, maintURL+"?type=lance_everything"); r.status != http.StatusNotFound {
		t.Errorf("unknown type: status %d", r.status)
	}
	if r := e.get(admin, maintURL+"?type=lance_cleanup&marker=bogus"); r.status != http.StatusNotFound {
		t.Errorf("bad marker: status %d", r.status)
	}
}
