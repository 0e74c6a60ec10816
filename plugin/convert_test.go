package plugin

import (
	"testing"

	"github.com/floe/floe/form"
	"github.com/floe/floe/plugin/pluginpb"
)

func TestJobParamsToProto(t *testing.T) {
	one := 1.0
	got := jobParamsToProto(map[string][]form.Field{
		"b_type": {{Name: "n", Type: form.Int, Min: &one, Default: int64(3)}},
		"a_type": {
			{Name: "mode", Type: form.Select, Options: []form.Option{{Value: "x"}, {Value: "y"}}, Default: "x"},
			{Name: "names", Type: form.StringList, Default: []string{}},
			{Name: "fts", Type: form.Bool, When: &form.Condition{Field: "mode", Values: []string{"y"}}},
			{Name: "odd", Type: form.Type("future")},
			{Name: "age", Type: form.Age, Help: "e.g. 7d"},
			{Name: "m", Type: form.Int, Default: int64(20), DefaultWhen: &form.Condition{Field: "mode", Values: []string{"y"}}},
			{Name: "unsafe", Type: form.Bool, Default: false, Fixed: "never"},
			{Name: "ratio", Type: form.Float, Default: 0.1},
		},
	})
	if len(got) != 2 || got[0].GetJobType() != "a_type" || got[1].GetJobType() != "b_type" {
		t.Fatalf("job types %v: want a_type, b_type in order", got)
	}
	a := got[0].GetParams()
	cases := []struct {
		i    int
		typ  pluginpb.FieldType
		name string
		def  string
	}{
		{0, pluginpb.FieldType_FIELD_TYPE_SELECT, "mode", "x"},
		{1, pluginpb.FieldType_FIELD_TYPE_STRING_LIST, "names", "[]"},
		{2, pluginpb.FieldType_FIELD_TYPE_BOOL, "fts", ""},
		{3, pluginpb.FieldType_FIELD_TYPE_STRING, "odd", ""}, // unknown types read as strings
		{4, pluginpb.FieldType_FIELD_TYPE_STRING, "age", ""}, // an age is a string with its pattern
		{5, pluginpb.FieldType_FIELD_TYPE_INT, "m", ""},      // a conditional default would apply to every job
		{6, pluginpb.FieldType_FIELD_TYPE_BOOL, "unsafe", "false"},
		{7, pluginpb.FieldType_FIELD_TYPE_FLOAT, "ratio", "0.1"},
	}
	for _, c := range cases {
		if a[c.i].GetName() != c.name || a[c.i].GetType() != c.typ || a[c.i].GetDefaultValue() != c.def {
			t.Errorf("param %d = %s %v %q, want %s %v %q", c.i, a[c.i].GetName(), a[c.i].GetType(), a[c.i].GetDefaultValue(), c.name, c.typ, c.def)
		}
	}
	if a[2].GetOnlyField() != "mode" || len(a[2].GetOnlyValues()) != 1 || len(a[0].GetOptions()) != 2 {
		t.Errorf("conditions or options lost: %v", a)
	}
	if a[4].GetPattern() != "[0-9]+[dhms]" || a[6].GetHelp() != "never" {
		t.Errorf("age pattern %q, fixed reason %q", a[4].GetPattern(), a[6].GetHelp())
	}
	if b := got[1].GetParams()[0]; b.Min == nil || b.GetMin() != 1 || b.GetDefaultValue() != "3" {
		t.Errorf("int param %v", b)
	}
}

// TestFieldFromProtoReadsDefaults: a worker's default text becomes a typed
// default; one that breaks the field's rules is no default.
func TestFieldFromProtoReadsDefaults(t *testing.T) {
	ten := 10.0
	for _, tc := range []struct {
		f    *pluginpb.FormField
		want any
	}{
		{&pluginpb.FormField{Name: "n", Type: pluginpb.FieldType_FIELD_TYPE_INT, DefaultValue: "3"}, int64(3)},
		{&pluginpb.FormField{Name: "n", Type: pluginpb.FieldType_FIELD_TYPE_INT, DefaultValue: "30", Max: &ten}, nil},
		{&pluginpb.FormField{Name: "d", Type: pluginpb.FieldType_FIELD_TYPE_DURATION, DefaultValue: "1h"}, "1h0m0s"},
		{&pluginpb.FormField{Name: "l", Type: pluginpb.FieldType_FIELD_TYPE_STRING_LIST, DefaultValue: `["a","b"]`}, `["a","b"]`},
		{&pluginpb.FormField{Name: "s", Type: pluginpb.FieldType_FIELD_TYPE_SELECT, DefaultValue: "z",
			Options: []*pluginpb.SelectOption{{Value: "a"}}}, nil},
		{&pluginpb.FormField{Name: "b", Type: pluginpb.FieldType_FIELD_TYPE_BOOL, DefaultValue: "true", Required: true,
			VisibleWhen: &pluginpb.VisibleWhen{Field: "x", Equals: "y"}}, true},
	} {
		got := fieldFromProto(tc.f).Default
		if tc.want == nil {
			if got != nil {
				t.Errorf("%s default %q: got %#v, want none", tc.f.Name, tc.f.DefaultValue, got)
			}
			continue
		}
		if w, ok := tc.want.(string); ok {
			if form.Text(got) != w {
				t.Errorf("%s default %q: got %q, want %q", tc.f.Name, tc.f.DefaultValue, form.Text(got), w)
			}
		} else if got != tc.want {
			t.Errorf("%s default %q: got %#v, want %#v", tc.f.Name, tc.f.DefaultValue, got, tc.want)
		}
	}
}
