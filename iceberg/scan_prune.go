package iceberg

import (
	"math"
	"strings"
)

// Pruning answers "might a row of this match the filter?" for a manifest
// (from its partition summaries), a file's partition tuple and a file's
// column metrics. Every answer errs on the side of yes: a file is skipped
// only when no row in it can match, so a plan never loses a row.

// specField is one partition field of a spec, resolved for planning.
type specField struct {
	id, sourceID int
	name         string
	tr           transform
	typed        bool     // the result type is known (values can be read and written)
	prunes       bool     // the transform is one planning projects predicates through
	src, result  primType // source column and partition value types
}

// planSpec is a partition spec resolved against the scan's schema.
type planSpec struct {
	id     int
	fields []specField
}

// resolveSpec resolves a spec's fields; a source column missing from the
// schema (dropped) or a transform planning does not know leaves the field
// unused for pruning.
func resolveSpec(s PartitionSpec, byID map[int]*boundField) planSpec {
	ps := planSpec{id: s.SpecID}
	for _, f := range s.Fields {
		sf := specField{id: f.FieldID, sourceID: f.SourceID, name: f.Name}
		tr, ok := parseTransform(f.Transform)
		if src, found := byID[f.SourceID]; ok && found {
			if rt, ok := tr.resultType(src.typ); ok && src.typ.kind != 0 {
				sf.tr, sf.src, sf.result, sf.typed, sf.prunes = tr, src.typ, rt, true, tr.name != "void"
			}
		}
		ps.fields = append(ps.fields, sf)
	}
	return ps
}

// projected is a predicate on a partition field's values that every row
// matching the original predicate satisfies (the inclusive projection).
type projected struct {
	op   string
	lits []value
}

// project projects p through partition field f; ok is false when nothing
// can be said about f's values (the predicate then prunes nothing here).
func project(p exprPred, f specField) (projected, bool) {
	if !f.prunes || p.field == nil || p.field.id != f.sourceID {
		return projected{}, false
	}
	switch p.op {
	case "is-null", "not-null":
		return projected{op: p.op}, true // every transform but void keeps null as null
	case "is-nan", "not-nan":
		return projected{op: p.op}, f.tr.name == "identity"
	}
	if f.tr.name == "identity" {
		return projected{op: p.op, lits: p.lits}, true
	}
	apply := func(ops ...string) (projected, bool) {
		out := projected{op: ops[0]}
		for _, l := range p.lits {
			v, ok := f.tr.apply(f.src, l)
			if !ok {
				return projected{}, false
			}
			out.lits = append(out.lits, v)
		}
		return out, true
	}
	switch f.tr.name {
	case "bucket":
		switch p.op {
		case "eq", "in":
			return apply(p.op)
		}
	case "truncate", "year", "month", "day", "hour":
		switch p.op {
		case "eq", "in":
			return apply(p.op)
		case "lt", "gt":
			// On integers (ints, dates, timestamps) x < v is x <= v-1, which
			// projects tighter: ts < midnight excludes that day.
			if v := p.lits[0]; v.k == kindInt && v.i != math.MinInt64 && v.i != math.MaxInt64 {
				step := int64(-1)
				op := "lt-eq"
				if p.op == "gt" {
					step, op = 1, "gt-eq"
				}
				q := exprPred{op: op, field: p.field, lits: []value{{k: kindInt, i: p.lits[0].i + step}}}
				return project(q, f)
			}
			if p.op == "lt" {
				return apply("lt-eq")
			}
			return apply("gt-eq")
		case "lt-eq":
			return apply("lt-eq")
		case "gt-eq":
			return apply("gt-eq")
		case "starts-with":
			if f.tr.name != "truncate" || f.src.kind != kindString {
				return projected{}, false
			}
			pre := p.lits[0].s
			if cut := runePrefix(pre, f.tr.n); cut != pre {
				return projected{op: "eq", lits: []value{{k: kindString, s: cut}}}, true
			}
			return projected{op: "starts-with", lits: p.lits}, true
		}
	}
	return projected{}, false
}

// mightMatch evaluates e with pred answering for each predicate.
func mightMatch(e expr, pred func(exprPred) bool) bool {
	switch x := e.(type) {
	case exprTrue:
		return true
	case exprFalse:
		return false
	case exprAnd:
		return mightMatch(x.l, pred) && mightMatch(x.r, pred)
	case exprOr:
		return mightMatch(x.l, pred) || mightMatch(x.r, pred)
	case exprPred:
		return pred(x)
	}
	return true
}

// partitionMightMatch: might a file whose partition tuple is values match
// e? values[i] is field i of spec; present[i] is false for null.
func partitionMightMatch(e expr, spec planSpec, values []value, present []bool) bool {
	return mightMatch(e, func(p exprPred) bool {
		for i, f := range spec.fields {
			if pr, ok := project(p, f); ok && !valueMightMatch(pr, values[i], present[i]) {
				return false
			}
		}
		return true
	})
}

// valueMightMatch evaluates a projected predicate on one partition value
// (every row of the file has it).
func valueMightMatch(p projected, v value, present bool) bool {
	switch p.op {
	case "is-null":
		return !present
	case "not-null":
		return present
	case "is-nan":
		return present && v.k == kindFloat && math.IsNaN(v.f)
	case "not-nan":
		return !present || v.k != kindFloat || !math.IsNaN(v.f)
	}
	if !present {
		// Comparisons never match null; the negative ones prune nothing.
		switch p.op {
		case "not-eq", "not-in", "not-starts-with":
			return true
		}
		return false
	}
	if v.k != p.lits[0].k || (v.k == kindFloat && math.IsNaN(v.f)) {
		return true
	}
	switch p.op {
	case "eq":
		return compare(v, p.lits[0]) == 0
	case "not-eq":
		return compare(v, p.lits[0]) != 0
	case "lt":
		return compare(v, p.lits[0]) < 0
	case "lt-eq":
		return compare(v, p.lits[0]) <= 0
	case "gt":
		return compare(v, p.lits[0]) > 0
	case "gt-eq":
		return compare(v, p.lits[0]) >= 0
	case "in", "not-in":
		in := false
		for _, l := range p.lits {
			in = in || compare(v, l) == 0
		}
		return in == (p.op == "in")
	case "starts-with":
		return strings.HasPrefix(v.s, p.lits[0].s)
	case "not-starts-with":
		return !strings.HasPrefix(v.s, p.lits[0].s)
	}
	return true
}

// rangeMightMatch evaluates a predicate on a range of values [lower,
// upper] (either may be unknown), with whether nulls and NaNs occur
// (nullKnown false: unknown; nanKnown false: unknown) and whether every
// value is null. It serves manifest summaries and column metrics alike.
type valueRange struct {
	lower, upper     value
	hasLower         bool
	hasUpper         bool
	mayHaveNull      bool // false only when known to have none
	mayHaveNaN       bool
	allNull          bool // known: no non-null value
	allNaN           bool // known: every non-null value is NaN
	boundsComparable bool // the bounds are of the predicate's kind
}

func rangeMightMatch(op string, lits []value, r valueRange) bool {
	switch op {
	case "is-null":
		return r.mayHaveNull
	case "not-null":
		return !r.allNull
	case "is-nan":
		return r.mayHaveNaN && !r.allNull
	case "not-nan":
		return !r.allNaN
	case "not-eq", "not-in", "not-starts-with":
		return true
	}
	if r.allNull || r.allNaN {
		return false // comparisons match neither null nor NaN
	}
	if len(lits) == 0 || !r.boundsComparable {
		return true
	}
	usable := func(v value) bool { return v.k == lits[0].k && !(v.k == kindFloat && math.IsNaN(v.f)) }
	lo, hi := r.hasLower && usable(r.lower), r.hasUpper && usable(r.upper)
	switch op {
	case "lt":
		return !lo || compare(r.lower, lits[0]) < 0
	case "lt-eq":
		return !lo || compare(r.lower, lits[0]) <= 0
	case "gt":
		return !hi || compare(r.upper, lits[0]) > 0
	case "gt-eq":
		return !hi || compare(r.upper, lits[0]) >= 0
	case "eq", "in":
		for _, l := range lits {
			if (!lo || compare(r.lower, l) <= 0) && (!hi || compare(r.upper, l) >= 0) {
				return true
			}
		}
		return false
	case "starts-with":
		pre := lits[0].s
		if lo && strings.Compare(prefixBytes(r.lower.s, len(pre)), pre) > 0 {
			return false
		}
		if hi && strings.Compare(prefixBytes(r.upper.s, len(pre)), pre) < 0 {
			return false
		}
		return true
	}
	return true
}

func prefixBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// summaryMightMatch: might a file of a manifest whose partition summaries
// are sums (one per field of spec) match e?
func summaryMightMatch(e expr, spec planSpec, sums []fieldSummary) bool {
	if len(sums) != len(spec.fields) {
		return true // a list written without summaries, or for another spec
	}
	return mightMatch(e, func(p exprPred) bool {
		for i, f := range spec.fields {
			pr, ok := project(p, f)
			if !ok {
				continue
			}
			s := sums[i]
			r := valueRange{mayHaveNull: s.ContainsNull, mayHaveNaN: s.ContainsNaN == nil || *s.ContainsNaN, boundsComparable: true}
			r.lower, r.hasLower = boundOf(f.result, s.Lower)
			r.upper, r.hasUpper = boundOf(f.result, s.Upper)
			// Nulls and no lower bound: every value is null (as Java's
			// manifest evaluator reads it; a float field must also say it
			// has no NaN, which has no bound either).
			r.allNull = s.ContainsNull && s.Lower == nil && (f.result.kind != kindFloat || (s.ContainsNaN != nil && !*s.ContainsNaN))
			if !rangeMightMatch(pr.op, pr.lits, r) {
				return false
			}
		}
		return true
	})
}

func boundOf(t primType, b []byte) (value, bool) {
	if b == nil {
		return value{}, false
	}
	return decodeBound(t, b)
}

// fileMetrics are a data file's column metrics, by field id.
type fileMetrics struct {
	records        int64
	values, nulls  map[int]int64
	nans           map[int]int64
	lowers, uppers map[int][]byte
}

func metricsOf(f *planFile) fileMetrics {
	m := fileMetrics{records: f.RecordCount}
	counts := func(es []countEntry) map[int]int64 {
		if es == nil {
			return nil
		}
		out := make(map[int]int64, len(es))
		for _, e := range es {
			out[e.Key] = e.Value
		}
		return out
	}
	bounds := func(es []boundEntry) map[int][]byte {
		if es == nil {
			return nil
		}
		out := make(map[int][]byte, len(es))
		for _, e := range es {
			out[e.Key] = e.Value
		}
		return out
	}
	m.values, m.nulls, m.nans = counts(f.ValueCounts), counts(f.NullCounts), counts(f.NaNCounts)
	m.lowers, m.uppers = bounds(f.LowerBounds), bounds(f.UpperBounds)
	return m
}

// metricsMightMatch: might a row of a data file with metrics m match e?
// (Java's inclusive metrics evaluator, in the same spirit.)
func metricsMightMatch(e expr, m fileMetrics) bool {
	if m.records == 0 {
		return false // an empty file matches nothing
	}
	return mightMatch(e, func(p exprPred) bool {
		if p.field == nil || p.field.repeated {
			return true
		}
		id := p.field.id
		vc, hasVC := m.values[id]
		nc, hasNC := m.nulls[id]
		nan, hasNaN := m.nans[id]
		r := valueRange{mayHaveNull: !hasNC || nc > 0, mayHaveNaN: !hasNaN || nan > 0, boundsComparable: true}
		r.allNull = hasNC && ((hasVC && nc == vc) || (m.records > 0 && nc == m.records))
		r.allNaN = hasNaN && hasVC && hasNC && nan > 0 && nan == vc-nc
		if b, ok := m.lowers[id]; ok {
			r.lower, r.hasLower = decodeBound(p.field.typ, b)
		}
		if b, ok := m.uppers[id]; ok {
			r.upper, r.hasUpper = decodeBound(p.field.typ, b)
		}
		return rangeMightMatch(p.op, p.lits, r)
	})
}
