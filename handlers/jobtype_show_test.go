package handlers

import (
	"testing"

	"github.com/floe/floe/plugin"
)

func TestSettingFieldBoundsArePlainDecimals(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		typ      plugin.FieldType
		min, max *float64
		wantMin  string
		wantMax  string
	}{
		{"max safe integer", plugin.FieldInt, f64(0), f64(9007199254740991), "0", "9007199254740991"},
		{"large negative min", plugin.FieldInt, f64(-1e21), f64(1e6), "-1000000000000000000000", "1000000"},
		{"small fractions", plugin.FieldFloat, f64(0.000001), f64(0.5), "0.000001", "0.5"},
		{"no bounds", plugin.FieldInt, nil, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf := settingField(plugin.FormField{Name: "n", Type: tt.typ, Min: tt.min, Max: tt.max, Default: "1"}, nil)
			if sf.Min != tt.wantMin || sf.Max != tt.wantMax {
				t.Errorf("min, max = %q, %q; want %q, %q", sf.Min, sf.Max, tt.wantMin, tt.wantMax)
			}
			if sf.Kind != "number" {
				t.Errorf("kind = %q, want number", sf.Kind)
			}
		})
	}
}
