package plugin

import (
	"encoding/json"
	"testing"

	"github.com/floe/floe/plugin/pluginpb"
)

func validationDescriptor() *pluginpb.Descriptor {
	return &pluginpb.Descriptor{JobType: "x", Form: &pluginpb.Form{Sections: []*pluginpb.FormSection{{Fields: []*pluginpb.FormField{
		{Name: "n", Label: "Count", Type: pluginpb.FieldType_FIELD_TYPE_INT, Min: ptr(1.0), Max: ptr(10.0), DefaultValue: "3", Required: true},
		{Name: "ratio", Type: pluginpb.FieldType_FIELD_TYPE_FLOAT, Min: ptr(0.0), Max: ptr(1.0), DefaultValue: "0.5"},
		{Name: "on", Type: pluginpb.FieldType_FIELD_TYPE_BOOL, DefaultValue: "false"},
		{Name: "mode", Type: pluginpb.FieldType_FIELD_TYPE_SELECT, DefaultValue: "fast",
			Options: []*pluginpb.SelectOption{{Value: "fast"}, {Value: "thorough"}}},
		{Name: "every", Type: pluginpb.FieldType_FIELD_TYPE_DURATION, Min: ptr(60.0), DefaultValue: "1h"},
		{Name: "cols", Type: pluginpb.FieldType_FIELD_TYPE_STRING_LIST, Pattern: "[a-z_]+", Max: ptr(3.0)},
		{Name: "name", Type: pluginpb.FieldType_FIELD_TYPE_STRING, Pattern: "[a-z]+", Max: ptr(8.0)},
		{Name: "depth", Type: pluginpb.FieldType_FIELD_TYPE_INT, Required: true,
			VisibleWhen: &pluginpb.VisibleWhen{Field: "mode", Equals: "thorough"}},
	}}}}}
}

func TestValidateSettings(t *testing.T) {
	d := descriptorFromProto(validationDescriptor())
	for _, tc := range []struct {
		name      string
		in        map[string]string
		wantErr   []string
		wantClean map[string]string
	}{
		{"defaults fill everything", nil, nil,
			map[string]string{"n": "3", "ratio": "0.5", "on": "false", "mode": "fast", "every": "1h0m0s", "cols": "[]", "name": ""}},
		{"valid values canonicalised", map[string]string{"n": " 7 ", "on": "on", "every": "90", "cols": "a_b\nc\n\n", "name": "abc"}, nil,
			map[string]string{"n": "7", "on": "true", "every": "1m30s", "cols": `["a_b","c"]`, "name": "abc"}},
		{"json list", map[string]string{"cols": `["x","y"]`}, nil, map[string]string{"cols": `["x","y"]`}},
		{"int below min", map[string]string{"n": "0"}, []string{"n"}, nil},
		{"int above max", map[string]string{"n": "11"}, []string{"n"}, nil},
		{"int not a number", map[string]string{"n": "3.5"}, []string{"n"}, nil},
		{"required empty", map[string]string{"n": " "}, []string{"n"}, nil},
		{"float out of range", map[string]string{"ratio": "1.5"}, []string{"ratio"}, nil},
		{"float NaN", map[string]string{"ratio": "NaN"}, []string{"ratio"}, nil},
		{"bool garbage", map[string]string{"on": "maybe"}, []string{"on"}, nil},
		{"select not an option", map[string]string{"mode": "slow"}, []string{"mode"}, nil},
		{"duration garbage", map[string]string{"every": "soon"}, []string{"every"}, nil},
		{"duration below min", map[string]string{"every": "30s"}, []string{"every"}, nil},
		{"list item breaks pattern", map[string]string{"cols": "ok\nNot-OK"}, []string{"cols"}, nil},
		{"list too long", map[string]string{"cols": "a,b,c,d"}, []string{"cols"}, nil},
		{"string breaks pattern", map[string]string{"name": "ABC"}, []string{"name"}, nil},
		{"string too long", map[string]string{"name": "abcdefghij"}, []string{"name"}, nil},
		{"hidden required field is not required", map[string]string{"mode": "fast"}, nil, map[string]string{"depth": ""}},
		{"visible required field is required", map[string]string{"mode": "thorough"}, []string{"depth"}, nil},
		{"unknown names dropped", map[string]string{"evil": "1"}, nil, map[string]string{"n": "3"}},
		{"several errors at once", map[string]string{"n": "x", "mode": "y"}, []string{"n", "mode"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean, errs := ValidateSettings(d, tc.in)
			if len(errs) != len(tc.wantErr) {
				t.Fatalf("errors = %v, want fields %v", errs, tc.wantErr)
			}
			for _, f := range tc.wantErr {
				if errs[f] == "" {
					t.Fatalf("no error for %s: %v", f, errs)
				}
			}
			for k, v := range tc.wantClean {
				if clean[k] != v {
					t.Errorf("clean[%s] = %q, want %q", k, clean[k], v)
				}
			}
			if _, ok := clean["evil"]; ok {
				t.Error("undeclared field kept")
			}
		})
	}
}

func TestSettingsJSONIsTyped(t *testing.T) {
	d := descriptorFromProto(validationDescriptor())
	clean, errs := ValidateSettings(d, map[string]string{"n": "4", "on": "true", "every": "2m", "cols": "a\nb", "ratio": "0.25"})
	if errs != nil {
		t.Fatal(errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(settingsJSON(d, clean)), &got); err != nil {
		t.Fatal(err)
	}
	if got["n"] != 4.0 || got["on"] != true || got["every"] != 120.0 || got["ratio"] != 0.25 || got["mode"] != "fast" {
		t.Fatalf("settings JSON = %v", got)
	}
	if cols, ok := got["cols"].([]any); !ok || len(cols) != 2 {
		t.Fatalf("cols = %v", got["cols"])
	}
}

func TestValidateRuntime(t *testing.T) {
	good := runtimeFromProto(nil)
	if errs := ValidateRuntime(good); errs != nil {
		t.Fatalf("defaults invalid: %v", errs)
	}
	bad := good
	bad.GlobalConcurrency, bad.Retries = 0, -1
	if errs := ValidateRuntime(bad); errs["global_concurrency"] == "" || errs["retries"] == "" {
		t.Fatalf("bad runtime accepted: %v", errs)
	}
}
