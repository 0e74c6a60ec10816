package plugin

import (
	"encoding/json"
	"time"

	"github.com/floe/floe/form"
)

// ValidateSettings checks a settings form's text against a descriptor with
// form's one set of rules: type, min/max, options, pattern and required,
// with fields hidden by visible_when taking no value (a value sent for one
// is refused: the form disables hidden fields). Blank or missing values take
// the field's default. clean holds every field that has a value, in
// canonical text (form.Text: "true"/"false", durations as Go prints them,
// string lists as JSON arrays); fieldErrors maps a field name to a sentence
// for the form, and is nil when everything is valid. Values for names the
// descriptor does not declare are dropped.
func ValidateSettings(d Descriptor, values map[string]string) (clean map[string]string, fieldErrors map[string]string) {
	vals, errs := form.ValidateText(d.Fields(), values)
	return texts(vals), errs.Map()
}

// storedSettings reads settings saved earlier against the descriptor the
// worker sends now: what no longer validates (a field now hidden, a bound
// tightened) falls back to its default rather than failing the job type.
func storedSettings(d Descriptor, values map[string]string) map[string]string {
	fields := d.Fields()
	vals, perrs := form.ParseText(fields, values)
	for _, e := range perrs {
		delete(vals, e.Field)
	}
	for _, f := range fields {
		if !form.Shown(fields, f, vals) {
			delete(vals, f.Name)
		}
	}
	out, errs := form.Validate(fields, vals)
	if len(errs) > 0 { // again without them, so each takes its default
		for _, e := range errs {
			delete(vals, e.Field)
		}
		out, _ = form.Validate(fields, vals)
	}
	return texts(out)
}

func texts(vals form.Values) map[string]string {
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		out[k] = form.Text(v)
	}
	return out
}

// settingsJSON renders clean values as the typed JSON object workers get:
// numbers for int/float/duration (seconds), booleans, arrays for lists.
func settingsJSON(d Descriptor, clean map[string]string) string {
	vals, _ := form.ParseText(d.Fields(), clean)
	out := make(map[string]any, len(vals))
	for k, v := range vals {
		if dd, ok := v.(time.Duration); ok {
			out[k] = dd.Seconds()
			continue
		}
		out[k] = v
	}
	b, _ := json.Marshal(out) // typed values always marshal
	return string(b)
}
