package tasks

import (
	"regexp"
	"strconv"
)

// ValidateParams checks a submission body for the task type and returns the
// params to store: recognised fields with their defaults filled, unknown
// fields dropped. Only shape and basic values are checked here; whether a
// column or index exists is found out when the task runs.
func ValidateParams(t Type, body []byte) (map[string]any, error) {
	switch t {
	case TypeCompact:
		return compactParams(body)
	case TypeCleanup:
		return cleanupParams(body)
	case TypeScalarIndex:
		return scalarIndexParams(body)
	case TypeVectorIndex:
		return vectorIndexParams(body)
	case TypeOptimizeIndices:
		return optimizeIndicesParams(body)
	}
	_, err := ParseType(string(t))
	return nil, err
}

// Compaction defaults, as the Lance engine documents them.
const (
	defaultTargetRowsPerFragment = 1048576
	defaultMaterializeThreshold  = 0.1
	defaultMaxRowsPerGroup       = 1024
	defaultCompactionMode        = "reencode"
	defaultNumIndicesToMerge     = 1
	defaultVectorSampleRate      = 256
	defaultVectorMaxIterations   = 50
	defaultHNSWM                 = 20
	defaultHNSWEfConstruction    = 300
	defaultFTSMaxTokenLength     = 40
	defaultFTSBaseTokenizer      = "simple"
	defaultFTSLanguage           = "English"
	defaultVectorDistance        = "l2"
	maxOlderThanAmount           = 1 << 40 // far past any real retention, and no overflow when scaled to seconds
)

func compactParams(body []byte) (map[string]any, error) {
	f, err := parseObject(body, true, "compact")
	if err != nil {
		return nil, err
	}
	p := map[string]any{}
	if err := setInt(p, f, "target_rows_per_fragment", 1, defaultTargetRowsPerFragment); err != nil {
		return nil, err
	}
	if err := setBool(p, f, "materialize_deletions", true); err != nil {
		return nil, err
	}
	// 0 means the default; >= 1 never materialises; < 0 always does.
	th, ok, err := f.number("materialize_deletions_threshold")
	if err != nil {
		return nil, err
	}
	if !ok || th == 0 {
		th = defaultMaterializeThreshold
	}
	p["materialize_deletions_threshold"] = th
	if err := setInt(p, f, "max_rows_per_group", 1, defaultMaxRowsPerGroup); err != nil {
		return nil, err
	}
	if err := setInt(p, f, "max_bytes_per_file", 0, 0); err != nil {
		return nil, err
	}
	mode, ok, err := f.oneOf("compaction_mode", "reencode", "try_binary_copy", "force_binary_copy")
	if err != nil {
		return nil, err
	}
	if !ok {
		mode = defaultCompactionMode
	}
	p["compaction_mode"] = mode
	return p, nil
}

// olderThanPattern is an integer amount and one unit: 7d, 168h, 30m, 90s.
var olderThanPattern = regexp.MustCompile(`^[0-9]+[dhms]$`)

func cleanupParams(body []byte) (map[string]any, error) {
	f, err := parseObject(body, false, "cleanup")
	if err != nil {
		return nil, err
	}
	p := map[string]any{}
	if r, ok := f.raw("older_than"); ok {
		s, _, err := f.str("older_than")
		if err != nil || !olderThanPattern.MatchString(s) {
			return nil, invalidf("older_than must be a whole number followed by d, h, m or s, e.g. \"7d\" or \"168h\" (got %s)", r)
		}
		if n, err := strconv.ParseInt(s[:len(s)-1], 10, 64); err != nil || n > maxOlderThanAmount {
			return nil, invalidf("older_than %q is too large", s)
		}
		p["older_than"] = s
	}
	if err := setOptInt(p, f, "retain_versions", 1); err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, invalidf("cleanup needs older_than (e.g. \"7d\") or retain_versions greater than 0")
	}
	for _, name := range []string{"delete_unverified", "error_if_tagged_old_versions"} {
		v, _, err := f.boolean(name)
		if err != nil {
			return nil, err
		}
		if v {
			return nil, invalidf("%s must be false: floe never deletes unverified files, and tagged versions are always kept without an error", name)
		}
		p[name] = false
	}
	return p, nil
}

// ftsOptions are the full-text options of a scalar index of type FTS.
var ftsOptions = []string{"with_position", "base_tokenizer", "language", "lower_case", "stem",
	"remove_stop_words", "ascii_folding", "max_token_length"}

func scalarIndexParams(body []byte) (map[string]any, error) {
	f, err := parseObject(body, false, "create_scalar_index")
	if err != nil {
		return nil, err
	}
	p, typ, err := indexCommon(f, "BTREE", "BITMAP", "LABEL_LIST", "FTS")
	if err != nil {
		return nil, err
	}
	if typ != "FTS" {
		for _, name := range ftsOptions {
			if _, ok := f.raw(name); ok {
				return nil, invalidf("%s applies only to index_type \"FTS\", not %q", name, typ)
			}
		}
		return p, nil
	}
	for _, b := range []struct {
		name string
		def  bool
	}{{"with_position", false}, {"lower_case", true}, {"stem", true}, {"remove_stop_words", true}, {"ascii_folding", true}} {
		if err := setBool(p, f, b.name, b.def); err != nil {
			return nil, err
		}
	}
	if err := setStr(p, f, "base_tokenizer", defaultFTSBaseTokenizer); err != nil {
		return nil, err
	}
	if err := setStr(p, f, "language", defaultFTSLanguage); err != nil {
		return nil, err
	}
	if err := setInt(p, f, "max_token_length", 1, defaultFTSMaxTokenLength); err != nil {
		return nil, err
	}
	return p, nil
}

func vectorIndexParams(body []byte) (map[string]any, error) {
	f, err := parseObject(body, false, "create_vector_index")
	if err != nil {
		return nil, err
	}
	p, typ, err := indexCommon(f, "IVF_FLAT", "IVF_PQ", "IVF_HNSW_SQ", "IVF_HNSW_PQ", "IVF_RQ")
	if err != nil {
		return nil, err
	}
	dist, ok, err := f.oneOf("distance_type", "l2", "cosine", "dot")
	if err != nil {
		return nil, err
	}
	if !ok {
		dist = defaultVectorDistance
	}
	p["distance_type"] = dist
	for _, name := range []string{"num_partitions", "num_sub_vectors", "num_bits"} {
		if err := setOptInt(p, f, name, 1); err != nil {
			return nil, err
		}
	}
	if err := setInt(p, f, "sample_rate", 1, defaultVectorSampleRate); err != nil {
		return nil, err
	}
	if err := setInt(p, f, "max_iterations", 1, defaultVectorMaxIterations); err != nil {
		return nil, err
	}
	hnsw := typ == "IVF_HNSW_SQ" || typ == "IVF_HNSW_PQ"
	for _, o := range []struct {
		name string
		def  int64
	}{{"m", defaultHNSWM}, {"ef_construction", defaultHNSWEfConstruction}} {
		if !hnsw {
			if err := setOptInt(p, f, o.name, 1); err != nil {
				return nil, err
			}
			continue
		}
		if err := setInt(p, f, o.name, 1, o.def); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// indexCommon reads column, index_type, name and replace.
func indexCommon(f fields, types ...string) (map[string]any, string, error) {
	p := map[string]any{}
	col, ok, err := f.str("column")
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", invalidf("column is required: the column to index")
	}
	p["column"] = col
	typ, ok, err := f.oneOf("index_type", types...)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", invalidf("index_type is required: one of %s", quoteList(types))
	}
	p["index_type"] = typ
	if err := setStr(p, f, "name", ""); err != nil {
		return nil, "", err
	}
	if err := setBool(p, f, "replace", false); err != nil {
		return nil, "", err
	}
	return p, typ, nil
}

func optimizeIndicesParams(body []byte) (map[string]any, error) {
	f, err := parseObject(body, true, "optimize_indices")
	if err != nil {
		return nil, err
	}
	p := map[string]any{}
	names, ok, err := f.strings("index_names")
	if err != nil {
		return nil, err
	}
	if !ok {
		names = []string{} // empty = every index
	}
	p["index_names"] = names
	if err := setInt(p, f, "num_indices_to_merge", 0, defaultNumIndicesToMerge); err != nil {
		return nil, err
	}
	if err := setBool(p, f, "retrain", false); err != nil {
		return nil, err
	}
	return p, nil
}
