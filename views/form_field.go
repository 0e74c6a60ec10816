package views

import (
	"strings"

	"github.com/floe/floe/form"
)

// FieldView is one form.Field as a page shows it: the job-type settings
// form and the Maintenance tab's task forms render every field through
// FormField, so a field type looks and behaves the same on both.
type FieldView struct {
	form.Field
	Input         string // the input's name
	ID            string // the control's id; the label points at it
	TestID        string // the wrapper's data-testid
	ControlTestID string // the control's data-testid; "" for none
	Value         string // the text shown: stored, submitted or ""
	// Hidden: the field's condition does not hold, so it is rendered
	// hidden with its inputs disabled (not sent), as the page's script
	// keeps it while the controlling input changes.
	Hidden    bool
	WhenInput string // the name of the input the condition reads
	// NarrowsInput is the name of the select this field's choice narrows.
	NarrowsInput string
	ReadOnly     bool // a reader sees the value and cannot change it
	ShowName     bool // show Name beside the label (the API's parameter name)
}

// Kind is the control a field is entered with: "fixed", "select",
// "checkbox", "number", "duration", "list", "password", "textarea" or
// "text".
func (f FieldView) Kind() string {
	switch {
	case f.Fixed != "":
		return "fixed"
	case f.Type == form.Select || len(f.Options) > 0:
		return "select"
	case f.Type == form.Bool:
		return "checkbox"
	case f.Type == form.Int || f.Type == form.Float:
		return "number"
	case f.Type == form.Duration:
		return "duration"
	case f.Type == form.StringList:
		return "list"
	case f.Widget == "password" || f.Widget == "textarea":
		return f.Widget
	}
	return "text"
}

// Checked is a checkbox's state: the value shown, else the default.
func (f FieldView) Checked() bool {
	v := f.Value
	if strings.TrimSpace(v) == "" {
		v = form.Text(f.Default)
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "1", "yes":
		return true
	}
	return false
}

// MinText and MaxText are a number's bounds as plain decimals ("" = none).
func (f FieldView) MinText() string { return bound(f.Min) }

// MaxText: see MinText.
func (f FieldView) MaxText() string { return bound(f.Max) }

func bound(x *float64) string {
	if x == nil {
		return ""
	}
	return form.PlainNumber(*x)
}

// Step is a number input's step: whole numbers for Int.
func (f FieldView) Step() string {
	if f.Type == form.Float {
		return "any"
	}
	return "1"
}

// Placeholder shows the syntax of a duration or an age.
func (f FieldView) Placeholder() string {
	switch f.Type {
	case form.Duration:
		return "e.g. 90s, 15m, 1h30m"
	case form.Age:
		return "e.g. 7d, 168h"
	}
	return ""
}

// DefaultText is the default as the help line shows it; "" when there is
// nothing worth saying (none, conditional, fixed, an empty list).
func (f FieldView) DefaultText() string {
	if f.Default == nil || f.DefaultWhen != nil || f.Fixed != "" {
		return ""
	}
	if l, ok := f.Default.([]string); ok {
		return strings.Join(l, ", ")
	}
	return form.Text(f.Default)
}

// FixedText is a fixed field's one value.
func (f FieldView) FixedText() string { return form.Text(f.Default) }

// WhenValues are the values that show the field, space-separated.
func (f FieldView) WhenValues() string {
	if f.When == nil {
		return ""
	}
	return strings.Join(f.When.Values, " ")
}

// EmptyOption labels a select's empty choice: leaving the field to its
// default, or to whoever runs the job.
func (f FieldView) EmptyOption() string {
	if f.Default != nil {
		return "default"
	}
	return "—"
}

// OptionLabel is how a choice reads.
func OptionLabel(o form.Option) string {
	if o.Label != "" {
		return o.Label
	}
	return o.Value
}
