package handlers

import (
	"net/url"
	"strings"

	"github.com/floe/floe/observe"
	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// The index types a column can take, by the Arrow type the worker reports
// (apache-arrow's names: "Utf8", "FixedSizeList[64]<Float32>", "List<Utf8>").
var (
	vectorIndexTypes  = []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ"}
	stringIndexTypes  = []string{"BTREE", "BITMAP", "FTS"}
	numericIndexTypes = []string{"BTREE", "BITMAP"}
	listIndexTypes    = []string{"LABEL_LIST"}
)

// indexTypesFor is what an index on a column may be; nil for a type no
// index covers (structs, binary, maps). Workers report the type as a string
// ("FixedSizeList[64]<Float32>") or an Arrow JSON type with the item type in
// the field's children; both are read.
func indexTypesFor(f observe.Field) []string {
	t := strings.ToLower(strings.TrimSpace(f.TypeString()))
	inner := ""
	if i := strings.IndexAny(t, "<"); i >= 0 {
		inner = t[i+1:]
	} else if len(f.Children) > 0 {
		inner = strings.ToLower(f.Children[0].TypeString())
	}
	switch {
	case strings.HasPrefix(t, "fixedsizelist") || strings.HasPrefix(t, "fixed_size_list"):
		if strings.Contains(inner, "float") || strings.Contains(inner, "double") {
			return vectorIndexTypes
		}
		return nil
	case strings.HasPrefix(t, "list") || strings.HasPrefix(t, "largelist") || strings.HasPrefix(t, "large_list"):
		if scalarType(inner) {
			return listIndexTypes
		}
		return nil
	case t == "utf8" || t == "largeutf8" || t == "string" || t == "large_string" || t == "large_utf8":
		return stringIndexTypes
	case strings.HasPrefix(t, "dictionary"), scalarType(t):
		return numericIndexTypes
	}
	return nil
}

// scalarType: numbers, booleans, dates, times and strings.
func scalarType(t string) bool {
	for _, p := range []string{"int", "uint", "float", "double", "halffloat", "bool", "date", "time", "decimal", "utf8", "string", "large_string", "largeutf8"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// columnChoices lists the top-level columns an index form can take: vector
// columns for the vector form, every other indexable column for the
// scalar form, each with the index types it allows.
func columnChoices(schema []observe.Field, vector bool) []views.MaintChoice {
	var out []views.MaintChoice
	for _, f := range schema {
		types := indexTypesFor(f)
		if len(types) == 0 || (types[0] == vectorIndexTypes[0]) != vector {
			continue
		}
		out = append(out, views.MaintChoice{Value: f.Name, Label: f.Name + " — " + f.TypeString(), IndexTypes: strings.Join(types, " ")})
	}
	return out
}

// engineFixed are the task parameters the bundled Lance worker (LanceDB 0.39
// optimize()) can only run at the engine's value: the form shows that value
// read-only with the reason instead of an input whose other values would
// fail the job. The sentences mirror workers/lance/lib/jobs.mjs refusals
// (TestEngineFixedMatchesWorker keeps the two lists equal).
var engineFixed = map[tasks.Type]map[string]string{
	tasks.TypeCompact: {
		"target_rows_per_fragment":        "LanceDB 0.39 optimize() always compacts to 1048576 rows per fragment.",
		"max_rows_per_group":              "LanceDB 0.39 optimize() always writes groups of 1024 rows.",
		"max_bytes_per_file":              "LanceDB 0.39 optimize() uses the engine's default file size.",
		"materialize_deletions":           "LanceDB 0.39 optimize() always materializes deletions past the threshold.",
		"materialize_deletions_threshold": "LanceDB 0.39 optimize() always uses 0.1.",
		"compaction_mode":                 "LanceDB 0.39 optimize() only re-encodes.",
	},
	tasks.TypeOptimizeIndices: {
		"num_indices_to_merge": "LanceDB 0.39 optimize() merges new data into one delta with its defaults.",
		"retrain":              "LanceDB 0.39 optimize() cannot retrain an index; rebuild it with a create index task and Replace.",
	},
}

// fixedMismatch refuses a value for a field the engine fixes (the form has
// no input for it; an API-style post may still send one) unless it is that
// value: the job would fail on the worker with the same reason.
func fixedMismatch(form views.MaintForm, vals url.Values) (field, why string) {
	for _, f := range form.Fields {
		if v := strings.TrimSpace(vals.Get(f.Name)); f.Kind == "fixed" && v != "" && v != f.Fixed {
			return f.Name, f.Label + " can only be " + f.Fixed + ": " + f.Help
		}
	}
	return "", ""
}

// indexTypeMismatch is the sentence for an index type the chosen column
// cannot take, or "" when it can (or the column's type is unknown).
func indexTypeMismatch(form views.MaintForm, column, indexType string) string {
	if column == "" || indexType == "" {
		return ""
	}
	for _, f := range form.Fields {
		if f.Name != "column" {
			continue
		}
		for _, c := range f.Choices {
			if c.Value != column {
				continue
			}
			allowed := strings.Fields(c.IndexTypes)
			for _, a := range allowed {
				if strings.EqualFold(a, indexType) {
					return ""
				}
			}
			return indexType + " does not apply to " + c.Label + "; pick " + orList(allowed) + "."
		}
	}
	return ""
}

func orList(s []string) string {
	switch len(s) {
	case 0:
		return "another column"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
