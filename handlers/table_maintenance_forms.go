package handlers

import (
	"errors"
	"slices"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/form"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// maintForms renders the task service's forms for a table. Inputs start
// empty, so the task's defaults apply exactly as they do for API clients;
// text (by field name) refills the form of type typed after a refusal.
func maintForms(forms []tasks.Form, typed tasks.Type, text map[string]string) []views.MaintForm {
	out := make([]views.MaintForm, 0, len(forms))
	for _, f := range forms {
		f.Fields = dryRunFirst(f.Fields)
		shown := map[string]string(nil)
		if f.Type == typed {
			shown = text
		}
		op := f.Op
		out = append(out, views.MaintForm{Type: string(f.Type), Op: op, Title: f.Title, Help: f.Help, Unavailable: f.Unavailable,
			Fields: fieldViews(f.Fields, shown, inputNaming{idPrefix: op + "-", showName: true,
				testIDs: func(name string) (string, string) { return "field-" + op + "-" + name, op + "-" + name }})})
	}
	return out
}

// refusalAtFields puts a task refusal's sentences next to the fields the
// form shows (every field's, when the service found several), or above the
// form for one that belongs to no field.
func refusalAtFields(mf *views.MaintForm, err error) {
	shown := map[string]bool{}
	for _, f := range mf.Fields {
		shown[f.Name] = true
	}
	errs, notice := refusalSentences(shown, err)
	if notice != "" {
		mf.Notice = notice
	}
	if len(errs) > 0 {
		mf.Errors = errs
	}
}

// refusalSentences places a refusal's sentences at the fields shown (by
// name), and returns the one that belongs to none as a notice.
func refusalSentences(shown map[string]bool, err error) (views.FieldErrors, string) {
	var all form.Errors
	errs := views.FieldErrors{}
	if errors.As(err, &all) {
		for _, fe := range all {
			if shown[fe.Field] {
				if _, ok := errs[fe.Field]; !ok {
					errs[fe.Field] = fe.Message
				}
			}
		}
	}
	notice := ""
	if te, ok := fault.As(err); ok && shown[te.Field] {
		if _, ok := errs[te.Field]; !ok {
			errs[te.Field] = te.Message
		}
	} else if ok {
		notice = te.Message
	}
	return errs, notice
}

// dryRunFirst checks a form's "Dry run" box by default in the console (the
// API's default stays false): a task that deletes data shows what it would
// delete first, and the operator unticks the box to Run it.
func dryRunFirst(fields []form.Field) []form.Field {
	i := slices.IndexFunc(fields, func(f form.Field) bool { return f.Name == "dry_run" && f.Type == form.Bool })
	if i < 0 {
		return fields
	}
	out := slices.Clone(fields)
	out[i].Default = true
	out[i].Help = "Ticked: list the versions and files this would delete, with their bytes, and delete nothing. Untick to run it."
	return out
}
