package handlers

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/floe/floe/tasks"
	"github.com/floe/floe/views"
)

// maintForms describes the five task forms. Every field is optional unless
// its help says otherwise; an empty field is left out of the request body,
// so the task API's defaults apply exactly as they do for API clients.
func maintForms() []views.MaintForm {
	boolOpts := []string{"true", "false"}
	return []views.MaintForm{
		{Type: string(tasks.TypeCompact), Op: "compact", Title: "Compact", Help: "Merge small fragments into larger ones.", Fields: []views.MaintField{
			{Name: "target_rows_per_fragment", Label: "Target rows per fragment", Kind: "int", Help: "Default 1048576."},
			{Name: "max_rows_per_group", Label: "Max rows per group", Kind: "int", Help: "Default 1024."},
			{Name: "max_bytes_per_file", Label: "Max bytes per file", Kind: "int", Help: "0 or empty: no limit."},
			{Name: "materialize_deletions", Label: "Materialize deletions", Kind: "bool", Options: boolOpts},
			{Name: "materialize_deletions_threshold", Label: "Materialize deletions threshold", Kind: "number", Help: "Fraction of deleted rows; default 0.1."},
			{Name: "compaction_mode", Label: "Compaction mode", Kind: "select", Options: []string{"reencode", "try_binary_copy", "force_binary_copy"}},
		}},
		{Type: string(tasks.TypeScalarIndex), Op: "create_scalar_index", Title: "Create scalar index", Help: "BTREE, BITMAP, LABEL_LIST or FTS on one column.", Fields: []views.MaintField{
			{Name: "column", Label: "Column", Kind: "text", Help: "Required."},
			{Name: "index_type", Label: "Index type", Kind: "select", Options: []string{"BTREE", "BITMAP", "LABEL_LIST", "FTS"}, Help: "Required."},
			{Name: "name", Label: "Index name", Kind: "text"},
			{Name: "replace", Label: "Replace an existing index", Kind: "bool", Options: boolOpts},
		}},
		{Type: string(tasks.TypeVectorIndex), Op: "create_vector_index", Title: "Create vector index", Help: "An IVF index on a vector column.", Fields: []views.MaintField{
			{Name: "column", Label: "Column", Kind: "text", Help: "Required."},
			{Name: "index_type", Label: "Index type", Kind: "select", Options: []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ"}, Help: "Required."},
			{Name: "distance_type", Label: "Distance", Kind: "select", Options: []string{"l2", "cosine", "dot"}},
			{Name: "num_partitions", Label: "Partitions", Kind: "int"},
			{Name: "num_sub_vectors", Label: "Sub-vectors", Kind: "int"},
			{Name: "num_bits", Label: "Bits", Kind: "int"},
			{Name: "sample_rate", Label: "Sample rate", Kind: "int", Help: "Default 256."},
			{Name: "max_iterations", Label: "Max iterations", Kind: "int", Help: "Default 50."},
			{Name: "m", Label: "HNSW m", Kind: "int"},
			{Name: "ef_construction", Label: "HNSW ef_construction", Kind: "int"},
			{Name: "name", Label: "Index name", Kind: "text"},
			{Name: "replace", Label: "Replace an existing index", Kind: "bool", Options: boolOpts},
		}},
		{Type: string(tasks.TypeOptimizeIndices), Op: "optimize_indices", Title: "Optimize indices", Help: "Bring indices up to date with new data.", Fields: []views.MaintField{
			{Name: "index_names", Label: "Index names", Kind: "text", Help: "Comma-separated; empty means every index."},
			{Name: "num_indices_to_merge", Label: "Indices to merge", Kind: "int", Help: "Default 1."},
			{Name: "retrain", Label: "Retrain", Kind: "bool", Options: boolOpts},
		}},
		{Type: string(tasks.TypeCleanup), Op: "cleanup", Title: "Clean up old versions", Help: "Delete versions no longer needed. Give older_than, retain_versions or both.", Fields: []views.MaintField{
			{Name: "older_than", Label: "Older than", Kind: "text", Help: "A whole number and d, h, m or s, e.g. 7d."},
			{Name: "retain_versions", Label: "Retain versions", Kind: "int"},
		}},
	}
}

// taskBody turns a submitted form into the task API's JSON body: empty
// fields are left out; numbers and booleans that parse are sent as such, and
// anything else is sent as the string typed, so the task API's own
// validation words the complaint.
func taskBody(form views.MaintForm, vals url.Values) []byte {
	body := map[string]any{}
	for _, f := range form.Fields {
		s := strings.TrimSpace(vals.Get(f.Name))
		if s == "" {
			continue
		}
		switch f.Kind {
		case "int", "number":
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				body[f.Name] = n
			} else if x, err := strconv.ParseFloat(s, 64); err == nil {
				body[f.Name] = x
			} else {
				body[f.Name] = s
			}
		case "bool":
			if b, err := strconv.ParseBool(s); err == nil {
				body[f.Name] = b
			} else {
				body[f.Name] = s
			}
		default:
			if f.Name == "index_names" {
				var names []string
				for n := range strings.SplitSeq(s, ",") {
					names = append(names, strings.TrimSpace(n))
				}
				body[f.Name] = names
				continue
			}
			body[f.Name] = s
		}
	}
	b, _ := json.Marshal(body)
	return b
}

// fieldOf finds the form field a task API message is about: the field named
// earliest in it ("older_than must be…", "cleanup needs older_than…").
func fieldOf(form views.MaintForm, msg string) string {
	best, at := "", len(msg)+1
	for _, f := range form.Fields {
		i := indexWord(msg, f.Name)
		if i >= 0 && i < at {
			best, at = f.Name, i
		}
	}
	return best
}

// indexWord finds name in msg as a whole word (so "name" does not match
// inside "index_names").
func indexWord(msg, name string) int {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for off := 0; ; {
		i := strings.Index(msg[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(name)
		if (i == 0 || !isWord(msg[i-1])) && (end == len(msg) || !isWord(msg[end])) {
			return i
		}
		off = i + 1
	}
}

// withValues copies the submitted values into the form for re-rendering.
func withValues(form views.MaintForm, vals url.Values) views.MaintForm {
	fields := make([]views.MaintField, len(form.Fields))
	for i, f := range form.Fields {
		f.Value = vals.Get(f.Name)
		fields[i] = f
	}
	form.Fields = fields
	return form
}
