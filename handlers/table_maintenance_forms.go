package handlers

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// maintForms renders the task schemas as forms. Every field is optional
// unless marked required; an empty field is left out of the request body,
// so the task API's defaults apply exactly as they do for API clients.
// Parameters only API clients may send are not offered, except those floe
// always refuses, which show their one value and why. schema is the table's
// observed schema (nil when no worker has described it): index forms then
// offer its columns in a select, each with the index types its type takes.
func maintForms(schema []observe.Field) []views.MaintForm {
	var out []views.MaintForm
	for _, sc := range tasks.Schemas() {
		form := views.MaintForm{Type: string(sc.Type), Op: sc.Op, Title: sc.Title, Help: sc.Help}
		for _, f := range sc.Fields {
			if f.APIOnly && !f.MustBeFalse {
				continue
			}
			mf := maintField(f)
			switch why, fixed := engineFixed[sc.Type][f.Name]; {
			case f.MustBeFalse:
				mf.Kind, mf.Fixed, mf.Help = "fixed", "false", "Always false: "+f.Help+"."
			case fixed:
				mf.Kind, mf.Fixed, mf.Help = "fixed", fmt.Sprint(f.Default), why
			}
			if f.Name == "column" && (sc.Type == tasks.TypeScalarIndex || sc.Type == tasks.TypeVectorIndex) {
				columnField(&form, &mf, schema, sc.Type == tasks.TypeVectorIndex)
			}
			form.Fields = append(form.Fields, mf)
		}
		out = append(out, form)
	}
	return out
}

// columnField makes an index form's column a select of the schema's
// columns that fit the form; with no schema observed it stays a text input.
func columnField(form *views.MaintForm, mf *views.MaintField, schema []observe.Field, vector bool) {
	if schema == nil {
		mf.Help = "No worker has described this table yet, so its columns are not known: type the column name."
		return
	}
	mf.Kind, mf.Choices = "column", columnChoices(schema, vector)
	mf.Help = "Columns of this table that this index can cover; the index types offered follow the column's type."
	if len(mf.Choices) == 0 {
		what := "no column a scalar index covers (numbers, strings, dates, booleans or lists)"
		if vector {
			what = "no vector column (a fixed-size list of floats)"
		}
		form.Unavailable = "This table has " + what + ", so there is nothing to index."
	}
}

// maintKinds maps a parameter kind to the form control that enters it.
var maintKinds = map[tasks.Kind]string{
	tasks.KindInt: "int", tasks.KindNumber: "number", tasks.KindBool: "bool", tasks.KindSelect: "select",
	tasks.KindStrings: "list", tasks.KindString: "text", tasks.KindAge: "text",
}

func maintField(f tasks.Field) views.MaintField {
	mf := views.MaintField{Name: f.Name, Label: f.Label, Kind: maintKinds[f.Kind], Options: f.Options, Help: f.Help}
	if mf.Label == "" {
		mf.Label = f.Name
	}
	if f.Kind == tasks.KindBool {
		mf.Options = []string{"true", "false"}
	}
	switch {
	case f.Required:
		mf.Help = "Required."
	case mf.Help == "" && f.Default != nil && f.Kind != tasks.KindBool && f.Kind != tasks.KindSelect:
		mf.Help = fmt.Sprintf("Default %v.", f.Default)
	}
	if f.Only != nil {
		mf.Help = strings.TrimSpace(mf.Help + " Only with " + f.Only.Field + " " + strings.Join(f.Only.Values, " or ") + ".")
		mf.OnlyField, mf.OnlyValues = f.Only.Field, strings.Join(f.Only.Values, " ")
	}
	return mf
}

// taskBody turns a submitted form into the task API's JSON body: empty
// fields are left out; numbers and booleans that parse are sent as such, and
// anything else is sent as the string typed, so the task API's own
// validation words the complaint.
func taskBody(form views.MaintForm, vals url.Values) []byte {
	body := map[string]any{}
	for _, f := range form.Fields {
		s := strings.TrimSpace(vals.Get(f.Name))
		if s == "" || f.Kind == "fixed" { // a fixed value is the default: sending it adds nothing
			continue
		}
		switch f.Kind {
		case "int", "number":
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				body[f.Name] = n
			} else if x, err := strconv.ParseFloat(s, 64); err == nil {
				body[f.Name] = x
			} else {
				body[f.Name] = s
			}
		case "bool":
			if b, err := strconv.ParseBool(s); err == nil {
				body[f.Name] = b
			} else {
				body[f.Name] = s
			}
		case "list":
			var names []string
			for n := range strings.SplitSeq(s, ",") {
				names = append(names, strings.TrimSpace(n))
			}
			body[f.Name] = names
		default:
			body[f.Name] = s
		}
	}
	b, _ := json.Marshal(body)
	return b
}

// fieldOf is the form field a task error is about, when the form shows
// that field; "" puts the sentence above the form instead.
func fieldOf(form views.MaintForm, te *fault.Error) string {
	for _, f := range form.Fields {
		if f.Name == te.Field {
			return f.Name
		}
	}
	return ""
}

// withValues copies the submitted values into the form for re-rendering.
func withValues(form views.MaintForm, vals url.Values) views.MaintForm {
	fields := make([]views.MaintField, len(form.Fields))
	for i, f := range form.Fields {
		f.Value = vals.Get(f.Name)
		fields[i] = f
	}
	form.Fields = fields
	return form
}
