package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

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
	values := map[string]string{}
	for _, f := range info.Descriptor.Fields() {
		if vs := r.PostForm[settingPrefix+f.Name]; len(vs) > 0 {
			values[f.Name] = vs[len(vs)-1] // a checkbox sends "false" then, when checked, "true"
		}
	}
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
		v := h.jobTypeView(r, info, plugin.Settings{JobType: info.JobType, Values: values})
		v.Runtime = runtimeFromForm(r)
		for i := range v.Sections { // show what was typed, not the stored value
			for j := range v.Sections[i].Fields {
				f := &v.Sections[i].Fields[j]
				if vs := r.PostForm[f.Input]; len(vs) > 0 {
					f.Value = vs[len(vs)-1]
					f.Checked = f.Value == "true"
				}
			}
		}
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
	if info.Descriptor == nil {
		return v
	}
	values := st.Values
	if values == nil {
		values = map[string]string{}
	}
	for _, s := range info.Descriptor.Sections {
		sec := views.SettingSection{Title: s.Title, Description: s.Description}
		if sec.Title == "" {
			sec.Title = s.Name
		}
		for _, f := range s.Fields {
			sec.Fields = append(sec.Fields, settingField(f, values))
		}
		v.Sections = append(v.Sections, sec)
	}
	return v
}

// plainNumber renders a descriptor bound as a plain decimal: 'g' would give
// 9.007199254740991e+15 for JavaScript's MAX_SAFE_INTEGER, which reads badly
// wherever the form shows its bounds.
func plainNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// settingField turns one descriptor field into its form control.
func settingField(f plugin.FormField, values map[string]string) views.SettingField {
	val, ok := values[f.Name]
	if !ok {
		val = f.Default
	}
	sf := views.SettingField{Input: settingPrefix + f.Name, Label: f.Label, Help: f.Help,
		Required: f.Required, Value: val, Default: f.Default}
	if sf.Label == "" {
		sf.Label = f.Name
	}
	switch f.Type {
	case plugin.FieldInt, plugin.FieldFloat:
		sf.Kind, sf.Step = "number", "1"
		if f.Type == plugin.FieldFloat {
			sf.Step = "any"
		}
		if f.Min != nil {
			sf.Min = plainNumber(*f.Min)
		}
		if f.Max != nil {
			sf.Max = plainNumber(*f.Max)
		}
	case plugin.FieldBool:
		sf.Kind = "checkbox"
		b, _ := strconv.ParseBool(strings.TrimSpace(val))
		sf.Checked = b || strings.EqualFold(strings.TrimSpace(val), "on")
	case plugin.FieldSelect:
		sf.Kind = "select"
		for _, o := range f.Options {
			label := o.Label
			if label == "" {
				label = o.Value
			}
			sf.Options = append(sf.Options, views.SettingOption{Value: o.Value, Label: label, Selected: o.Value == val})
		}
	case plugin.FieldDuration:
		sf.Kind = "duration"
	case plugin.FieldStringList:
		sf.Kind = "list"
		sf.Value = listLines(val)
		sf.Default = listLines(sf.Default)
		if sf.Help == "" {
			sf.Help = "One item per line."
		}
	default:
		switch f.Widget {
		case "password":
			sf.Kind = "password"
		case "textarea":
			sf.Kind = "textarea"
		default:
			sf.Kind = "text"
		}
	}
	if vw := f.VisibleWhen; vw != nil && vw.Field != "" {
		sf.VisibleWhen, sf.VisibleEquals = settingPrefix+vw.Field, vw.Equals
		sf.Hidden = !sameSetting(values[vw.Field], vw.Equals)
	}
	return sf
}

// listLines shows a stored JSON list one item per line.
func listLines(v string) string {
	var items []string
	if strings.HasPrefix(strings.TrimSpace(v), "[") && json.Unmarshal([]byte(v), &items) == nil {
		return strings.Join(items, "\n")
	}
	return v
}

// sameSetting compares like the plugin's visible_when: booleans by meaning.
func sameSetting(a, b string) bool {
	if a == b {
		return true
	}
	ba, errA := strconv.ParseBool(a)
	bb, errB := strconv.ParseBool(b)
	return errA == nil && errB == nil && ba == bb
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
