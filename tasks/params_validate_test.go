package tasks

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/floe/floe/fault"
)

// paramCase is one body and either the params it stores or an error.
type paramCase struct {
	name string
	body string
	want map[string]any // nil: want fault.Invalid
}

func runParamCases(t *testing.T, typ Type, cases []paramCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ValidateParams(typ, []byte(c.body))
			if c.want == nil {
				if !errors.Is(err, fault.Invalid) {
					t.Fatalf("ValidateParams(%s) = %v, %v; want fault.Invalid", c.body, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ValidateParams(%s): %v", c.body, err)
			}
			// Compare through JSON, as the params are stored and shown.
			if g, w := jsonOf(t, got), jsonOf(t, c.want); g != w {
				t.Fatalf("params of %s\n got %s\nwant %s", c.body, g, w)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compactDefaults is what an empty compact body stores.
func compactDefaults(over map[string]any) map[string]any {
	p := map[string]any{
		"target_rows_per_fragment": 1048576, "materialize_deletions": true,
		"materialize_deletions_threshold": 0.1, "max_rows_per_group": 1024,
		"max_bytes_per_file": 0, "compaction_mode": "reencode",
	}
	for k, v := range over {
		p[k] = v
	}
	return p
}

func TestCompactParams(t *testing.T) {
	runParamCases(t, TypeCompact, []paramCase{
		{"empty body", "", compactDefaults(nil)},
		{"whitespace body", " \n", compactDefaults(nil)},
		{"empty object", "{}", compactDefaults(nil)},
		{"unknown field ignored", `{"bogus": 1, "Compaction_Mode": "x"}`, compactDefaults(nil)},
		{"null is default", `{"compaction_mode": null}`, compactDefaults(nil)},
		{"target rows", `{"target_rows_per_fragment": 5000}`, compactDefaults(map[string]any{"target_rows_per_fragment": 5000})},
		{"target rows zero", `{"target_rows_per_fragment": 0}`, nil},
		{"target rows negative", `{"target_rows_per_fragment": -1}`, nil},
		{"target rows fraction", `{"target_rows_per_fragment": 1.5}`, nil},
		{"target rows string", `{"target_rows_per_fragment": "10"}`, nil},
		{"target rows huge", `{"target_rows_per_fragment": 99999999999999999999}`, nil},
		{"materialize false", `{"materialize_deletions": false}`, compactDefaults(map[string]any{"materialize_deletions": false})},
		{"materialize not bool", `{"materialize_deletions": "false"}`, nil},
		{"materialize number", `{"materialize_deletions": 0}`, nil},
		{"threshold zero means default", `{"materialize_deletions_threshold": 0}`, compactDefaults(nil)},
		{"threshold half", `{"materialize_deletions_threshold": 0.5}`, compactDefaults(map[string]any{"materialize_deletions_threshold": 0.5})},
		{"threshold one never", `{"materialize_deletions_threshold": 1}`, compactDefaults(map[string]any{"materialize_deletions_threshold": 1})},
		{"threshold above one", `{"materialize_deletions_threshold": 2.5}`, compactDefaults(map[string]any{"materialize_deletions_threshold": 2.5})},
		{"threshold negative always", `{"materialize_deletions_threshold": -1}`, compactDefaults(map[string]any{"materialize_deletions_threshold": -1})},
		{"threshold string", `{"materialize_deletions_threshold": "0.2"}`, nil},
		{"rows per group", `{"max_rows_per_group": 2048}`, compactDefaults(map[string]any{"max_rows_per_group": 2048})},
		{"rows per group zero", `{"max_rows_per_group": 0}`, nil},
		{"bytes per file zero", `{"max_bytes_per_file": 0}`, compactDefaults(nil)},
		{"bytes per file set", `{"max_bytes_per_file": 1073741824}`, compactDefaults(map[string]any{"max_bytes_per_file": 1073741824})},
		{"bytes per file negative", `{"max_bytes_per_file": -1}`, nil},
		{"mode reencode", `{"compaction_mode": "reencode"}`, compactDefaults(nil)},
		{"mode try_binary_copy", `{"compaction_mode": "try_binary_copy"}`, compactDefaults(map[string]any{"compaction_mode": "try_binary_copy"})},
		{"mode force_binary_copy", `{"compaction_mode": "force_binary_copy"}`, compactDefaults(map[string]any{"compaction_mode": "force_binary_copy"})},
		{"mode upper case", `{"compaction_mode": "REENCODE"}`, nil},
		{"mode mixed case", `{"compaction_mode": "Try_Binary_Copy"}`, nil},
		{"mode empty string", `{"compaction_mode": ""}`, nil},
		{"mode unknown", `{"compaction_mode": "binary"}`, nil},
		{"mode not string", `{"compaction_mode": 1}`, nil},
		{"array body", `[]`, nil},
		{"string body", `"x"`, nil},
		{"null body", `null`, nil},
		{"broken json", `{"target_rows_per_fragment": `, nil},
		{"trailing data", `{} {}`, nil},
	})
}

// TestCleanupRefusesUnknownFields: the careful user's cleanup with
// "dry_run": true ran before cleanup had a dry run, because unknown fields
// were dropped. A task that deletes data refuses them, naming the field.
func TestCleanupRefusesUnknownFields(t *testing.T) {
	_, err := ValidateParams(TypeCleanup, []byte(`{"retain_versions": 2, "dryRun": true}`))
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.Invalid || fe.Field != "dryRun" {
		t.Fatalf("err = %v; want Invalid naming dryRun", err)
	}
	// Tasks that delete nothing keep dropping what they do not know.
	if _, err := ValidateParams(TypeCompact, []byte(`{"dry_run": true}`)); err != nil {
		t.Fatalf("compact with an unknown field: %v", err)
	}
}

func TestCleanupParams(t *testing.T) {
	both := func(over map[string]any) map[string]any {
		p := map[string]any{"delete_unverified": false, "dry_run": false, "error_if_tagged_old_versions": false}
		for k, v := range over {
			p[k] = v
		}
		return p
	}
	runParamCases(t, TypeCleanup, []paramCase{
		{"empty body", "", nil},
		{"empty object", "{}", nil},
		{"7d", `{"older_than": "7d"}`, both(map[string]any{"older_than": "7d"})},
		{"168h", `{"older_than": "168h"}`, both(map[string]any{"older_than": "168h"})},
		{"30m", `{"older_than": "30m"}`, both(map[string]any{"older_than": "30m"})},
		{"90s", `{"older_than": "90s"}`, both(map[string]any{"older_than": "90s"})},
		{"0d", `{"older_than": "0d"}`, both(map[string]any{"older_than": "0d"})},
		{"weeks refused", `{"older_than": "1w"}`, nil},
		{"decimal refused", `{"older_than": "1.5d"}`, nil},
		{"negative refused", `{"older_than": "-1d"}`, nil},
		{"compound refused", `{"older_than": "1d12h"}`, nil},
		{"upper case refused", `{"older_than": "7D"}`, nil},
		{"space refused", `{"older_than": "7 d"}`, nil},
		{"leading space refused", `{"older_than": " 7d"}`, nil},
		{"trailing space refused", `{"older_than": "7d "}`, nil},
		{"no unit refused", `{"older_than": "7"}`, nil},
		{"no number refused", `{"older_than": "d"}`, nil},
		{"empty refused", `{"older_than": ""}`, nil},
		{"number refused", `{"older_than": 7}`, nil},
		{"huge refused", `{"older_than": "99999999999999999999d"}`, nil},
		{"newline refused", `{"older_than": "7d\n"}`, nil},
		{"retain 3", `{"retain_versions": 3}`, both(map[string]any{"retain_versions": 3})},
		{"retain 0", `{"retain_versions": 0}`, nil},
		{"retain negative", `{"retain_versions": -2}`, nil},
		{"retain fraction", `{"retain_versions": 1.5}`, nil},
		{"retain string", `{"retain_versions": "3"}`, nil},
		{"both", `{"older_than": "1h", "retain_versions": 10}`, both(map[string]any{"older_than": "1h", "retain_versions": 10})},
		{"delete_unverified false", `{"older_than": "7d", "delete_unverified": false}`, both(map[string]any{"older_than": "7d"})},
		{"delete_unverified true", `{"older_than": "7d", "delete_unverified": true}`, nil},
		{"delete_unverified string", `{"older_than": "7d", "delete_unverified": "false"}`, nil},
		{"error_if_tagged false", `{"retain_versions": 1, "error_if_tagged_old_versions": false}`, both(map[string]any{"retain_versions": 1})},
		{"error_if_tagged true", `{"retain_versions": 1, "error_if_tagged_old_versions": true}`, nil},
		{"only flags", `{"delete_unverified": false}`, nil},
		{"unknown refused: cleanup deletes data", `{"older_than": "7d", "extra": [1,2]}`, nil},
		{"dry run", `{"retain_versions": 2, "dry_run": true}`, both(map[string]any{"retain_versions": 2, "dry_run": true})},
		{"dry run not a bool", `{"retain_versions": 2, "dry_run": "yes"}`, nil},
		{"misspelt dry run refused", `{"retain_versions": 2, "dryrun": true}`, nil},
		{"null older_than with retain", `{"older_than": null, "retain_versions": 2}`, both(map[string]any{"retain_versions": 2})},
	})
}

func TestScalarIndexParams(t *testing.T) {
	runParamCases(t, TypeScalarIndex, []paramCase{
		{"btree", `{"column": "id", "index_type": "BTREE"}`, map[string]any{"column": "id", "index_type": "BTREE", "replace": false}},
		{"bitmap named", `{"column": "c", "index_type": "BITMAP", "name": "c_idx", "replace": true}`,
			map[string]any{"column": "c", "index_type": "BITMAP", "name": "c_idx", "replace": true}},
		{"label list", `{"column": "tags", "index_type": "LABEL_LIST"}`, map[string]any{"column": "tags", "index_type": "LABEL_LIST", "replace": false}},
		{"fts defaults", `{"column": "text", "index_type": "FTS"}`, map[string]any{
			"column": "text", "index_type": "FTS", "replace": false, "with_position": false, "lower_case": true,
			"stem": true, "remove_stop_words": true, "ascii_folding": true, "base_tokenizer": "simple",
			"language": "English", "max_token_length": 40}},
		{"fts options", `{"column": "text", "index_type": "FTS", "with_position": true, "language": "French", "max_token_length": 10}`, map[string]any{
			"column": "text", "index_type": "FTS", "replace": false, "with_position": true, "lower_case": true,
			"stem": true, "remove_stop_words": true, "ascii_folding": true, "base_tokenizer": "simple",
			"language": "French", "max_token_length": 10}},
		{"fts option on btree", `{"column": "id", "index_type": "BTREE", "stem": true}`, nil},
		{"no body", ``, nil},
		{"no column", `{"index_type": "BTREE"}`, nil},
		{"empty column", `{"column": "", "index_type": "BTREE"}`, nil},
		{"no type", `{"column": "id"}`, nil},
		{"lower type", `{"column": "id", "index_type": "btree"}`, nil},
		{"vector type", `{"column": "id", "index_type": "IVF_PQ"}`, nil},
		{"replace not bool", `{"column": "id", "index_type": "BTREE", "replace": "yes"}`, nil},
		{"empty name", `{"column": "id", "index_type": "BTREE", "name": ""}`, nil},
	})
}

func TestVectorIndexParams(t *testing.T) {
	runParamCases(t, TypeVectorIndex, []paramCase{
		{"ivf_pq", `{"column": "v", "index_type": "IVF_PQ", "num_partitions": 8, "num_sub_vectors": 4}`, map[string]any{
			"column": "v", "index_type": "IVF_PQ", "replace": false, "distance_type": "l2",
			"num_partitions": 8, "num_sub_vectors": 4, "sample_rate": 256, "max_iterations": 50}},
		{"hnsw defaults", `{"column": "v", "index_type": "IVF_HNSW_SQ", "distance_type": "cosine"}`, map[string]any{
			"column": "v", "index_type": "IVF_HNSW_SQ", "replace": false, "distance_type": "cosine",
			"sample_rate": 256, "max_iterations": 50, "m": 20, "ef_construction": 300}},
		{"every type", `{"column": "v", "index_type": "IVF_RQ", "num_bits": 1}`, map[string]any{
			"column": "v", "index_type": "IVF_RQ", "replace": false, "distance_type": "l2",
			"num_bits": 1, "sample_rate": 256, "max_iterations": 50}},
		{"flat", `{"column": "v", "index_type": "IVF_FLAT", "distance_type": "dot"}`, map[string]any{
			"column": "v", "index_type": "IVF_FLAT", "replace": false, "distance_type": "dot",
			"sample_rate": 256, "max_iterations": 50}},
		{"bad distance", `{"column": "v", "index_type": "IVF_PQ", "distance_type": "L2"}`, nil},
		{"bad type", `{"column": "v", "index_type": "HNSW"}`, nil},
		{"zero partitions", `{"column": "v", "index_type": "IVF_PQ", "num_partitions": 0}`, nil},
		{"no column", `{"index_type": "IVF_PQ"}`, nil},
		{"no body", ``, nil},
	})
}

func TestOptimizeIndicesParams(t *testing.T) {
	runParamCases(t, TypeOptimizeIndices, []paramCase{
		{"empty", ``, map[string]any{"index_names": []string{}, "num_indices_to_merge": 1, "retrain": false}},
		{"names", `{"index_names": ["a", "b"], "num_indices_to_merge": 0, "retrain": true}`,
			map[string]any{"index_names": []string{"a", "b"}, "num_indices_to_merge": 0, "retrain": true}},
		{"null names", `{"index_names": null}`, map[string]any{"index_names": []string{}, "num_indices_to_merge": 1, "retrain": false}},
		{"names not list", `{"index_names": "a"}`, nil},
		{"empty name", `{"index_names": [""]}`, nil},
		{"negative merge", `{"num_indices_to_merge": -1}`, nil},
		{"retrain string", `{"retrain": "true"}`, nil},
	})
}

func TestParseType(t *testing.T) {
	for _, typ := range Types {
		if got, err := ParseType(string(typ)); err != nil || got != typ {
			t.Errorf("ParseType(%s) = %v, %v", typ, got, err)
		}
	}
	for _, bad := range []string{"", "compact", "LANCE_COMPACT", "lance_compact "} {
		if _, err := ParseType(bad); !errors.Is(err, fault.Invalid) {
			t.Errorf("ParseType(%q) = %v, want fault.Invalid", bad, err)
		}
	}
	if !reflect.DeepEqual(len(Types), 5) {
		t.Fatal("five task types")
	}
}

// Any body gives params that marshal, or fault.Invalid; never another error or
// a panic (a client mistake must never become a 500).
func FuzzValidateParams(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"older_than":"7d"}`, `{"target_rows_per_fragment":1e400}`,
		`{"column":"c","index_type":"FTS","max_token_length":-1}`, `{"index_names":[1]}`, "\xff", `{"a":`} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		typ := Types[int(which)%len(Types)]
		p, err := ValidateParams(typ, []byte(body))
		if err != nil {
			if !errors.Is(err, fault.Invalid) {
				t.Fatalf("%s %q: %v is not fault.Invalid", typ, body, err)
			}
			return
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("%s %q: params do not marshal: %v", typ, body, err)
		}
	})
}
