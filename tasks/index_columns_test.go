package tasks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/floe/floe/observe"
)

func TestIndexTypesFor(t *testing.T) {
	field := func(typ string, kids ...observe.Field) observe.Field {
		raw, _ := json.Marshal(typ)
		return observe.Field{Name: "c", Type: raw, Children: kids}
	}
	obj := func(name string, kids ...observe.Field) observe.Field {
		return observe.Field{Name: "c", Type: json.RawMessage(`{"name":"` + name + `"}`), Children: kids}
	}
	tests := []struct {
		name string
		f    observe.Field
		want []string
	}{
		{"float vector (apache-arrow string)", field("FixedSizeList[768]<Float32>"), vectorIndexTypes},
		{"float vector (Arrow JSON + child)", obj("fixed_size_list", field("float32")), vectorIndexTypes},
		{"byte vector takes none", field("FixedSizeList[8]<Uint8>"), nil},
		{"string", field("Utf8"), stringIndexTypes},
		{"large string", field("LargeUtf8"), stringIndexTypes},
		{"integer", field("Int64"), numericIndexTypes},
		{"timestamp", field("Timestamp<MICROSECOND>"), numericIndexTypes},
		{"boolean", field("Bool"), numericIndexTypes},
		{"dictionary labels", field("Dictionary<Int32, Utf8>"), numericIndexTypes},
		{"list of labels", field("List<Utf8>"), listIndexTypes},
		{"list of labels (Arrow JSON)", obj("list", field("utf8")), listIndexTypes},
		{"list of structs takes none", field("List<Struct<{x:Int32}>>"), nil},
		{"struct takes none", field("Struct<{x:Int32}>"), nil},
		{"binary takes none", field("Binary"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IndexTypesFor(tc.f); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEngineFixedMatchesWorker keeps the read-only form values equal to the
// parameters the bundled Lance worker refuses outright (index_names is
// refused only for some tables, so it stays an input).
func TestEngineFixedMatchesWorker(t *testing.T) {
	// The executors live by kind in job_*.mjs; read them all.
	files, err := filepath.Glob("../workers/lance/lib/job_*.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no job executors found: %v", err)
	}
	refused := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`refuse\('([a-z_]+)'`).FindAllStringSubmatch(string(src), -1) {
			refused[m[1]] = true
		}
	}
	if len(refused) == 0 {
		t.Fatal("the executors refuse no parameter: the pattern no longer matches how they refuse")
	}
	delete(refused, "index_names")
	shown := map[string]bool{}
	for _, byType := range EngineFixed() {
		for name := range byType {
			shown[name] = true
		}
	}
	for _, sc := range Schemas() {
		for _, f := range sc.Fields {
			if f.Fixed != "" {
				shown[f.Name] = true
			}
		}
	}
	var missing, extra []string
	for n := range refused {
		if !shown[n] {
			missing = append(missing, n)
		}
	}
	for n := range shown {
		if !refused[n] {
			extra = append(extra, n)
		}
	}
	if len(missing)+len(extra) > 0 {
		t.Errorf("the worker refuses %s without a read-only form field; the form fixes %s the worker takes", strings.Join(missing, ", "), strings.Join(extra, ", "))
	}
}
