package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

// observeTable stores an observation for a table as a worker would.
func (e *workerEnv) observeTable(t catalog.Table, attrs map[string]any) {
	e.t.Helper()
	b, _ := json.Marshal(attrs)
	if _, err := e.obs.Put(observe.Observation{ObjectID: t.ID, Format: t.Format, ObservedAt: time.Now(), WorkerID: "w-obs", Attributes: b}); err != nil {
		e.t.Fatal(err)
	}
}

func TestTableHealthInLists(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("vec", catalog.FormatLance, "prod", "small", "fine", "unseen", "indexed")
	small, _ := e.table("vec", "prod", "small")
	fine, _ := e.table("vec", "prod", "fine")
	indexed, _ := e.table("vec", "prod", "indexed")
	e.seed("other", catalog.FormatLance, "ns", "quiet")
	e.observeTable(small, map[string]any{"rows": 1200, "bytes": 3 << 20, "fragments": 12, "small_fragments": 12, "version": 13, "versions": 13})
	e.observeTable(fine, map[string]any{"rows": 100, "bytes": 1 << 20, "fragments": 1, "small_fragments": 1, "version": 2, "versions": 2})
	e.observeTable(indexed, map[string]any{"rows": 50, "bytes": 1 << 10, "fragments": 1, "small_fragments": 1, "version": 4,
		"indices": []map[string]any{{"name": "v_idx", "type": "IVF_PQ", "columns": []string{"v"}, "indexed_rows": 40, "unindexed_rows": 10}}})
	c := e.admin()

	r := e.get(c, "/buckets/vec/namespaces/prod")
	want := map[string]struct{ health, size, version string }{
		"small":   {"needs-maintenance", "3.0 MiB", "13"},
		"fine":    {"healthy", "1.0 MiB", "2"},
		"unseen":  {"unknown", "—", "—"},
		"indexed": {"attention", "1.0 KiB", "4"},
	}
	for name, w := range want {
		row := r.doc.Find(`[data-table="` + name + `"]`)
		if got := row.Find(`[data-testid="health-badge"]`).AttrOr("data-health", ""); got != w.health {
			t.Errorf("%s health %q, want %q", name, got, w.health)
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="table-size"]`).Text()); got != w.size {
			t.Errorf("%s size %q, want %q", name, got, w.size)
		}
		if got := strings.TrimSpace(row.Find(`[data-testid="table-version"]`).Text()); got != w.version {
			t.Errorf("%s version %q, want %q", name, got, w.version)
		}
	}
	if title := r.doc.Find(`[data-table="small"] [data-testid="health-badge"]`).AttrOr("title", ""); !strings.Contains(title, "small fragments: 12 fragments, threshold 8 fragments") {
		t.Errorf("badge title %q lacks the reason", title)
	}
	if w := strings.TrimSpace(r.doc.Find(`[data-table="indexed"] [data-testid="table-health-whats"]`).Text()); w != "rows not covered by an index" {
		t.Errorf("reasons in the list %q", w)
	}
	if title := r.doc.Find(`[data-table="unseen"] [data-testid="health-badge"]`).AttrOr("title", ""); title != "unknown, not observed yet" {
		t.Errorf("unobserved title %q", title)
	}

	r = e.get(c, "/buckets/vec/namespaces/prod?health=attention")
	var names []string
	for _, n := range r.doc.Find(`[data-testid="table-row"]`).Nodes {
		for _, a := range n.Attr {
			if a.Key == "data-table" {
				names = append(names, a.Val)
			}
		}
	}
	if strings.Join(names, ",") != "indexed,small" || !strings.Contains(r.text("tables-total"), "2 tables") {
		t.Errorf("attention filter: %v, %q", names, r.text("tables-total"))
	}
	if !r.has("health-filter-all") {
		t.Error("no way back to every table")
	}

	// A row Fix for the tables that need a look, for writers only.
	if !r.doc.Find(`[data-table="small"] [data-testid="row-fix-form"]`).Is("form") || r.doc.Find(`[data-table="fine"] [data-testid="row-fix-form"]`).Length() != 0 {
		t.Error("row Fix should show on small only")
	}
	if rr := e.get(e.reader(), "/buckets/vec/namespaces/prod"); rr.has("row-fix-form") {
		t.Error("a reader gets a row Fix")
	}
	// No worker offers lance_compact here: the plain form lands on the table
	// page, which says the job waits for one.
	rr := e.post(c, "/buckets/vec/namespaces/prod/tables/small/fix", nil)
	if loc := rr.header.Get("Location"); rr.status != http.StatusSeeOther || loc != "/buckets/vec/namespaces/prod/tables/small" {
		t.Fatalf("row fix: %d to %q", rr.status, loc)
	}
	if page := e.get(c, "/buckets/vec/namespaces/prod/tables/small"); !strings.Contains(page.body, "Fix submitted 1 job(s); they wait until a worker that runs them connects.") {
		t.Error("the table page does not say the job waits")
	}
	if ctl := e.get(c, "/buckets/vec/namespaces/prod/tables/small/fix"); !ctl.has("health-fix-waiting") || ctl.doc.Find(`[data-testid="health-fix-job"]`).Length() != 1 {
		t.Error("the Fix control does not show the waiting job")
	}

	b := e.get(c, "/buckets")
	row := b.doc.Find(`[data-bucket="vec"]`)
	for testid, w := range map[string]string{"bucket-tables": "4", "bucket-rows": "1,350", "bucket-size": "4.0 MiB", "bucket-attention": "2"} {
		if got := strings.TrimSpace(row.Find(`[data-testid="` + testid + `"]`).Text()); got != w {
			t.Errorf("vec %s %q, want %q", testid, got, w)
		}
	}
	if got := strings.TrimSpace(b.doc.Find(`[data-bucket="other"] [data-testid="bucket-rows"]`).Text()); got != "—" {
		t.Errorf("unobserved bucket rows %q, want a dash", got)
	}
}

// fixableLanceTable is a console with a Lance worker that compacts and
// cleans up, and table vec/prod/name observed with attrs and 20 versions
// made age ago (returned as the observed history), so cleanup is one of
// its reasons.
func fixableLanceTable(t *testing.T, name string, age time.Duration, attrs map[string]any) (*workerEnv, catalog.Table, []map[string]any) {
	e := newWorkerEnv(t, plugin.Options{})
	e.worker(plugintest.Config{WorkerID: "w-lance",
		Capabilities: []*pluginpb.Capability{
			{JobType: "lance_compact", Lane: "lance", CanExecute: true, MaxExecuteSlots: 2},
			{JobType: "lance_cleanup", Lane: "lance", CanExecute: true, MaxExecuteSlots: 2},
		}})
	tb := e.lanceTable("vec", "prod", name)
	old := time.Now().Add(-age)
	var hist []map[string]any
	for v := 1; v <= 20; v++ {
		hist = append(hist, map[string]any{"version": v, "timestamp": old.Add(time.Duration(v) * time.Minute).Format(time.RFC3339)})
	}
	attrs["version"], attrs["versions"], attrs["history"] = 20, 20, hist
	e.observeTable(tb, attrs)
	return e, tb, hist
}

func TestTableHealthFix(t *testing.T) {
	e, tb, hist := fixableLanceTable(t, "small", 30*24*time.Hour, map[string]any{"rows": 12, "fragments": 12, "small_fragments": 12})
	url := "/buckets/vec/namespaces/prod/tables/small"
	admin := e.admin()

	page := e.get(admin, url)
	if got := page.doc.Find(`[data-testid="health-panel"] [data-testid="health-badge"]`).AttrOr("data-health", ""); got != "needs-maintenance" {
		t.Fatalf("table page health %q", got)
	}
	rules := map[string]bool{}
	for _, n := range page.doc.Find(`[data-testid="health-reason"]`).Nodes {
		for _, a := range n.Attr {
			if a.Key == "data-rule" {
				rules[a.Val] = true
			}
		}
	}
	if !rules["lance.small_fragments"] || !rules["lance.reclaimable_versions"] {
		t.Fatalf("reasons %v", rules)
	}

	// A reader sees the reasons but no button, and may not press it anyway.
	reader := e.reader()
	if r := e.get(reader, url+"/fix"); r.has("health-fix-button") {
		t.Error("a reader gets a Fix button")
	}
	if r := e.post(reader, url+"/fix", nil); r.status != http.StatusForbidden {
		t.Errorf("a reader's Fix: %d, want 403", r.status)
	}
	ctl := e.get(admin, url+"/fix")
	form := ctl.doc.Find(`[data-testid="health-fix-form"]`)
	if form.Length() != 1 || !strings.Contains(form.AttrOr("hx-confirm", ""), "lance_cleanup") {
		t.Fatalf("fix form %q (cleanup deletes versions: it must ask first)", form.AttrOr("hx-confirm", "none"))
	}

	r := e.do(admin, "POST", url+"/fix", nil, map[string]string{"HX-Request": "true"})
	if r.status != http.StatusOK || r.doc.Find(`[data-testid="health-fix-job"]`).Length() != 2 || r.has("health-fix-button") {
		t.Fatalf("fix: %d, %d jobs shown\n%s", r.status, r.doc.Find(`[data-testid="health-fix-job"]`).Length(), r.body)
	}
	jobs, _, err := e.p.ListJobs(context.Background(), plugin.JobFilter{ObjectID: tb.ID})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]string{}
	for _, j := range jobs {
		got[j.Type] = j.Parameters
	}
	if _, ok := got["lance_compact"]; !ok || got["lance_cleanup"]["older_than"] != "168h" || got["lance_cleanup"]["retain_versions"] != "10" {
		t.Errorf("jobs %v", got)
	}
	// Pressing again while they run follows them instead of doubling, and
	// a compaction submitted another way (Compact now, the task API) counts too.
	if _, err := e.p.SubmitJob(context.Background(), plugin.JobSpec{Type: "lance_compact", ObjectID: tb.ID, DedupeKey: "lance-task:t1"}); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Type == "lance_compact" {
			if _, err := e.p.CancelJob(context.Background(), j.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.do(admin, "POST", url+"/fix", nil, map[string]string{"HX-Request": "true"})
	jobs, _, _ = e.p.ListJobs(context.Background(), plugin.JobFilter{ObjectID: tb.ID})
	active := 0
	for _, j := range jobs {
		if j.State.Active() {
			active++
		}
	}
	if len(jobs) != 3 || active != 2 {
		t.Errorf("%d jobs (%d active) after a second press, want the canceled Fix compaction, the other compaction and the cleanup", len(jobs), active)
	}

	// The worker re-observes after the jobs: the badge turns healthy.
	e.observeTable(tb, map[string]any{"rows": 12, "fragments": 1, "small_fragments": 1, "version": 22, "versions": 10,
		"history": hist[10:]})
	if got := e.get(admin, url).doc.Find(`[data-testid="health-panel"] [data-testid="health-badge"]`).AttrOr("data-health", ""); got != "healthy" {
		t.Errorf("after the fix: %q", got)
	}
}

// A console without workers shows no health (nothing was observed to judge)
// and refuses Fix with a sentence, not a 500.
func TestTableHealthWithoutWorkers(t *testing.T) {
	e := newEnv(t, allSurfaces)
	e.seed("vec", catalog.FormatLance, "prod", "items")
	c := e.admin()
	if r := e.get(c, "/buckets/vec/namespaces/prod/tables/items"); r.status != http.StatusOK || r.has("health-panel") {
		t.Errorf("table page: %d, health panel %v", r.status, r.has("health-panel"))
	}
	r := e.post(c, "/buckets/vec/namespaces/prod/tables/items/fix", nil)
	if r.status != http.StatusConflict || !strings.Contains(r.body, "runs no workers") {
		t.Errorf("fix: %d %s", r.status, r.text("error-message"))
	}
	if r := e.post(c, "/buckets/vec/namespaces/prod/tables/nope/fix", nil); r.status != http.StatusNotFound {
		t.Errorf("fix on a missing table: %d", r.status)
	}
}

func TestBucketsKeysetPages(t *testing.T) {
	e := newEnv(t, allSurfaces)
	for i := range 130 {
		e.seed(fmt.Sprintf("b%03d", i), catalog.FormatLance, "")
	}
	c := e.admin()
	cases := []struct {
		query       string
		rows        int
		first, last string
		next        string
		firstLink   bool
	}{
		{"", 100, "b000", "b099", "/buckets?after=b099", false},
		{"?after=b099", 30, "b100", "b129", "", true},
		{"?after=zzz", 0, "", "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.get(c, "/buckets"+tc.query)
			rows := r.doc.Find(`[data-testid="bucket-row"]`)
			if r.status != http.StatusOK || rows.Length() != tc.rows {
				t.Fatalf("%d: %d rows, want %d", r.status, rows.Length(), tc.rows)
			}
			if tc.rows > 0 && (rows.First().AttrOr("data-bucket", "") != tc.first || rows.Last().AttrOr("data-bucket", "") != tc.last) {
				t.Errorf("rows %s…%s, want %s…%s", rows.First().AttrOr("data-bucket", ""), rows.Last().AttrOr("data-bucket", ""), tc.first, tc.last)
			}
			if next := r.doc.Find(`[data-testid="page-next"]`).AttrOr("href", ""); next != tc.next {
				t.Errorf("next %q, want %q", next, tc.next)
			}
			if r.has("page-first") != tc.firstLink {
				t.Errorf("first link %v, want %v", r.has("page-first"), tc.firstLink)
			}
		})
	}
}

func TestAttentionFilterPages(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	var names []string
	for i := range 61 {
		names = append(names, fmt.Sprintf("t%03d", i))
	}
	e.seed("vec", catalog.FormatLance, "prod", names...)
	for i, n := range names {
		tb, _ := e.table("vec", "prod", n)
		small := 12
		if i == 60 {
			small = 1 // the last one is fine: 60 need a look
		}
		e.observeTable(tb, map[string]any{"fragments": small, "small_fragments": small})
	}
	c := e.admin()
	r := e.get(c, "/buckets/vec/namespaces/prod?health=attention")
	if n := r.doc.Find(`[data-testid="table-row"]`).Length(); n != 50 || !strings.Contains(r.text("tables-total"), "60 tables") {
		t.Fatalf("first page: %d rows, %q", n, r.text("tables-total"))
	}
	next := r.doc.Find(`[data-testid="page-next"]`).AttrOr("href", "")
	if next != "/buckets/vec/namespaces/prod?after=t049&health=attention" {
		t.Fatalf("next %q", next)
	}
	r = e.get(c, next)
	if n := r.doc.Find(`[data-testid="table-row"]`).Length(); n != 10 || r.has("page-next") || !r.has("page-first") {
		t.Errorf("second page: %d rows, next %v, first %v", n, r.has("page-next"), r.has("page-first"))
	}
	if r.doc.Find(`[data-table="t060"]`).Length() != 0 {
		t.Error("a healthy table is listed under needs attention")
	}
}

func TestIcebergTableHealth(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("lake", catalog.FormatIceberg, "raw", "events")
	tb, err := e.table("lake", "raw", "events")
	if err != nil {
		t.Fatal(err)
	}
	// What the Iceberg worker publishes (workers/iceberg/observe.go).
	e.observeTable(tb, map[string]any{"rows": 20000, "data_files": 40, "data_bytes": 5 << 20, "small_files": 30, "small_bytes": 3 << 20,
		"max_small_files_per_partition": 30, "snapshots": 12, "expirable_snapshots": 6, "manifests": 4, "data_manifests": 4,
		"current_snapshot_id": 7311, "format_version": 2})
	admin := e.admin()
	page := e.get(admin, "/buckets/lake/namespaces/raw/tables/events")
	if got := page.doc.Find(`[data-testid="health-panel"] [data-testid="health-badge"]`).AttrOr("data-health", ""); got != "needs-maintenance" {
		t.Fatalf("iceberg health %q (status %d)", got, page.status)
	}
	if n := page.doc.Find(`[data-testid="health-reason"]`).Length(); n != 2 {
		t.Errorf("%d reasons, want small files and expirable snapshots", n)
	}
	ctl := e.get(admin, "/buckets/lake/namespaces/raw/tables/events/fix")
	if c := ctl.doc.Find(`[data-testid="health-fix-form"]`).AttrOr("hx-confirm", ""); !strings.Contains(c, "iceberg_expire_snapshots") || strings.Contains(c, "iceberg_compact") {
		t.Errorf("confirmation %q should name the expiry only", c)
	}
	if !ctl.has("table-refresh") {
		t.Error("an Iceberg page's Fix control must carry the panel refresh (no Compact now does)")
	}
	list := e.get(admin, "/buckets/lake/namespaces/raw")
	row := list.doc.Find(`[data-table="events"]`)
	if v := strings.TrimSpace(row.Find(`[data-testid="table-version"]`).Text()); v != "7311" {
		t.Errorf("snapshot %q", v)
	}
	if r := strings.TrimSpace(row.Find(`[data-testid="table-rows"]`).Text()); r != "20,000" {
		t.Errorf("rows %q", r)
	}
}

// A job store that refuses (here: the plugin shut down) is a 503 with a
// sentence, never the internal cause.
func TestTableHealthFixStoreRefuses(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.seed("vec", catalog.FormatLance, "prod", "small")
	tb, _ := e.table("vec", "prod", "small")
	e.observeTable(tb, map[string]any{"fragments": 12, "small_fragments": 12})
	admin := e.admin()
	ctx, cancel := context.WithTimeout(context.Background(), workerWait)
	defer cancel()
	if err := e.p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.do(admin, "POST", "/buckets/vec/namespaces/prod/tables/small/fix", nil, map[string]string{"HX-Request": "true"})
	if r.status != http.StatusServiceUnavailable || r.text("health-fix-notice") != "A job could not be submitted. The error is in the server log." {
		t.Errorf("%d %q", r.status, r.text("health-fix-notice"))
	}
	if strings.Contains(strings.ToLower(r.body), "closed") {
		t.Errorf("the body names the internal cause:\n%s", r.body)
	}
}
