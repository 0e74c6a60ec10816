package handlers

import (
	"testing"

	"github.com/floe/floe/plugin/pluginpb"
)

func TestSettingFieldBoundsArePlainDecimals(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		typ      pluginpb.FieldType
		min, max *float64
		wantMin  string
		wantMax  string
	}{
		{"max safe integer", pluginpb.FieldType_FIELD_TYPE_INT, f64(0), f64(9007199254740991), "0", "9007199254740991"},
		{"large negative min", pluginpb.FieldType_FIELD_TYPE_INT, f64(-1e21), f64(1e6), "-1000000000000000000000", "1000000"},
		{"small fractions", pluginpb.FieldType_FIELD_TYPE_FLOAT, f64(0.000001), f64(0.5), "0.000001", "0.5"},
		{"no bounds", pluginpb.FieldType_FIELD_TYPE_INT, nil, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf := settingField(&pluginpb.FormField{Name: "n", Type: tt.typ, Min: tt.min, Max: tt.max, DefaultValue: "1"}, nil)
			if sf.Min != tt.wantMin || sf.Max != tt.wantMax {
				t.Errorf("min, max = %q, %q; want %q, %q", sf.Min, sf.Max, tt.wantMin, tt.wantMax)
			}
			if sf.Kind != "number" {
				t.Errorf("kind = %q, want number", sf.Kind)
			}
		})
	}
}
