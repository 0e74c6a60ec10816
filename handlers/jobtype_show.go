package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/form"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// Form input prefixes keep a worker's field names apart from the
// scheduler's (a worker may well call a field "retries").
const (
	settingPrefix = "s_"
	runtimePrefix = "rt_"
)

// ShowJobType renders /job-types/{type}: the settings form built from the
// worker's descriptor, the scheduler's runtime settings and the run buttons.
func (h *Handlers) ShowJobType(w http.ResponseWriter, r *http.Request) {
	info, ok := h.jobTypeInfo(w, r)
	if !ok {
		return
	}
	st, err := h.plugin.Settings(info.JobType)
	if err != nil && !errors.Is(err, plugin.ErrUnknownJobType) {
		h.fail(w, r, err)
		return
	}
	v := h.jobTypeView(r, info, st)
	v.Saved = r.URL.Query().Get("saved") == "1"
	h.render(w, r, http.StatusOK, views.JobTypePage(v))
}

// SaveJobType validates the form against the descriptor (min/max, options,
// pattern, required) and the runtime limits; a failure re-renders the form
// with 422 and each message at its field.
func (h *Handlers) SaveJobType(w http.ResponseWriter, r *http.Request) {
	info, ok := h.jobTypeInfo(w, r)
	if !ok {
		return
	}
	if info.Descriptor == nil {
		h.showError(w, r, http.StatusConflict, "No settings form yet", "A worker that offers "+info.JobType+" must connect first: its settings form comes from the worker's descriptor.")
		return
	}
	if err := r.ParseForm(); err != nil {
		if tl := bodyTooLarge(err); tl != nil {
			h.fail(w, r, tl)
			return
		}
		h.showError(w, r, http.StatusBadRequest, "Unreadable form", "The form could not be read; reload the page and try again.")
		return
	}
	values := formText(info.Descriptor.Fields(), r.PostForm, settingPrefix)
	rt, errs := parseRuntime(r)
	var saveErrs map[string]string
	if len(errs) == 0 {
		var err error
		_, saveErrs, err = h.plugin.SaveSettings(r.Context(), info.JobType, values, rt)
		if err != nil {
			h.fail(w, r, err)
			return
		}
	} else { // nothing is saved; still check everything so each field gets its message at once
		_, saveErrs = plugin.ValidateSettings(*info.Descriptor, values)
		for k, msg := range plugin.ValidateRuntime(rt) {
			if saveErrs == nil {
				saveErrs = map[string]string{}
			}
			saveErrs[k] = msg
		}
	}
	for k, msg := range saveErrs {
		if runtimeKeys[k] {
			if _, unparsed := errs[runtimePrefix+k]; !unparsed {
				errs[runtimePrefix+k] = msg
			}
		} else {
			errs[settingPrefix+k] = msg
		}
	}
	if len(errs) > 0 {
		h.logError(r, http.StatusUnprocessableEntity, fmt.Errorf("job type %s settings refused: %d fields", info.JobType, len(errs)))
		// Show what was typed, not the stored value.
		v := h.jobTypeView(r, info, plugin.Settings{JobType: info.JobType, Values: values})
		v.Runtime = runtimeFromForm(r)
		v.Errors = errs
		h.render(w, r, http.StatusUnprocessableEntity, views.JobTypePage(v))
		return
	}
	redirect(w, r, views.JobTypeURL(info.JobType)+"?saved=1")
}

// jobTypeInfo finds the job type named in the URL, answering the request
// itself (and returning false) when there is no plugin channel or no such
// type.
func (h *Handlers) jobTypeInfo(w http.ResponseWriter, r *http.Request) (plugin.JobTypeInfo, bool) {
	name := r.PathValue("type")
	if h.plugin == nil {
		h.render(w, r, http.StatusOK, views.EmptyPage(views.EmptyView{
			Page: h.page(r, name, "workers"), Heading: "Job type " + name, TestID: "job-type-empty",
			Message: "This console runs without the plugin channel, so no worker can offer the job type " + name + ". Its settings form is rendered from the descriptor a worker sends when it connects; start floe serve with a --grpc address (make run does).",
		}))
		return plugin.JobTypeInfo{}, false
	}
	for _, jt := range h.plugin.JobTypes() {
		if jt.JobType == name {
			return jt, true
		}
	}
	h.logError(r, http.StatusNotFound, fmt.Errorf("unknown job type %q", name))
	h.showError(w, r, http.StatusNotFound, "No such job type", "No worker has offered a job type called "+name+". Job types appear when a worker that offers them connects; the Workers page lists the known ones.")
	return plugin.JobTypeInfo{}, false
}

func (h *Handlers) jobTypeView(r *http.Request, info plugin.JobTypeInfo, st plugin.Settings) views.JobTypeView {
	v := views.JobTypeView{Page: h.page(r, info.DisplayName, "workers"), Name: info.JobType, DisplayName: info.DisplayName,
		Description: info.Description, Lane: info.Lane, Workers: info.Workers, Described: info.Descriptor != nil,
		Stored: st.Stored, UpdatedAt: st.UpdatedAt, Runtime: runtimeForm(st.Runtime)}
	// A job type's settings and runs are maintenance everywhere.
	v.CanWrite = h.Can(r.Context(), identity.Maintain, identity.Resource{})
	if info.Descriptor == nil {
		return v
	}
	for _, s := range info.Descriptor.Sections {
		sec := views.SettingSection{Title: s.Title, Description: s.Description,
			Fields: settingFields(info.Descriptor.Fields(), s.Fields, st.Values, !v.CanWrite)}
		if sec.Title == "" {
			sec.Title = s.Name
		}
		v.Sections = append(v.Sections, sec)
	}
	return v
}

// settingFields are one section's fields as inputs showing values (stored or
// typed; a missing one shows the default); all are every section's fields,
// which conditions may read.
func settingFields(all, section []form.Field, values map[string]string, readOnly bool) []views.FieldView {
	text := make(map[string]string, len(all))
	for _, f := range all {
		v, ok := values[f.Name]
		if !ok {
			v = form.Text(f.Default)
		}
		if f.Type == form.StringList {
			v = listLines(v)
		}
		text[f.Name] = v
	}
	inputs := fieldViews(all, text, inputNaming{prefix: settingPrefix, idPrefix: "in-", readOnly: readOnly,
		testIDs: func(name string) (string, string) { return "field-" + name, "" }})
	out := make([]views.FieldView, 0, len(section))
	for _, in := range inputs {
		if _, ok := form.Find(section, in.Name); ok {
			out = append(out, in)
		}
	}
	return out
}

// listLines shows a stored JSON list one item per line.
func listLines(v string) string {
	var items []string
	if strings.HasPrefix(strings.TrimSpace(v), "[") && json.Unmarshal([]byte(v), &items) == nil {
		return strings.Join(items, "\n")
	}
	return v
}

// runtimeKeys are the plugin's names for the scheduler's settings.
var runtimeKeys = map[string]bool{"enabled": true, "detection_interval_seconds": true, "detection_timeout_seconds": true,
	"execution_timeout_seconds": true, "max_jobs_per_detection": true, "global_concurrency": true,
	"per_worker_concurrency": true, "retries": true, "retry_backoff_seconds": true}

func runtimeForm(rt plugin.Runtime) views.RuntimeForm {
	sec := func(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
	return views.RuntimeForm{Enabled: rt.Enabled, DetectionInterval: sec(rt.DetectionInterval), DetectionTimeout: sec(rt.DetectionTimeout),
		ExecutionTimeout: sec(rt.ExecutionTimeout), MaxJobsPerDetection: strconv.Itoa(rt.MaxJobsPerDetection),
		GlobalConcurrency: strconv.Itoa(rt.GlobalConcurrency), PerWorkerConcurrency: strconv.Itoa(rt.PerWorkerConcurrency),
		Retries: strconv.Itoa(rt.Retries), RetryBackoff: sec(rt.RetryBackoff)}
}

func runtimeFromForm(r *http.Request) views.RuntimeForm {
	g := func(k string) string { return strings.TrimSpace(lastValue(r, runtimePrefix+k)) }
	return views.RuntimeForm{Enabled: g("enabled") == "true", DetectionInterval: g("detection_interval_seconds"),
		DetectionTimeout: g("detection_timeout_seconds"), ExecutionTimeout: g("execution_timeout_seconds"),
		MaxJobsPerDetection: g("max_jobs_per_detection"), GlobalConcurrency: g("global_concurrency"),
		PerWorkerConcurrency: g("per_worker_concurrency"), Retries: g("retries"), RetryBackoff: g("retry_backoff_seconds")}
}

func lastValue(r *http.Request, name string) string {
	if vs := r.PostForm[name]; len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return ""
}

// parseRuntime reads the scheduler's fields; a value that is not a whole
// number gets its message here, range checks are the plugin's.
func parseRuntime(r *http.Request) (plugin.Runtime, map[string]string) {
	errs := map[string]string{}
	num := func(k, label string) int {
		s := strings.TrimSpace(lastValue(r, runtimePrefix+k))
		n, err := strconv.Atoi(s)
		if err != nil {
			errs[runtimePrefix+k] = label + " must be a whole number."
		}
		return n
	}
	secs := func(k, label string) time.Duration { return time.Duration(num(k, label)) * time.Second }
	rt := plugin.Runtime{
		Enabled:              lastValue(r, runtimePrefix+"enabled") == "true",
		DetectionInterval:    secs("detection_interval_seconds", "Detection interval"),
		DetectionTimeout:     secs("detection_timeout_seconds", "Detection timeout"),
		ExecutionTimeout:     secs("execution_timeout_seconds", "Execution timeout"),
		MaxJobsPerDetection:  num("max_jobs_per_detection", "Max jobs per detection"),
		GlobalConcurrency:    num("global_concurrency", "Global concurrency"),
		PerWorkerConcurrency: num("per_worker_concurrency", "Per-worker concurrency"),
		Retries:              num("retries", "Retries"),
		RetryBackoff:         secs("retry_backoff_seconds", "Retry backoff"),
	}
	return rt, errs
}
