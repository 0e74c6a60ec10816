package views

import (
	"testing"

	"github.com/floe/floe/form"
)

func TestFieldBoundsArePlainDecimals(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		typ      form.Type
		min, max *float64
		wantMin  string
		wantMax  string
	}{
		{"max safe integer", form.Int, f64(0), f64(9007199254740991), "0", "9007199254740991"},
		{"large negative min", form.Int, f64(-1e21), f64(1e6), "-1000000000000000000000", "1000000"},
		{"small fractions", form.Float, f64(0.000001), f64(0.5), "0.000001", "0.5"},
		{"no bounds", form.Int, nil, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := FieldView{Field: form.Field{Name: "n", Type: tt.typ, Min: tt.min, Max: tt.max, Default: int64(1)}}
			if f.MinText() != tt.wantMin || f.MaxText() != tt.wantMax {
				t.Errorf("min, max = %q, %q; want %q, %q", f.MinText(), f.MaxText(), tt.wantMin, tt.wantMax)
			}
			if f.Kind() != "number" {
				t.Errorf("kind = %q, want number", f.Kind())
			}
		})
	}
}
