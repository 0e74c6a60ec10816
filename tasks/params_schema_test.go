package tasks

import (
	"errors"
	"slices"
	"testing"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/form"
)

func TestValidationErrorsNameTheirField(t *testing.T) {
	cases := []struct {
		typ   Type
		body  string
		field string
	}{
		{TypeCompact, `{"target_rows_per_fragment": 0}`, "target_rows_per_fragment"},
		{TypeCompact, `{"materialize_deletions_threshold": "x"}`, "materialize_deletions_threshold"},
		{TypeCompact, `{"compaction_mode": "REENCODE"}`, "compaction_mode"},
		{TypeCleanup, `{"older_than": "1w"}`, "older_than"},
		{TypeCleanup, `{"retain_versions": 0}`, "retain_versions"},
		{TypeCleanup, `{}`, "older_than"},
		{TypeCleanup, `{"older_than": "7d", "delete_unverified": true}`, "delete_unverified"},
		{TypeScalarIndex, `{"index_type": "BTREE"}`, "column"},
		{TypeScalarIndex, `{"column": "c"}`, "index_type"},
		{TypeScalarIndex, `{"column": "c", "index_type": "BTREE", "stem": false}`, "stem"},
		{TypeVectorIndex, `{"column": "v", "index_type": "IVF_PQ", "distance_type": "L2"}`, "distance_type"},
		{TypeOptimizeIndices, `{"index_names": ["a", ""]}`, "index_names"},
		{TypeCompact, `[]`, ""}, // the body as a whole, not one field
	}
	for _, c := range cases {
		t.Run(string(c.typ)+" "+c.body, func(t *testing.T) {
			_, err := ValidateParams(c.typ, []byte(c.body))
			var te *fault.Error
			if !errors.As(err, &te) || !errors.Is(err, fault.Invalid) {
				t.Fatalf("err = %v, want an invalid-input *fault.Error", err)
			}
			if te.Field != c.field {
				t.Errorf("Field = %q, want %q (message %q)", te.Field, c.field, te.Message)
			}
		})
	}
}

func TestSchemasCoverEveryType(t *testing.T) {
	if len(Schemas()) != len(Types) {
		t.Fatalf("%d schemas for %d types", len(Schemas()), len(Types))
	}
	for i, typ := range Types {
		sc, ok := SchemaOf(typ)
		if !ok || Schemas()[i].Type != typ {
			t.Fatalf("schema of %s missing or out of order", typ)
		}
		seen := map[string]bool{}
		for _, f := range sc.Fields {
			if seen[f.Name] {
				t.Errorf("%s: field %s twice", typ, f.Name)
			}
			seen[f.Name] = true
			if f.Type == form.Select && f.Default != nil && !slices.Contains(f.OptionValues(), f.Default.(string)) {
				t.Errorf("%s.%s: default %v is not an option", typ, f.Name, f.Default)
			}
			if f.Required && f.Default != nil {
				t.Errorf("%s.%s: required with a default", typ, f.Name)
			}
		}
		for _, n := range sc.NeedOneOf {
			if !seen[n] {
				t.Errorf("%s: NeedOneOf names unknown field %s", typ, n)
			}
		}
	}
}

// TestJobParamsMatchTheSchemas: the workers get every task type's fields,
// with the defaults, conditions and patterns validation uses (the plugin's
// convert_test checks how they are encoded for the channel).
func TestJobParamsMatchTheSchemas(t *testing.T) {
	defs := JobParams()
	compact := map[string]string{}
	for _, d := range defs[string(TypeCompact)] {
		compact[d.Name] = form.Encode(d.Default)
	}
	want := map[string]string{"target_rows_per_fragment": "1048576", "materialize_deletions": "true",
		"materialize_deletions_threshold": "0.1", "compaction_mode": "reencode", "max_bytes_per_file": "0", "max_rows_per_group": "1024"}
	for k, v := range want {
		if compact[k] != v {
			t.Errorf("compact %s default %q, want %q", k, compact[k], v)
		}
	}
	for _, d := range defs[string(TypeVectorIndex)] {
		if (d.Name == "m" || d.Name == "ef_construction") && d.DefaultWhen == nil {
			t.Errorf("%s: an HNSW-only default %v would apply to every index type", d.Name, d.Default)
		}
	}
	for _, d := range defs[string(TypeCleanup)] {
		if d.Name == "older_than" && d.Type != form.Age {
			t.Errorf("older_than is a %s, want an age", d.Type)
		}
	}
	for _, d := range defs[string(TypeScalarIndex)] {
		if d.Name == "stem" && (d.When == nil || d.When.Field != "index_type" || !slices.Equal(d.When.Values, []string{"FTS"})) {
			t.Errorf("stem applies to %v", d.When)
		}
	}
	if len(defs) != len(Types) {
		t.Errorf("%d job types, want %d", len(defs), len(Types))
	}
}
