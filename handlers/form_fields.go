package handlers

import (
	"net/url"

	"github.com/floe/floe/form"
	"github.com/floe/floe/views"
)

// inputNaming says how a page names a field's input, its id and test ids.
type inputNaming struct {
	prefix   string // before the field name in the input's name (the job-type page's "s_")
	idPrefix string // before the input name in the control's id
	testIDs  func(name string) (wrapper, control string)
	showName bool // parameter names are the API's vocabulary: show them
	readOnly bool
}

// fieldViews turns fields into a form's inputs showing text (by field
// name), each hidden, with its inputs disabled, while its condition does not
// hold for that text.
func fieldViews(fields []form.Field, text map[string]string, n inputNaming) []views.FieldView {
	state := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := text[f.Name]
		if !ok || v == "" {
			if f.Required && f.Type == form.Select && len(f.Options) > 0 {
				v = f.Options[0].Value // what a browser selects in a select with no empty choice
			} else {
				continue
			}
		}
		state[f.Name] = v
	}
	out := make([]views.FieldView, 0, len(fields))
	for _, f := range fields {
		fv := views.FieldView{Field: f, Input: n.prefix + f.Name, Value: text[f.Name], ShowName: n.showName, ReadOnly: n.readOnly,
			Hidden: !form.Shown(fields, f, state)}
		fv.ID = n.idPrefix + fv.Input
		fv.TestID, fv.ControlTestID = n.testIDs(fv.Input)
		if f.When != nil {
			fv.WhenInput = n.prefix + f.When.Field
		}
		if f.Narrows != "" {
			fv.NarrowsInput = n.prefix + f.Narrows
		}
		out = append(out, fv)
	}
	return out
}

// formText is a form post's text for fields, by field name: the last value
// sent for each input (a checkbox sends its hidden "false" first, then
// "true" when checked), names not sent left out.
func formText(fields []form.Field, post url.Values, prefix string) map[string]string {
	out := map[string]string{}
	for _, f := range fields {
		if vs := post[prefix+f.Name]; len(vs) > 0 {
			out[f.Name] = vs[len(vs)-1]
		}
	}
	return out
}
