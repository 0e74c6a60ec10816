package tasks

// The task parameters, defined once: validation (params_validate.go), the
// console's Maintenance forms and the worker's job parameters all read
// these schemas.

// Kind is the kind of value a parameter holds.
type Kind string

// Parameter kinds.
const (
	KindInt     Kind = "int"     // a JSON integer no smaller than Min
	KindNumber  Kind = "number"  // any finite JSON number
	KindBool    Kind = "bool"    // true or false
	KindString  Kind = "string"  // a non-empty string
	KindSelect  Kind = "select"  // one of Options, case-sensitive
	KindStrings Kind = "strings" // a list of non-empty strings
	KindAge     Kind = "age"     // a whole number and d, h, m or s: "7d"
)

// Field is one parameter of a task type.
type Field struct {
	Name     string
	Label    string // for forms
	Help     string // one sentence for forms; also ends a "required" complaint
	Kind     Kind
	Required bool
	Min      int64    // KindInt only
	Options  []string // KindSelect only
	// Default is stored when the field is absent (int64, float64, bool,
	// string or []string); nil stores nothing, so the engine decides.
	Default any
	// ZeroIsDefault: a given 0 means "the default" (KindNumber).
	ZeroIsDefault bool
	// Only limits the field to tasks whose other field has one of some
	// values; giving it otherwise is refused.
	Only *Condition
	// DefaultOnly fills Default only while the condition holds; otherwise
	// the field is optional without a default.
	DefaultOnly *Condition
	// MustBeFalse: an option the API has that floe never allows; Help says
	// why.
	MustBeFalse bool
	// APIOnly fields are accepted from API clients but not offered in forms.
	APIOnly bool
}

// Condition is "field is one of values".
type Condition struct {
	Field  string
	Values []string
}

func (c *Condition) holds(p map[string]any) bool {
	v, _ := p[c.Field].(string)
	for _, w := range c.Values {
		if v == w {
			return true
		}
	}
	return false
}

// Schema is one task type's parameters.
type Schema struct {
	Type  Type
	Op    string // the task API's operation name, e.g. "compact"
	Title string
	Help  string
	// BodyOptional: an empty body is an empty object.
	BodyOptional bool
	Fields       []Field
	// NeedOneOf: at least one of these fields must be given.
	NeedOneOf []string
}

// Field returns the named field.
func (s Schema) Field(name string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

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
	maxOlderThanAmount           = 1 << 40 // far past any real retention, and no overflow when scaled to seconds
)

var (
	ftsOnly  = &Condition{Field: "index_type", Values: []string{"FTS"}}
	hnswOnly = &Condition{Field: "index_type", Values: []string{"IVF_HNSW_SQ", "IVF_HNSW_PQ"}}
)

func indexFields(types []string, extra ...Field) []Field {
	out := []Field{
		{Name: "column", Label: "Column", Kind: KindString, Required: true, Help: "the column to index"},
		{Name: "index_type", Label: "Index type", Kind: KindSelect, Required: true, Options: types, Help: "one of " + quoteList(types)},
	}
	out = append(out, extra...)
	return append(out,
		Field{Name: "name", Label: "Index name", Kind: KindString, Help: "Empty: the engine names it after the column."},
		Field{Name: "replace", Label: "Replace an existing index", Kind: KindBool, Default: false},
	)
}

var schemas = []Schema{
	{Type: TypeCompact, Op: "compact", Title: "Compact", Help: "Merge small fragments into larger ones.", BodyOptional: true, Fields: []Field{
		{Name: "target_rows_per_fragment", Label: "Target rows per fragment", Kind: KindInt, Min: 1, Default: int64(defaultTargetRowsPerFragment), Help: "Default 1048576."},
		{Name: "max_rows_per_group", Label: "Max rows per group", Kind: KindInt, Min: 1, Default: int64(defaultMaxRowsPerGroup), Help: "Default 1024."},
		{Name: "max_bytes_per_file", Label: "Max bytes per file", Kind: KindInt, Min: 0, Default: int64(0), Help: "0 or empty: no limit."},
		{Name: "materialize_deletions", Label: "Materialize deletions", Kind: KindBool, Default: true},
		// >= 1 never materialises; < 0 always does.
		{Name: "materialize_deletions_threshold", Label: "Materialize deletions threshold", Kind: KindNumber, Default: defaultMaterializeThreshold, ZeroIsDefault: true, Help: "Fraction of deleted rows; default 0.1."},
		{Name: "compaction_mode", Label: "Compaction mode", Kind: KindSelect, Options: []string{"reencode", "try_binary_copy", "force_binary_copy"}, Default: "reencode"},
	}},
	{Type: TypeScalarIndex, Op: "create_scalar_index", Title: "Create scalar index", Help: "BTREE, BITMAP, LABEL_LIST or FTS on one column.",
		Fields: indexFields([]string{"BTREE", "BITMAP", "LABEL_LIST", "FTS"},
			Field{Name: "with_position", Label: "FTS: keep positions", Kind: KindBool, Default: false, Only: ftsOnly},
			Field{Name: "base_tokenizer", Label: "FTS: tokenizer", Kind: KindString, Default: "simple", Only: ftsOnly},
			Field{Name: "language", Label: "FTS: language", Kind: KindString, Default: "English", Only: ftsOnly},
			Field{Name: "lower_case", Label: "FTS: lower case", Kind: KindBool, Default: true, Only: ftsOnly},
			Field{Name: "stem", Label: "FTS: stem", Kind: KindBool, Default: true, Only: ftsOnly},
			Field{Name: "remove_stop_words", Label: "FTS: remove stop words", Kind: KindBool, Default: true, Only: ftsOnly},
			Field{Name: "ascii_folding", Label: "FTS: ASCII folding", Kind: KindBool, Default: true, Only: ftsOnly},
			Field{Name: "max_token_length", Label: "FTS: max token length", Kind: KindInt, Min: 1, Default: int64(defaultFTSMaxTokenLength), Only: ftsOnly},
		)},
	{Type: TypeVectorIndex, Op: "create_vector_index", Title: "Create vector index", Help: "An IVF index on a vector column.",
		Fields: indexFields([]string{"IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ"},
			Field{Name: "distance_type", Label: "Distance", Kind: KindSelect, Options: []string{"l2", "cosine", "dot"}, Default: "l2"},
			Field{Name: "num_partitions", Label: "Partitions", Kind: KindInt, Min: 1, Help: "Empty: the engine chooses from the data."},
			Field{Name: "num_sub_vectors", Label: "Sub-vectors", Kind: KindInt, Min: 1, Help: "Empty: the engine chooses from the data."},
			Field{Name: "num_bits", Label: "Bits", Kind: KindInt, Min: 1},
			Field{Name: "sample_rate", Label: "Sample rate", Kind: KindInt, Min: 1, Default: int64(defaultVectorSampleRate), Help: "Default 256."},
			Field{Name: "max_iterations", Label: "Max iterations", Kind: KindInt, Min: 1, Default: int64(defaultVectorMaxIterations), Help: "Default 50."},
			Field{Name: "m", Label: "HNSW m", Kind: KindInt, Min: 1, Default: int64(defaultHNSWM), DefaultOnly: hnswOnly, Help: "HNSW types; default 20."},
			Field{Name: "ef_construction", Label: "HNSW ef_construction", Kind: KindInt, Min: 1, Default: int64(defaultHNSWEfConstruction), DefaultOnly: hnswOnly, Help: "HNSW types; default 300."},
		)},
	{Type: TypeOptimizeIndices, Op: "optimize_indices", Title: "Optimize indices", Help: "Bring indices up to date with new data.", BodyOptional: true, Fields: []Field{
		{Name: "index_names", Label: "Index names", Kind: KindStrings, Default: []string{}, Help: "Comma-separated; empty means every index."},
		{Name: "num_indices_to_merge", Label: "Indices to merge", Kind: KindInt, Min: 0, Default: int64(defaultNumIndicesToMerge), Help: "Default 1."},
		{Name: "retrain", Label: "Retrain", Kind: KindBool, Default: false},
	}},
	{Type: TypeCleanup, Op: "cleanup", Title: "Clean up old versions", Help: "Delete versions no longer needed. Give older_than, retain_versions or both.",
		NeedOneOf: []string{"older_than", "retain_versions"}, Fields: []Field{
			{Name: "older_than", Label: "Older than", Kind: KindAge, Help: "A whole number and d, h, m or s, e.g. 7d."},
			{Name: "retain_versions", Label: "Retain versions", Kind: KindInt, Min: 1},
			{Name: "delete_unverified", Kind: KindBool, Default: false, MustBeFalse: true, APIOnly: true, Help: "floe never deletes unverified files"},
			{Name: "error_if_tagged_old_versions", Kind: KindBool, Default: false, MustBeFalse: true, APIOnly: true, Help: "tagged versions are always kept without an error"},
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
