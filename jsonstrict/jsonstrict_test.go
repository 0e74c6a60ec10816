package jsonstrict

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	legalDeep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tests := []struct {
		name, in string
		wantErr  string // "" = accepted
		wantPath string
	}{
		{"flat object", `{"a":1,"b":"x"}`, "", ""},
		{"same key in sibling objects", `{"a":{"k":1},"b":{"k":2}}`, "", ""},
		{"duplicate at top", `{"a":1,"a":2}`, `"a" appears twice`, ""},
		{"duplicate through an escape", `{"a":1,"\u0061":2}`, `"a" appears twice`, ""},
		{"duplicate nested", `{"schema":{"fields":[{"id":1},{"id":2,"name":"x","name":"y"}]}}`, `"name" appears twice`, "/schema/fields/1"},
		{"keys differing in case are distinct", `{"a":1,"A":2}`, "", ""},
		{"array of scalars", `[1,2,3,"x",null,true]`, "", ""},
		{"scalar", `"x"`, "", ""},
		{"empty", ``, "", ""},
		{"malformed is left to the decoder", `{"a":`, "", ""},
		{"too deep", deep, "nests deeper", ""},
		{"as deep as allowed", legalDeep, "", ""},
		{"only the first value counts", `{"a":1} {"a":1,"a":2}`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.in))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Message, tc.wantErr) {
				t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
			}
			if tc.wantPath != "" && se.Path != tc.wantPath {
				t.Fatalf("path = %q, want %q", se.Path, tc.wantPath)
			}
		})
	}
}

func TestUnmarshal(t *testing.T) {
	var v struct{ A int }
	if err := Unmarshal([]byte(`{"A":1,"A":2}`), &v); err == nil {
		t.Fatal("a duplicate key was decoded")
	}
	if err := Unmarshal([]byte(`{"A":3}`), &v); err != nil || v.A != 3 {
		t.Fatalf("a clean body: %v %d", err, v.A)
	}
}
