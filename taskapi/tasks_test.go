package taskapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floe/floe/tasks"
)

// The validation examples of the contract, through HTTP. ok: 200 and the
// params shown by GET contain want; else 400 code 13.
func TestSubmitBodies(t *testing.T) {
	e := newEnv(t, envOpts{})
	cases := []struct {
		op   string
		body string
		ok   bool
		want map[string]any
	}{
		{"compact", ``, true, map[string]any{"compaction_mode": "reencode", "target_rows_per_fragment": 1048576.0,
			"materialize_deletions": true, "materialize_deletions_threshold": 0.1, "max_rows_per_group": 1024.0, "max_bytes_per_file": 0.0}},
		{"compact", `{}`, true, map[string]any{"compaction_mode": "reencode"}},
		{"compact", `{"unknown": 1}`, true, map[string]any{"compaction_mode": "reencode"}},
		{"compact", `{"target_rows_per_fragment": 0}`, false, nil},
		{"compact", `{"target_rows_per_fragment": -5}`, false, nil},
		{"compact", `{"target_rows_per_fragment": 2.5}`, false, nil},
		{"compact", `{"materialize_deletions": "yes"}`, false, nil},
		{"compact", `{"materialize_deletions_threshold": 0}`, true, map[string]any{"materialize_deletions_threshold": 0.1}},
		{"compact", `{"materialize_deletions_threshold": 1}`, true, map[string]any{"materialize_deletions_threshold": 1.0}},
		{"compact", `{"materialize_deletions_threshold": -0.5}`, true, map[string]any{"materialize_deletions_threshold": -0.5}},
		{"compact", `{"max_rows_per_group": 0}`, false, nil},
		{"compact", `{"max_bytes_per_file": 0}`, true, map[string]any{"max_bytes_per_file": 0.0}},
		{"compact", `{"max_bytes_per_file": -1}`, false, nil},
		{"compact", `{"compaction_mode": "try_binary_copy"}`, true, map[string]any{"compaction_mode": "try_binary_copy"}},
		{"compact", `{"compaction_mode": "force_binary_copy"}`, true, map[string]any{"compaction_mode": "force_binary_copy"}},
		{"compact", `{"compaction_mode": "Reencode"}`, false, nil},
		{"compact", `{"compaction_mode": ""}`, false, nil},
		{"compact", `{"compaction_mode": "fast"}`, false, nil},
		{"compact", `[1]`, false, nil},
		{"compact", `{"target_rows_per_fragment":`, false, nil},
		{"cleanup", ``, false, nil},
		{"cleanup", `{}`, false, nil},
		{"cleanup", `{"older_than": "7d"}`, true, map[string]any{"older_than": "7d", "delete_unverified": false, "error_if_tagged_old_versions": false}},
		{"cleanup", `{"older_than": "168h"}`, true, map[string]any{"older_than": "168h"}},
		{"cleanup", `{"older_than": "45m"}`, true, map[string]any{"older_than": "45m"}},
		{"cleanup", `{"older_than": "3600s"}`, true, map[string]any{"older_than": "3600s"}},
		{"cleanup", `{"older_than": "1w"}`, false, nil},
		{"cleanup", `{"older_than": "1.5d"}`, false, nil},
		{"cleanup", `{"older_than": "-7d"}`, false, nil},
		{"cleanup", `{"older_than": "1d12h"}`, false, nil},
		{"cleanup", `{"older_than": "7D"}`, false, nil},
		{"cleanup", `{"older_than": "7 d"}`, false, nil},
		{"cleanup", `{"older_than": ""}`, false, nil},
		{"cleanup", `{"retain_versions": 5}`, true, map[string]any{"retain_versions": 5.0}},
		{"cleanup", `{"retain_versions": 0}`, false, nil},
		{"cleanup", `{"retain_versions": -1}`, false, nil},
		{"cleanup", `{"older_than": "7d", "delete_unverified": true}`, false, nil},
		{"cleanup", `{"older_than": "7d", "error_if_tagged_old_versions": true}`, false, nil},
		{"cleanup", `{"older_than": "7d", "delete_unverified": false, "error_if_tagged_old_versions": false}`, true, map[string]any{"delete_unverified": false}},
		{"create_scalar_index", `{"column": "id", "index_type": "BTREE"}`, true, map[string]any{"column": "id", "replace": false}},
		{"create_scalar_index", `{"column": "id"}`, false, nil},
		{"create_scalar_index", ``, false, nil},
		{"create_vector_index", `{"column": "v", "index_type": "IVF_PQ"}`, true, map[string]any{"distance_type": "l2"}},
		{"create_vector_index", `{"column": "v", "index_type": "ivf_pq"}`, false, nil},
		{"optimize_indices", ``, true, map[string]any{"retrain": false, "num_indices_to_merge": 1.0}},
		{"optimize_indices", `{"num_indices_to_merge": -1}`, false, nil},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d %s %s", i, c.op, c.body), func(t *testing.T) {
			r := e.do(call{method: "POST", path: "/table/ns$tbl/" + c.op, body: c.body})
			if !c.ok {
				r.wantError(t, 400, "InvalidInput", 13)
				return
			}
			var out struct {
				TaskID string `json:"task_id"`
			}
			r.wantOK(t, e.table.ID, &out)
			params := e.get(out.TaskID)["params"].(map[string]any)
			for k, v := range c.want {
				if params[k] != v {
					t.Fatalf("params[%s] = %v, want %v (all: %v)", k, params[k], v, params)
				}
			}
			if _, ok := params["unknown"]; ok {
				t.Fatal("an unknown field was stored")
			}
		})
	}
}

var timeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`)

func TestTaskLifeThroughGet(t *testing.T) {
	e := newEnv(t, envOpts{})
	id := e.submit("compact", `{"max_rows_per_group": 512}`)
	info := e.get(id)
	if info["task_id"] != id || info["task_type"] != "lance_compact" || info["status"] != "submitted" ||
		info["started_at"] != "" || info["completed_at"] != "" || info["error"] != nil {
		t.Fatalf("fresh task_info = %v", info)
	}
	if res, ok := info["result"].(map[string]any); !ok || len(res) != 0 {
		t.Fatalf("result = %#v, want {}", info["result"])
	}
	if s, _ := info["created_at"].(string); !timeRE.MatchString(s) {
		t.Fatalf("created_at %q", s)
	}
	if _, ok := info["error"]; !ok {
		t.Fatal("error must be present as null")
	}
	job := e.jobOf(id)
	e.update(tasks.JobUpdate{JobID: job, State: "running", StartedAt: time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)})
	info = e.get(id)
	if info["status"] != "running" || info["started_at"] != "2026-03-04T05:06:07.890000+00:00" || info["completed_at"] != "" {
		t.Fatalf("running task_info = %v", info)
	}
	e.update(tasks.JobUpdate{JobID: job, State: "completed", Result: map[string]any{"fragments_removed": 3, "files_added": 1}})
	info = e.get(id)
	res := info["result"].(map[string]any)
	if info["status"] != "completed" || !timeRE.MatchString(info["completed_at"].(string)) || res["fragments_removed"] != 3.0 || info["error"] != nil {
		t.Fatalf("completed task_info = %v", info)
	}

	failed := e.submit("cleanup", `{"retain_versions": 2}`)
	e.update(tasks.JobUpdate{JobID: e.jobOf(failed), State: "failed", Error: "dataset not found"})
	info = e.get(failed)
	errObj, _ := info["error"].(map[string]any)
	if info["status"] != "failed" || errObj["code"] != tasks.FailJob || errObj["message"] != "dataset not found" {
		t.Fatalf("failed task_info = %v", info)
	}

	e.do(call{method: "GET", path: "/table/ns$tbl/tasks/" + strings.Repeat("0", 32)}).wantError(t, 404, "TaskNotFound", 10000)
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks/not-a-task"}).wantError(t, 404, "TaskNotFound", 10000)
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks/" + strings.ToUpper(id)}).wantError(t, 404, "TaskNotFound", 10000)
}

func TestListPagination(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.fill(e.table.ID, tasks.TypeCompact, 248)
	newest := e.submit("compact", "")
	e.submit("cleanup", `{"older_than": "1d"}`) // another type
	second := e.submit("compact", "")
	seen := map[string]bool{}
	var pages []int
	marker, prevCreated := "", "9999"
	for {
		path := "/table/ns$tbl/tasks?task_type=lance_compact&max_results=100"
		if marker != "" {
			path += "&marker=" + marker
		}
		var out listBody
		var raw map[string]any
		r := e.do(call{method: "GET", path: path})
		r.wantOK(t, e.table.ID, &out)
		r.wantOK(t, e.table.ID, &raw)
		if _, ok := raw["next_marker"]; !ok {
			t.Fatal("next_marker missing")
		}
		pages = append(pages, len(out.Tasks))
		for _, ti := range out.Tasks {
			if seen[ti.TaskID] || ti.TaskType != "lance_compact" {
				t.Fatalf("task %s repeated or of type %s", ti.TaskID, ti.TaskType)
			}
			seen[ti.TaskID] = true
			if ti.CreatedAt > prevCreated {
				t.Fatalf("not newest first: %s after %s", ti.CreatedAt, prevCreated)
			}
			prevCreated = ti.CreatedAt
		}
		if out.NextMarker == "" {
			break
		}
		marker = out.NextMarker
	}
	if fmt.Sprint(pages) != "[100 100 50]" || len(seen) != 250 {
		t.Fatalf("pages %v, %d tasks", pages, len(seen))
	}
	var first listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact&max_results=2"}).wantOK(t, e.table.ID, &first)
	if len(first.Tasks) != 2 || first.Tasks[0].TaskID != second || first.Tasks[1].TaskID != newest {
		t.Fatalf("newest first: got %s, %s; want %s, %s", first.Tasks[0].TaskID, first.Tasks[1].TaskID, second, newest)
	}
	var def listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact"}).wantOK(t, e.table.ID, &def)
	if len(def.Tasks) != 100 || def.NextMarker == "" {
		t.Fatalf("default page: %d tasks", len(def.Tasks))
	}
	var all listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact&max_results=1000"}).wantOK(t, e.table.ID, &all)
	if len(all.Tasks) != 250 || all.NextMarker != "" {
		t.Fatalf("max page: %d tasks, marker %q", len(all.Tasks), all.NextMarker)
	}
	var empty listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_vector_index"}).wantOK(t, e.table.ID, &empty)
	if empty.Tasks == nil || len(empty.Tasks) != 0 || empty.NextMarker != "" {
		t.Fatalf("empty list = %+v", empty)
	}
	for _, q := range []string{
		"", "task_type=", "task_type=compact", "task_type=LANCE_COMPACT",
		"task_type=lance_compact&max_results=0", "task_type=lance_compact&max_results=1001",
		"task_type=lance_compact&max_results=-1", "task_type=lance_compact&max_results=ten",
		"task_type=lance_compact&max_results=1.5",
		"task_type=lance_compact&marker=bogus", "task_type=lance_compact&marker=" + strings.Repeat("A", 40),
		"task_type=lance_compact&mode=", "task_type=lance_compact&mode=x", "task_type=lance_compact&status=",
		"task_type=lance_compact&status=completed", "task_type=lance_compact&max_results=%zz",
	} {
		t.Run(q, func(t *testing.T) {
			e.do(call{method: "GET", path: "/table/ns$tbl/tasks?" + q}).wantError(t, 400, "InvalidInput", 13)
		})
	}
}

func TestDeleteEachState(t *testing.T) {
	e := newEnv(t, envOpts{})
	submitted := e.submit("compact", "")
	running := e.submit("compact", "")
	completed := e.submit("compact", "")
	failed := e.submit("compact", "")
	e.update(tasks.JobUpdate{JobID: e.jobOf(running), State: "running"})
	e.update(tasks.JobUpdate{JobID: e.jobOf(completed), State: "completed"})
	e.update(tasks.JobUpdate{JobID: e.jobOf(failed), State: "failed", Error: "x"})
	cases := []struct {
		name   string
		id     string
		status int
	}{
		{"submitted", submitted, 409},
		{"running", running, 409},
		{"completed", completed, 204},
		{"failed", failed, 204},
		{"already deleted", completed, 404},
		{"unknown", strings.Repeat("f", 32), 404},
		{"malformed", "xyz", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(call{method: "DELETE", path: "/table/ns$tbl/tasks/" + c.id})
			switch c.status {
			case 204:
				if r.status != http.StatusNoContent || len(r.body) != 0 || r.header.Get("x-oss-table-id") != e.table.ID {
					t.Fatalf("delete = %d %q, table id %q", r.status, r.body, r.header.Get("x-oss-table-id"))
				}
				e.do(call{method: "GET", path: "/table/ns$tbl/tasks/" + c.id}).wantError(t, 404, "TaskNotFound", 10000)
			case 409:
				r.wantError(t, 409, "TaskStateConflict", 10001)
			case 404:
				r.wantError(t, 404, "TaskNotFound", 10000)
			}
		})
	}
}

func TestQuotaAnswer(t *testing.T) {
	e := newEnv(t, envOpts{noRunner: true})
	e.fill(e.table.ID, tasks.TypeCompact, tasks.MaxTasksPerType)
	e.do(call{method: "POST", path: "/table/ns$tbl/compact"}).wantError(t, 429, "TaskQuotaExceeded", 10002)
	e.submit("cleanup", `{"older_than": "7d"}`) // per task type
	var page listBody
	e.do(call{method: "GET", path: "/table/ns$tbl/tasks?task_type=lance_compact&max_results=1"}).wantOK(t, e.table.ID, &page)
	e.do(call{method: "DELETE", path: "/table/ns$tbl/tasks/" + page.Tasks[0].TaskID}).status.wantNoContent(t)
	e.submit("compact", "")
	e.do(call{method: "POST", path: "/table/ns$tbl/compact"}).wantError(t, 429, "TaskQuotaExceeded", 10002)
}

// 32 clients race for the last places of the quota over HTTP: the bound
// holds and every 200 names a task that GET finds.
func TestQuotaConcurrentHTTP(t *testing.T) {
	e := newEnv(t, envOpts{})
	const stored, clients, each = tasks.MaxTasksPerType - 10, 32, 1
	e.fill(e.table.ID, tasks.TypeCompact, stored)
	var (
		mu       sync.Mutex
		accepted []string
		wg       sync.WaitGroup
	)
	for range clients {
		wg.Go(func() {
			for range each {
				req, _ := http.NewRequest("POST", e.srv.URL+"/lance/oss/v1/table/ns$tbl/compact", nil)
				req.Host = "mybucket.localhost"
				req.Header.Set("x-api-key", e.rw)
				resp, err := e.srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var out struct {
					TaskID string `json:"task_id"`
				}
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					mu.Lock()
					accepted = append(accepted, out.TaskID)
					mu.Unlock()
				case 429:
				default:
					t.Errorf("status %d", resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	if len(accepted) != tasks.MaxTasksPerType-stored {
		t.Fatalf("accepted %d, want exactly the %d free places", len(accepted), tasks.MaxTasksPerType-stored)
	}
	for _, id := range accepted {
		if info := e.get(id); info["status"] != "submitted" {
			t.Fatalf("task %s: %v", id, info)
		}
	}
}
