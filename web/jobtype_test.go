package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/floe/floe/internal/runtest"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

func ptrF(v float64) *float64 { return &v }

// everyFieldDescriptor has one field of every type and widget, with the
// rules the server must enforce.
func everyFieldDescriptor() *pluginpb.Descriptor {
	return &pluginpb.Descriptor{
		JobType: "lance_demo", DescriptorVersion: "v1", DisplayName: "Demo job", Description: "Exercises every field.",
		Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{
			{Name: "main", Title: "Main", Fields: []*pluginpb.FormField{
				{Name: "label", Label: "Label", Type: pluginpb.FieldType_FIELD_TYPE_STRING, Pattern: "[a-z]+", Required: true, DefaultValue: "abc", Help: "Lower-case letters."},
				{Name: "secret", Label: "Secret", Type: pluginpb.FieldType_FIELD_TYPE_STRING, Widget: "password"},
				{Name: "notes", Label: "Notes", Type: pluginpb.FieldType_FIELD_TYPE_STRING, Widget: "textarea", Max: ptrF(20)},
				{Name: "target_rows", Label: "Target rows", Type: pluginpb.FieldType_FIELD_TYPE_INT, Min: ptrF(1), Max: ptrF(1000), DefaultValue: "100", Required: true},
				{Name: "ratio", Label: "Ratio", Type: pluginpb.FieldType_FIELD_TYPE_FLOAT, Min: ptrF(0), Max: ptrF(1), DefaultValue: "0.5"},
				{Name: "advanced", Label: "Advanced", Type: pluginpb.FieldType_FIELD_TYPE_BOOL, DefaultValue: "false"},
				{Name: "mode", Label: "Mode", Type: pluginpb.FieldType_FIELD_TYPE_SELECT, DefaultValue: "fast", Required: true,
					Options: []*pluginpb.SelectOption{{Value: "fast", Label: "Fast"}, {Value: "thorough", Label: "Thorough"}}},
			}},
			{Name: "more", Title: "More", Fields: []*pluginpb.FormField{
				{Name: "min_age", Label: "Minimum age", Type: pluginpb.FieldType_FIELD_TYPE_DURATION, Min: ptrF(60), DefaultValue: "1h"},
				{Name: "columns", Label: "Columns", Type: pluginpb.FieldType_FIELD_TYPE_STRING_LIST, Pattern: "[a-z_]+", DefaultValue: `["a","b"]`},
				{Name: "deep_level", Label: "Deep level", Type: pluginpb.FieldType_FIELD_TYPE_INT, DefaultValue: "2", Min: ptrF(1),
					VisibleWhen: &pluginpb.VisibleWhen{Field: "advanced", Equals: "true"}},
			}},
		}},
		Runtime: &pluginpb.RuntimeDefaults{DetectionIntervalSeconds: 600, MaxJobsPerDetection: 10, GlobalConcurrency: 2, PerWorkerConcurrency: 1},
	}
}

func (e *workerEnv) demoWorker(onDetect func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error)) *plugintest.Worker {
	e.t.Helper()
	w := e.worker(plugintest.Config{WorkerID: "w-demo",
		Capabilities: []*pluginpb.Capability{{JobType: "lance_demo", Lane: "lance", CanDetect: true, CanExecute: true, DescriptorVersion: "v1"}},
		Descriptors:  map[string]*pluginpb.Descriptor{"lance_demo": everyFieldDescriptor()}, OnDetect: onDetect})
	e.waitFor("descriptor stored", func() bool { _, ok := e.p.Descriptor("lance_demo"); return ok })
	return w
}

// validForm is the form as a browser submits it with valid values.
func validForm() url.Values {
	return url.Values{
		"s_label": {"hello"}, "s_secret": {"pw"}, "s_notes": {"short"}, "s_target_rows": {"500"}, "s_ratio": {"0.25"},
		"s_advanced": {"false", "true"}, "s_mode": {"thorough"}, "s_min_age": {"90m"}, "s_columns": {"id\nvector"},
		"s_deep_level": {"3"},
		"rt_enabled":   {"false", "true"}, "rt_detection_interval_seconds": {"300"}, "rt_detection_timeout_seconds": {"60"},
		"rt_execution_timeout_seconds": {"3600"}, "rt_max_jobs_per_detection": {"5"}, "rt_global_concurrency": {"3"},
		"rt_per_worker_concurrency": {"1"}, "rt_retries": {"2"}, "rt_retry_backoff_seconds": {"30"},
	}
}

func TestJobTypeForm(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	e.demoWorker(nil)
	c := e.admin()

	t.Run("renders every field type from the descriptor", func(t *testing.T) {
		r := e.get(c, "/job-types/lance_demo")
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		kinds := map[string]string{"s_label": "text", "s_secret": "password", "s_notes": "textarea", "s_target_rows": "number",
			"s_ratio": "number", "s_advanced": "checkbox", "s_mode": "select", "s_min_age": "duration", "s_columns": "list", "s_deep_level": "number"}
		for input, kind := range kinds {
			f := r.doc.Find(`[data-testid="field-` + input + `"]`)
			if got := f.AttrOr("data-kind", ""); got != kind {
				t.Errorf("%s: kind %q, want %q", input, got, kind)
			}
		}
		if r.doc.Find(`input[name="s_target_rows"][min="1"][max="1000"]`).Length() != 1 {
			t.Error("int field lacks min/max")
		}
		if r.doc.Find(`select[name="s_mode"] option[value="thorough"]`).Length() != 1 {
			t.Error("select options missing")
		}
		if got := r.doc.Find(`textarea[name="s_columns"]`).Text(); got != "a\nb" {
			t.Errorf("string list shown as %q, want one per line", got)
		}
		deep := r.doc.Find(`[data-testid="field-s_deep_level"]`)
		if _, hidden := deep.Attr("hidden"); !hidden || deep.AttrOr("data-visible-when", "") != "s_advanced" || deep.AttrOr("data-visible-equals", "") != "true" {
			html, _ := goquery.OuterHtml(deep)
			t.Errorf("visible-when field not hidden or not wired: %s", html)
		}
		if !strings.Contains(r.body, "Lower-case letters.") || !strings.Contains(r.body, "js/jobtype.js") {
			t.Error("help text or visible-when script missing")
		}
		for _, rt := range []string{"rt_enabled", "rt_detection_interval_seconds", "rt_detection_timeout_seconds", "rt_execution_timeout_seconds",
			"rt_max_jobs_per_detection", "rt_global_concurrency", "rt_per_worker_concurrency", "rt_retries", "rt_retry_backoff_seconds"} {
			if !r.has("field-" + rt) {
				t.Errorf("runtime field %s missing", rt)
			}
		}
		if !r.has("detect-form") || !r.has("run-now-form") {
			t.Error("run buttons missing")
		}
	})

	t.Run("server-side validation puts messages at fields", func(t *testing.T) {
		bad := validForm()
		bad.Set("s_label", "UPPER")
		bad.Set("s_target_rows", "0")
		bad.Set("s_ratio", "lots")
		bad.Set("s_mode", "reckless")
		bad.Set("s_min_age", "5s")
		bad.Set("s_columns", "ok\nNot OK")
		bad.Set("s_notes", strings.Repeat("x", 21))
		bad.Set("rt_global_concurrency", "0")
		bad.Set("rt_retries", "two")
		r := e.post(c, "/job-types/lance_demo", bad)
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422", r.status)
		}
		want := map[string]string{"s_label": "pattern", "s_target_rows": "at least 1", "s_ratio": "number", "s_mode": "one of",
			"s_min_age": "at least 60", "s_columns": "Not OK", "s_notes": "at most 20", "rt_global_concurrency": "between 1 and 1000",
			"rt_retries": "whole number"}
		for field, sub := range want {
			if got := r.text("error-" + field); !strings.Contains(got, sub) {
				t.Errorf("error at %s = %q, want it to mention %q", field, got, sub)
			}
		}
		if got := r.doc.Find(`input[name="s_label"]`).AttrOr("value", ""); got != "UPPER" {
			t.Errorf("typed value not kept: %q", got)
		}
		if st, _ := e.p.Settings("lance_demo"); st.Values["label"] == "UPPER" {
			t.Error("invalid values were saved")
		}
	})

	t.Run("valid values persist", func(t *testing.T) {
		r := e.post(c, "/job-types/lance_demo", validForm())
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/job-types/lance_demo?saved=1" {
			t.Fatalf("status %d location %q: %s", r.status, r.header.Get("Location"), r.body)
		}
		st, err := e.p.Settings("lance_demo")
		if err != nil {
			t.Fatal(err)
		}
		if st.Values["label"] != "hello" || st.Values["advanced"] != "true" || st.Values["mode"] != "thorough" ||
			st.Values["columns"] != `["id","vector"]` || st.Values["deep_level"] != "3" || st.Values["min_age"] != "1h30m0s" {
			t.Errorf("values %v", st.Values)
		}
		if !st.Runtime.Enabled || st.Runtime.GlobalConcurrency != 3 || st.Runtime.Retries != 2 || st.Runtime.DetectionInterval.Seconds() != 300 {
			t.Errorf("runtime %+v", st.Runtime)
		}
		page := e.get(c, "/job-types/lance_demo?saved=1")
		if !page.has("settings-saved") || page.doc.Find(`input[name="s_advanced"][type="checkbox"][checked]`).Length() != 1 {
			t.Error("saved notice or stored checkbox state missing")
		}
		if _, hidden := page.doc.Find(`[data-testid="field-s_deep_level"]`).Attr("hidden"); hidden {
			t.Error("field shown by visible-when is still hidden")
		}
	})

	t.Run("readonly sees no buttons and cannot save", func(t *testing.T) {
		rc := e.reader()
		if page := e.get(rc, "/job-types/lance_demo"); page.has("settings-submit") || page.has("detect-form") {
			t.Error("readonly user sees write controls")
		}
		if r := e.post(rc, "/job-types/lance_demo", validForm()); r.status != http.StatusForbidden {
			t.Errorf("readonly save: status %d", r.status)
		}
	})

	t.Run("unknown type is a 404 page", func(t *testing.T) {
		r := e.get(c, "/job-types/no_such_type")
		if r.status != http.StatusNotFound || !strings.Contains(r.text("error-message"), "no_such_type") {
			t.Errorf("status %d: %s", r.status, r.text("error-message"))
		}
	})
}

func TestJobTypeRun(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	tbl := e.lanceTable("vec", "prod", "docs")
	e.demoWorker(func(ctx context.Context, d *pluginpb.Detect) ([]*pluginpb.Proposal, error) {
		return []*pluginpb.Proposal{{ObjectId: tbl.ID, DedupeKey: "demo:" + tbl.ID, Summary: "12 small fragments",
			Parameters: map[string]string{"target_rows": "100"}}}, nil
	})
	c := e.admin()
	htmx := map[string]string{"HX-Request": "true"}

	r := e.do(c, "POST", "/job-types/lance_demo/detect", url.Values{}, htmx)
	if r.status != http.StatusOK || r.has("settings-form") {
		t.Fatalf("detect: status %d, want a fragment: %s", r.status, r.body)
	}
	row := r.doc.Find(`[data-testid="proposal-row"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "12 small fragments") || row.Find(`a[href="/buckets/vec/namespaces/prod/tables/docs"]`).Length() != 1 {
		t.Fatalf("proposal not shown with its table: %s", r.body)
	}
	if jobs, _, _ := e.p.ListJobs(t.Context(), plugin.JobFilter{Type: "lance_demo"}); len(jobs) != 0 {
		t.Fatalf("detection queued %d jobs", len(jobs))
	}

	r = e.do(c, "POST", "/job-types/lance_demo/run", url.Values{}, htmx)
	if r.status != http.StatusOK || !strings.Contains(r.text("run-now-result"), "Queued 1 job") || !r.has("run-now-jobs-link") {
		t.Fatalf("run now: status %d: %s", r.status, r.body)
	}
	if jobs, _, _ := e.p.ListJobs(t.Context(), plugin.JobFilter{Type: "lance_demo"}); len(jobs) != 1 {
		t.Fatalf("run now queued %d jobs, want 1", len(jobs))
	}
	r = e.do(c, "POST", "/job-types/lance_demo/run", url.Values{}, htmx)
	if !strings.Contains(r.text("run-now-result"), "Queued 0 jobs") || !strings.Contains(r.text("run-now-result"), "1 already queued") {
		t.Errorf("second run now: %q", r.text("run-now-result"))
	}

	t.Run("detection that proposes nothing says why per table", func(t *testing.T) {
		e2 := newWorkerEnv(t, plugin.Options{})
		quiet := e2.lanceTable("vec", "prod", "quiet")
		e2.worker(plugintest.Config{WorkerID: "w-why",
			Capabilities:  []*pluginpb.Capability{{JobType: "lance_demo", Lane: "lance", CanDetect: true, CanExecute: true, DescriptorVersion: "v1"}},
			Descriptors:   map[string]*pluginpb.Descriptor{"lance_demo": everyFieldDescriptor()},
			DetectSkipped: []*pluginpb.Proposal{{ObjectId: quiet.ID, Summary: "5 fragments (5 small), threshold 8"}}})
		e2.waitFor("descriptor stored", func() bool { _, ok := e2.p.Descriptor("lance_demo"); return ok })
		r := e2.do(e2.admin(), "POST", "/job-types/lance_demo/detect", url.Values{}, htmx)
		if r.status != http.StatusOK || !r.has("proposals-empty") {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		row := r.doc.Find(`[data-testid="skipped-row"]`)
		if row.Length() != 1 || row.Find(`[data-testid="skipped-why"]`).Text() != "5 fragments (5 small), threshold 8" ||
			row.Find(`a[href="/buckets/vec/namespaces/prod/tables/quiet"]`).Length() != 1 {
			t.Fatalf("the reason is not listed with its table: %s", r.body)
		}
	})

	t.Run("no worker: the sentence says so", func(t *testing.T) {
		e2 := newWorkerEnv(t, plugin.Options{})
		w := e2.demoWorker(nil)
		w.Close()
		e2.waitFor("worker gone", func() bool { wi, _ := e2.p.Worker("w-demo"); return wi.Status == plugin.WorkerDisconnected })
		r := e2.do(e2.admin(), "POST", "/job-types/lance_demo/detect", url.Values{}, htmx)
		if r.status != http.StatusConflict || !strings.Contains(r.text("detect-error"), "start a worker") {
			t.Errorf("status %d: %q", r.status, r.text("detect-error"))
		}
	})
}

// A job type known from its stored settings but with no descriptor yet
// (its worker has not connected since) says a worker must connect first.
func TestJobTypeWithoutDescriptor(t *testing.T) {
	e := newWorkerEnv(t, plugin.Options{})
	// A plugin's Load reads settings rows at start; write one, then start
	// a second plugin on the same database as a restarted console would.
	if _, err := e.db.ExecContext(context.Background(), `INSERT INTO plugin_job_settings(job_type, values_json, runtime_json, updated_at) VALUES ('lance_old', '{}', '{}', 0)`); err != nil {
		t.Fatal(err)
	}
	p2, err := plugin.New(plugin.Config{DB: e.db, Store: e.store, Options: plugin.Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{DB: e.db, Store: e.store, Surfaces: allSurfaces, Plugin: p2})
	if err != nil {
		t.Fatal(err)
	}
	runtest.Start(t, p2, s)
	e2 := &env{t: t, db: e.db, store: e.store, srv: httptest.NewServer(s.Handler()), server: s}
	t.Cleanup(e2.srv.Close)
	r := e2.get(e2.admin(), "/job-types/lance_old")
	if r.status != http.StatusOK || !strings.Contains(r.text("job-type-no-descriptor"), "A worker must connect first") || r.has("settings-form") {
		t.Errorf("status %d: %s", r.status, r.body)
	}
}
