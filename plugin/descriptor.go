package plugin

import "github.com/floe/floe/form"

// Descriptor is what a worker says about one job type it offers: its names,
// its settings form and the scheduler settings it starts with. It is the
// plugin's own type; the protobuf message is converted at the channel's edge
// (convert.go), so callers never see generated code.
type Descriptor struct {
	JobType     string
	Version     string // when a worker advertises another, it is asked again
	DisplayName string
	Description string
	Sections    []FormSection
	Runtime     Runtime // defaults filled where the worker left zero
}

// FormSection groups fields of a settings form.
type FormSection struct {
	Name        string
	Title       string
	Description string
	Fields      []form.Field
}

// Fields lists every field of every section, in order.
func (d Descriptor) Fields() []form.Field {
	var out []form.Field
	for _, s := range d.Sections {
		out = append(out, s.Fields...)
	}
	return out
}
