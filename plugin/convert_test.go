package plugin

import (
	"testing"

	"github.com/floe/floe/plugin/pluginpb"
)

func TestJobParamsToProto(t *testing.T) {
	one := 1.0
	got := jobParamsToProto(map[string][]JobParam{
		"b_type": {{Name: "n", Type: FieldInt, Min: &one, Default: "3"}},
		"a_type": {
			{Name: "mode", Type: FieldSelect, Options: []string{"x", "y"}, Default: "x"},
			{Name: "names", Type: FieldStringList, Default: "[]"},
			{Name: "fts", Type: FieldBool, OnlyField: "mode", OnlyValues: []string{"y"}},
			{Name: "odd", Type: FieldType("future")},
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
	}{
		{0, pluginpb.FieldType_FIELD_TYPE_SELECT, "mode"},
		{1, pluginpb.FieldType_FIELD_TYPE_STRING_LIST, "names"},
		{2, pluginpb.FieldType_FIELD_TYPE_BOOL, "fts"},
		{3, pluginpb.FieldType_FIELD_TYPE_STRING, "odd"}, // unknown types read as strings
	}
	for _, c := range cases {
		if a[c.i].GetName() != c.name || a[c.i].GetType() != c.typ {
			t.Errorf("param %d = %s %v, want %s %v", c.i, a[c.i].GetName(), a[c.i].GetType(), c.name, c.typ)
		}
	}
	if a[2].GetOnlyField() != "mode" || len(a[2].GetOnlyValues()) != 1 || len(a[0].GetOptions()) != 2 || a[0].GetDefaultValue() != "x" {
		t.Errorf("conditions or options lost: %v", a)
	}
	if b := got[1].GetParams()[0]; b.Min == nil || b.GetMin() != 1 || b.GetDefaultValue() != "3" {
		t.Errorf("int param %v", b)
	}
}
