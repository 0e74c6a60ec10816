package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/plugin"
)

const iceMaintURL = "/buckets/ice/namespaces/ns/tables/events/maintenance"

func TestIcebergMaintenanceTab(t *testing.T) {
	e := newLiveEnv(t)
	e.seed("ice", catalog.FormatIceberg, "ns", "events")
	e.seed("lbk", catalog.FormatLance, "ns", "docs")
	tbl, err := e.table("ice", "ns", "events")
	if err != nil {
		t.Fatal(err)
	}
	admin := e.admin()

	t.Run("admin sees actions, the no-worker notice, no figures yet, empty history", func(t *testing.T) {
		r := e.get(admin, iceMaintURL)
		if r.status != http.StatusOK {
			t.Fatalf("status %d", r.status)
		}
		for _, id := range []string{"run-iceberg_expire_snapshots-dry", "run-iceberg_expire_snapshots", "run-iceberg_remove_orphans-dry", "run-iceberg_remove_orphans",
			"run-iceberg_compact", "run-iceberg_rewrite_manifests", "no-iceberg-worker", "iceberg-not-observed", "iceberg-jobs-empty"} {
			if !r.has(id) {
				t.Errorf("missing %s", id)
			}
		}
	})
	t.Run("reader sees no actions and may not start one", func(t *testing.T) {
		reader := e.reader()
		if r := e.get(reader, iceMaintURL); r.status != http.StatusOK || r.has("iceberg-actions") {
			t.Errorf("status %d, actions shown: %v", r.status, r.has("iceberg-actions"))
		}
		if r := e.post(reader, iceMaintURL+"/iceberg", url.Values{"job_type": {"iceberg_compact"}}); r.status < 400 || r.status >= 500 {
			t.Errorf("reader POST status %d", r.status)
		}
	})
	for _, tc := range []struct {
		name, path, typ string
	}{
		{"unknown job type", iceMaintURL + "/iceberg", "iceberg_explode"},
		{"lance job type", iceMaintURL + "/iceberg", "lance_compact"},
		{"lance table", "/buckets/lbk/namespaces/ns/tables/docs/maintenance/iceberg", "iceberg_compact"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			if r := e.post(admin, tc.path, url.Values{"job_type": {tc.typ}}); r.status < 400 || r.status >= 500 {
				t.Errorf("status %d: %s", r.status, r.body)
			}
		})
	}
	t.Run("a dry run starts a job with dry_run, listed in the history; a second is refused while active", func(t *testing.T) {
		r := e.post(admin, iceMaintURL+"/iceberg", url.Values{"job_type": {"iceberg_remove_orphans"}, "dry_run": {"true"}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		jobs, _, err := e.p.ListJobs(context.Background(), plugin.JobFilter{ObjectID: tbl.ID})
		if err != nil || len(jobs) != 1 || jobs[0].Type != "iceberg_remove_orphans" || jobs[0].Parameters["dry_run"] != "true" || jobs[0].Lane != "iceberg" {
			t.Fatalf("jobs = %+v, %v", jobs, err)
		}
		if r := e.get(admin, iceMaintURL); !r.has("iceberg-job-row") {
			t.Error("the job is not in the history")
		}
		if r := e.post(admin, iceMaintURL+"/iceberg", url.Values{"job_type": {"iceberg_remove_orphans"}}); r.status != http.StatusConflict {
			t.Errorf("second job status %d", r.status)
		}
	})
}

// TestIssue26MaintenanceSaysWhyTableIsSkipped: the Iceberg worker skipped
// an unreadable table with a log line only; its observation now carries the
// reason, which the Maintenance tab shows with the repair command, and the
// health badge is unknown rather than healthy on zero figures.
func TestIssue26MaintenanceSaysWhyTableIsSkipped(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("ice", catalog.FormatIceberg, "ns", "events")
	tbl, err := e.table("ice", "ns", "events")
	if err != nil {
		t.Fatal(err)
	}
	reason := "read the metadata of ns.events: invalid metadata: min snapshots to keep must be greater than 0"
	e.observeTable(tbl, map[string]any{"unreadable": reason})
	r := e.get(e.admin(), iceMaintURL)
	if r.status != http.StatusOK || !r.has("iceberg-unreadable") {
		t.Fatalf("status %d, unreadable notice shown: %v", r.status, r.has("iceberg-unreadable"))
	}
	if got := r.text("iceberg-unreadable"); !strings.Contains(got, reason) || !strings.Contains(got, "floe table repair ice ns events") {
		t.Fatalf("notice = %q", got)
	}
	if r.has("figure-rows") {
		t.Error("zero figures are shown for a table nothing was counted of")
	}
	if page := e.get(e.admin(), "/buckets/ice/namespaces/ns"); !strings.Contains(page.body, "cannot read this table") {
		t.Error("the namespace list does not say the table cannot be read")
	}
}
