package plugin

import (
	"slices"
	"sort"

	"github.com/floe/floe/form"
	"github.com/floe/floe/plugin/pluginpb"
)

// This file is the channel's edge: protobuf messages become the plugin's
// own types (and form's fields) here and nowhere else in the public API.

var fieldTypes = map[pluginpb.FieldType]form.Type{
	pluginpb.FieldType_FIELD_TYPE_STRING:      form.String,
	pluginpb.FieldType_FIELD_TYPE_INT:         form.Int,
	pluginpb.FieldType_FIELD_TYPE_FLOAT:       form.Float,
	pluginpb.FieldType_FIELD_TYPE_BOOL:        form.Bool,
	pluginpb.FieldType_FIELD_TYPE_SELECT:      form.Select,
	pluginpb.FieldType_FIELD_TYPE_DURATION:    form.Duration,
	pluginpb.FieldType_FIELD_TYPE_STRING_LIST: form.StringList,
}

// descriptorFromProto converts a worker's descriptor; nil gives the zero
// Descriptor (no fields, default runtime).
func descriptorFromProto(d *pluginpb.Descriptor) Descriptor {
	out := Descriptor{
		JobType: d.GetJobType(), Version: d.GetDescriptorVersion(), DisplayName: d.GetDisplayName(),
		Description: d.GetDescription(), Runtime: runtimeFromProto(d.GetRuntime()),
	}
	for _, s := range d.GetForm().GetSections() {
		sec := FormSection{Name: s.GetName(), Title: s.GetTitle(), Description: s.GetDescription()}
		for _, f := range s.GetFields() {
			sec.Fields = append(sec.Fields, fieldFromProto(f))
		}
		out.Sections = append(out.Sections, sec)
	}
	return out
}

// fieldFromProto converts one settings field. The worker's default comes as
// the text a form would submit; it is read by the field's type, and one that
// does not read (or breaks the field's own rules) is no default: the field
// starts empty rather than with a value saved in the operator's name that
// the form would refuse.
func fieldFromProto(f *pluginpb.FormField) form.Field {
	typ, ok := fieldTypes[f.GetType()]
	if !ok {
		typ = form.String // FIELD_TYPE_UNSPECIFIED and types newer than this console
	}
	out := form.Field{Name: f.GetName(), Label: f.GetLabel(), Help: f.GetHelp(), Type: typ, Widget: f.GetWidget(),
		Pattern: f.GetPattern(), Required: f.GetRequired()}
	if f.Min != nil {
		v := f.GetMin()
		out.Min = &v
	}
	if f.Max != nil {
		v := f.GetMax()
		out.Max = &v
	}
	for _, o := range f.GetOptions() {
		out.Options = append(out.Options, form.Option{Value: o.GetValue(), Label: o.GetLabel()})
	}
	if vw := f.GetVisibleWhen(); vw != nil && vw.GetField() != "" {
		out.When = &form.Condition{Field: vw.GetField(), Values: []string{vw.GetEquals()}}
	}
	if dv := f.GetDefaultValue(); dv != "" {
		only := out
		only.When, only.Required = nil, false
		if vals, errs := form.ValidateText([]form.Field{only}, map[string]string{out.Name: dv}); errs == nil {
			out.Default = vals[out.Name]
		}
	}
	return out
}

// protoTypes are the wire types of form's types; an Age travels as a
// STRING with its pattern.
var protoTypes = func() map[form.Type]pluginpb.FieldType {
	m := map[form.Type]pluginpb.FieldType{form.Age: pluginpb.FieldType_FIELD_TYPE_STRING}
	for pt, t := range fieldTypes {
		m[t] = pt
	}
	return m
}()

// jobParamsToProto converts the parameter definitions for Welcome, in job
// type order so every worker receives the same message. A default that
// applies only under a condition (DefaultWhen) is not sent: the worker
// would apply it to every job.
func jobParamsToProto(defs map[string][]form.Field) []*pluginpb.JobParams {
	types := make([]string, 0, len(defs))
	for t := range defs {
		types = append(types, t)
	}
	sort.Strings(types)
	out := make([]*pluginpb.JobParams, 0, len(types))
	for _, t := range types {
		jp := &pluginpb.JobParams{JobType: t}
		for _, f := range defs[t] {
			pt, ok := protoTypes[f.Type]
			if !ok {
				pt = pluginpb.FieldType_FIELD_TYPE_STRING
			}
			p := &pluginpb.JobParam{Name: f.Name, Type: pt, Required: f.Required, Options: f.OptionValues(),
				Pattern: f.Pattern, Help: f.Help}
			if f.Type == form.Int && f.Min != nil {
				p.Min = f.Min
			}
			if f.Type == form.Age {
				p.Pattern = form.AgePattern
			}
			if p.Help == "" {
				p.Help = f.Fixed
			}
			if f.Default != nil && f.DefaultWhen == nil {
				p.DefaultValue = form.Encode(f.Default)
			}
			if f.When != nil {
				p.OnlyField, p.OnlyValues = f.When.Field, slices.Clone(f.When.Values)
			}
			jp.Params = append(jp.Params, p)
		}
		out = append(out, jp)
	}
	return out
}
