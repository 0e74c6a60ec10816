package plugin

import (
	"slices"
	"sort"

	"github.com/floe/floe/plugin/pluginpb"
)

// This file is the channel's edge: protobuf messages become the plugin's
// own types here and nowhere else in the public API.

var fieldTypes = map[pluginpb.FieldType]FieldType{
	pluginpb.FieldType_FIELD_TYPE_STRING:      FieldString,
	pluginpb.FieldType_FIELD_TYPE_INT:         FieldInt,
	pluginpb.FieldType_FIELD_TYPE_FLOAT:       FieldFloat,
	pluginpb.FieldType_FIELD_TYPE_BOOL:        FieldBool,
	pluginpb.FieldType_FIELD_TYPE_SELECT:      FieldSelect,
	pluginpb.FieldType_FIELD_TYPE_DURATION:    FieldDuration,
	pluginpb.FieldType_FIELD_TYPE_STRING_LIST: FieldStringList,
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

func fieldFromProto(f *pluginpb.FormField) FormField {
	typ, ok := fieldTypes[f.GetType()]
	if !ok {
		typ = FieldString // FIELD_TYPE_UNSPECIFIED and types newer than this console
	}
	out := FormField{Name: f.GetName(), Label: f.GetLabel(), Help: f.GetHelp(), Type: typ, Widget: f.GetWidget(),
		Pattern: f.GetPattern(), Required: f.GetRequired(), Default: f.GetDefaultValue()}
	if f.Min != nil {
		v := f.GetMin()
		out.Min = &v
	}
	if f.Max != nil {
		v := f.GetMax()
		out.Max = &v
	}
	for _, o := range f.GetOptions() {
		out.Options = append(out.Options, SelectOption{Value: o.GetValue(), Label: o.GetLabel()})
	}
	if vw := f.GetVisibleWhen(); vw != nil && vw.GetField() != "" {
		out.VisibleWhen = &VisibleWhen{Field: vw.GetField(), Equals: vw.GetEquals()}
	}
	return out
}

// jobParamsToProto converts the parameter definitions for Welcome, in job
// type order so every worker receives the same message.
func jobParamsToProto(defs map[string][]JobParam) []*pluginpb.JobParams {
	types := make([]string, 0, len(defs))
	for t := range defs {
		types = append(types, t)
	}
	sort.Strings(types)
	protoTypes := map[FieldType]pluginpb.FieldType{}
	for pt, t := range fieldTypes {
		protoTypes[t] = pt
	}
	out := make([]*pluginpb.JobParams, 0, len(types))
	for _, t := range types {
		jp := &pluginpb.JobParams{JobType: t}
		for _, d := range defs[t] {
			pt, ok := protoTypes[d.Type]
			if !ok {
				pt = pluginpb.FieldType_FIELD_TYPE_STRING
			}
			jp.Params = append(jp.Params, &pluginpb.JobParam{Name: d.Name, Type: pt, Required: d.Required, Min: d.Min,
				Options: slices.Clone(d.Options), DefaultValue: d.Default, Pattern: d.Pattern,
				OnlyField: d.OnlyField, OnlyValues: slices.Clone(d.OnlyValues), Help: d.Help})
		}
		out = append(out, jp)
	}
	return out
}
