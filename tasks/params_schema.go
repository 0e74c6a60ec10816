package tasks

import (
	"github.com/floe/floe/form"
)

// The task parameters, defined once as form fields: validation
// (params_validate.go), the console's Maintenance forms (forms.go) and the
// worker's job parameters (sent in Welcome) all read these schemas.

// Schema is one task type's parameters.
type Schema struct {
	Type  Type
	Op    string // the task API's operation name, e.g. "compact"
	Title string
	Help  string
	// BodyOptional: an empty body is an empty object.
	BodyOptional bool
	Fields       []form.Field
	// NeedOneOf: at least one of these fields must be given.
	NeedOneOf []string
	// Strict refuses a member the schema does not define (400 naming
	// it) instead of dropping it: set on tasks that delete data, where a
	// misspelt or unknown setting (a dry_run before there was one) must
	// never turn into a real run.
	Strict bool
}

// Field returns the named field.
func (s Schema) Field(name string) (form.Field, bool) { return form.Find(s.Fields, name) }

// Compaction, index and cleanup defaults, as the Lance engine documents
// them.
const (
	defaultTargetRowsPerFragment = 1048576
	defaultMaterializeThreshold  = 0.1
	defaultMaxRowsPerGroup       = 1024
	defaultNumIndicesToMerge     = 1
	defaultVectorSampleRate      = 256
	defaultVectorMaxIterations   = 50
	defaultHNSWM                 = 20
	defaultHNSWEfConstruction    = 300
	defaultFTSMaxTokenLength     = 40
)

// The index types of the two index tasks.
var (
	scalarIndexTypes = []string{"BTREE", "BITMAP", "LABEL_LIST", "FTS"}
	vectorIndexTypes = []string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ"}
)

var (
	ftsOnly  = &form.Condition{Field: "index_type", Values: []string{"FTS"}}
	hnswOnly = &form.Condition{Field: "index_type", Values: []string{"IVF_HNSW_SQ", "IVF_HNSW_PQ"}}
)

func atLeast(n float64) *float64 { return &n }

func options(values ...string) []form.Option {
	out := make([]form.Option, len(values))
	for i, v := range values {
		out[i] = form.Option{Value: v}
	}
	return out
}

func indexFields(types []string, extra ...form.Field) []form.Field {
	out := []form.Field{
		{Name: "column", Label: "Column", Type: form.String, Required: true, Help: "The column to index."},
		{Name: "index_type", Label: "Index type", Type: form.Select, Required: true, Options: options(types...)},
	}
	out = append(out, extra...)
	return append(out,
		form.Field{Name: "name", Label: "Index name", Type: form.String, Help: "Empty: the engine names it after the column."},
		form.Field{Name: "replace", Label: "Replace an existing index", Type: form.Bool, Default: false},
	)
}

func fts(f form.Field) form.Field {
	f.When = ftsOnly
	return f
}

var schemas = []Schema{
	{Type: TypeCompact, Op: "compact", Title: "Compact", Help: "Merge small fragments into larger ones.", BodyOptional: true, Fields: []form.Field{
		{Name: "target_rows_per_fragment", Label: "Target rows per fragment", Type: form.Int, Min: atLeast(1), Default: int64(defaultTargetRowsPerFragment)},
		{Name: "max_rows_per_group", Label: "Max rows per group", Type: form.Int, Min: atLeast(1), Default: int64(defaultMaxRowsPerGroup)},
		{Name: "max_bytes_per_file", Label: "Max bytes per file", Type: form.Int, Min: atLeast(0), Default: int64(0), Help: "0: no limit."},
		{Name: "materialize_deletions", Label: "Materialize deletions", Type: form.Bool, Default: true},
		// >= 1 never materialises; < 0 always does.
		{Name: "materialize_deletions_threshold", Label: "Materialize deletions threshold", Type: form.Float, Default: defaultMaterializeThreshold, ZeroIsDefault: true, Help: "Fraction of deleted rows."},
		{Name: "compaction_mode", Label: "Compaction mode", Type: form.Select, Options: options("reencode", "try_binary_copy", "force_binary_copy"), Default: "reencode"},
	}},
	{Type: TypeScalarIndex, Op: "create_scalar_index", Title: "Create scalar index", Help: "BTREE, BITMAP, LABEL_LIST or FTS on one column.",
		Fields: indexFields(scalarIndexTypes,
			fts(form.Field{Name: "with_position", Label: "FTS: keep positions", Type: form.Bool, Default: false}),
			fts(form.Field{Name: "base_tokenizer", Label: "FTS: tokenizer", Type: form.String, Default: "simple"}),
			fts(form.Field{Name: "language", Label: "FTS: language", Type: form.String, Default: "English"}),
			fts(form.Field{Name: "lower_case", Label: "FTS: lower case", Type: form.Bool, Default: true}),
			fts(form.Field{Name: "stem", Label: "FTS: stem", Type: form.Bool, Default: true}),
			fts(form.Field{Name: "remove_stop_words", Label: "FTS: remove stop words", Type: form.Bool, Default: true}),
			fts(form.Field{Name: "ascii_folding", Label: "FTS: ASCII folding", Type: form.Bool, Default: true}),
			fts(form.Field{Name: "max_token_length", Label: "FTS: max token length", Type: form.Int, Min: atLeast(1), Default: int64(defaultFTSMaxTokenLength)}),
		)},
	{Type: TypeVectorIndex, Op: "create_vector_index", Title: "Create vector index", Help: "An IVF index on a vector column.",
		Fields: indexFields(vectorIndexTypes,
			form.Field{Name: "distance_type", Label: "Distance", Type: form.Select, Options: options("l2", "cosine", "dot"), Default: "l2"},
			form.Field{Name: "num_partitions", Label: "Partitions", Type: form.Int, Min: atLeast(1), Help: "Empty: the engine chooses from the data."},
			form.Field{Name: "num_sub_vectors", Label: "Sub-vectors", Type: form.Int, Min: atLeast(1), Help: "Empty: the engine chooses from the data."},
			form.Field{Name: "num_bits", Label: "Bits", Type: form.Int, Min: atLeast(1)},
			form.Field{Name: "sample_rate", Label: "Sample rate", Type: form.Int, Min: atLeast(1), Default: int64(defaultVectorSampleRate)},
			form.Field{Name: "max_iterations", Label: "Max iterations", Type: form.Int, Min: atLeast(1), Default: int64(defaultVectorMaxIterations)},
			form.Field{Name: "m", Label: "HNSW m", Type: form.Int, Min: atLeast(1), Default: int64(defaultHNSWM), DefaultWhen: hnswOnly, Help: "HNSW types; default 20."},
			form.Field{Name: "ef_construction", Label: "HNSW ef_construction", Type: form.Int, Min: atLeast(1), Default: int64(defaultHNSWEfConstruction), DefaultWhen: hnswOnly, Help: "HNSW types; default 300."},
		)},
	{Type: TypeOptimizeIndices, Op: "optimize_indices", Title: "Optimize indices", Help: "Bring indices up to date with new data.", BodyOptional: true, Fields: []form.Field{
		{Name: "index_names", Label: "Index names", Type: form.StringList, Default: []string{}, Help: "One per line, or separated by commas; empty means every index."},
		{Name: "num_indices_to_merge", Label: "Indices to merge", Type: form.Int, Min: atLeast(0), Default: int64(defaultNumIndicesToMerge)},
		{Name: "retrain", Label: "Retrain", Type: form.Bool, Default: false},
	}},
	{Type: TypeCleanup, Op: "cleanup", Title: "Clean up old versions", Help: "Delete versions no longer needed. Give older_than, retain_versions or both; a dry run first lists what would go.",
		NeedOneOf: []string{"older_than", "retain_versions"}, Strict: true, Fields: []form.Field{
			{Name: "dry_run", Label: "Dry run", Type: form.Bool, Default: false, Help: "List the versions and files a cleanup would delete, with their bytes, and delete nothing."},
			{Name: "older_than", Label: "Older than", Type: form.Age, Help: "A whole number and d, h, m or s, e.g. 7d."},
			{Name: "retain_versions", Label: "Retain versions", Type: form.Int, Min: atLeast(1)},
			{Name: "delete_unverified", Type: form.Bool, Default: false, Fixed: "floe never deletes unverified files"},
			{Name: "error_if_tagged_old_versions", Type: form.Bool, Default: false, Fixed: "tagged versions are always kept without an error"},
		}},
}

// Schemas lists every task type's parameters, in the order of Types.
func Schemas() []Schema { return schemas }

// SchemaOf returns one task type's parameters.
func SchemaOf(t Type) (Schema, bool) {
	for _, s := range schemas {
		if s.Type == t {
			return s, true
		}
	}
	return Schema{}, false
}

// JobParams gives every task type's parameters for the workers that run
// them (the plugin channel sends them in Welcome), keyed by job type.
func JobParams() map[string][]form.Field {
	out := make(map[string][]form.Field, len(schemas))
	for _, sc := range schemas {
		out[string(sc.Type)] = sc.Fields
	}
	return out
}
