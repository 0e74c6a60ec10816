package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file reads a scan's filter: the REST spec's Predicate JSON, in the
// current form (left/right, child, reference objects) and the deprecated
// one (term/value, which iceberg-go and older Java clients send), bound to
// a schema's field ids and types. Binding pushes NOT down to the leaves, so
// pruning only ever evaluates and, or and predicates.

// Bounds of one filter: planning reads it on every manifest entry, so one
// client's filter must not cost more than any real query's.
const (
	// MaxFilterDepth bounds nesting of and/or/not.
	MaxFilterDepth = 64
	// MaxFilterNodes bounds the predicates and connectives of one filter.
	MaxFilterNodes = 10_000
	// MaxFilterValues bounds the literals of one in / not-in.
	MaxFilterValues = 10_000
)

// expr is a bound filter node.
type expr interface{ isExpr() }

type (
	exprTrue  struct{}
	exprFalse struct{}
	exprAnd   struct{ l, r expr }
	exprOr    struct{ l, r expr }
	// exprPred tests one column; field is nil when the predicate cannot be
	// evaluated against files (a transform term, a type that has no order),
	// and then it never prunes.
	exprPred struct {
		op    string
		field *boundField
		lits  []value
	}
)

func (exprTrue) isExpr()  {}
func (exprFalse) isExpr() {}
func (exprAnd) isExpr()   {}
func (exprOr) isExpr()    {}
func (exprPred) isExpr()  {}

// boundField is a column a predicate tests.
type boundField struct {
	id   int
	name string
	typ  primType
	// repeated is true inside a list or map: its bounds cover every
	// element, so they say nothing about one row.
	repeated bool
}

// negation of each predicate, for pushing NOT down.
var negated = map[string]string{
	"lt": "gt-eq", "lt-eq": "gt", "gt": "lt-eq", "gt-eq": "lt",
	"eq": "not-eq", "not-eq": "eq", "in": "not-in", "not-in": "in",
	"starts-with": "not-starts-with", "not-starts-with": "starts-with",
	"is-null": "not-null", "not-null": "is-null", "is-nan": "not-nan", "not-nan": "is-nan",
}

// flipped is each comparison with its sides swapped (5 < x is x > 5).
var flipped = map[string]string{"lt": "gt", "lt-eq": "gt-eq", "gt": "lt", "gt-eq": "lt-eq", "eq": "eq", "not-eq": "not-eq"}

// filterBinder binds one filter to a schema.
type filterBinder struct {
	fields        map[string]*boundField // by name, lower-cased when not case sensitive
	byID          map[int]*boundField
	names         map[string]bool // every column name, nested and non-primitive ones too
	caseSensitive bool
	nodes         int
}

// bindFilter reads and binds a filter; nil or empty raw is no filter
// (true). A filter that names no column of the schema, or compares a
// column with a value of another type, is an fault.Invalid naming it.
func bindFilter(raw json.RawMessage, schema Schema, caseSensitive bool) (expr, error) {
	return newBinder(schema, caseSensitive).filter(raw)
}

// newBinder indexes a schema's columns for binding filters and names.
func newBinder(schema Schema, caseSensitive bool) *filterBinder {
	b := &filterBinder{fields: map[string]*boundField{}, byID: map[int]*boundField{}, names: map[string]bool{}, caseSensitive: caseSensitive}
	b.index(schema.Fields, "", false)
	return b
}

// filter binds one filter (see bindFilter).
func (b *filterBinder) filter(raw json.RawMessage) (expr, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return exprTrue{}, nil
	}
	b.nodes = 0
	e, err := b.bind(raw, false, 0)
	if err != nil {
		return nil, invalid("filter", "filter: %v", err)
	}
	return e, nil
}

// column finds a primitive column by its full name, for stats-fields.
func (b *filterBinder) column(name string) (*boundField, bool) {
	f, ok := b.fields[b.key(name)]
	return f, ok
}

// hasName reports whether name is a column at any level, for select.
func (b *filterBinder) hasName(name string) bool { return b.names[b.key(name)] }

func (b *filterBinder) key(name string) string {
	if b.caseSensitive {
		return name
	}
	return strings.ToLower(name)
}

// index records every primitive column under its full name (struct levels
// joined by ".", element/key/value inside lists and maps, as the spec's
// FieldName says).
func (b *filterBinder) index(fields []Field, prefix string, repeated bool) {
	for _, f := range fields {
		b.indexType(f.ID, prefix+f.Name, f.Type, repeated)
	}
}

func (b *filterBinder) indexType(id int, name string, t Type, repeated bool) {
	b.names[b.key(name)] = true
	switch {
	case t.List != nil:
		b.indexType(t.List.ElementID, name+".element", t.List.Element, true)
	case t.Map != nil:
		b.indexType(t.Map.KeyID, name+".key", t.Map.Key, true)
		b.indexType(t.Map.ValueID, name+".value", t.Map.Value, true)
	case t.Primitive != "":
		pt, _ := primitiveType(t.Primitive)
		bf := &boundField{id: id, name: name, typ: pt, repeated: repeated}
		b.fields[b.key(name)] = bf
		b.byID[id] = bf
	default:
		b.index(t.Struct, name+".", repeated)
	}
}

func (b *filterBinder) bind(raw json.RawMessage, not bool, depth int) (expr, error) {
	b.nodes++
	if b.nodes > MaxFilterNodes {
		return nil, fmt.Errorf("more than %d nodes", MaxFilterNodes)
	}
	if depth > MaxFilterDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", MaxFilterDepth)
	}
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return boolExpr(!not), nil
	case "false":
		return boolExpr(not), nil
	}
	var n struct {
		Type   string          `json:"type"`
		Left   json.RawMessage `json:"left"`
		Right  json.RawMessage `json:"right"`
		Child  json.RawMessage `json:"child"`
		Term   json.RawMessage `json:"term"`
		Value  json.RawMessage `json:"value"`
		Values json.RawMessage `json:"values"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, fmt.Errorf("%s is not a predicate", clipJSON(raw))
	}
	switch n.Type {
	case "true":
		return boolExpr(!not), nil
	case "false":
		return boolExpr(not), nil
	case "and", "or":
		if n.Left == nil || n.Right == nil {
			return nil, fmt.Errorf("%s needs left and right", n.Type)
		}
		l, err := b.bind(n.Left, not, depth+1)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(n.Right, not, depth+1)
		if err != nil {
			return nil, err
		}
		if (n.Type == "and") != not { // not(a and b) = not a or not b
			return exprAnd{l, r}, nil
		}
		return exprOr{l, r}, nil
	case "not":
		if n.Child == nil {
			return nil, fmt.Errorf("not needs child")
		}
		return b.bind(n.Child, !not, depth+1)
	}
	op := n.Type
	if _, ok := negated[op]; !ok {
		if op == "" {
			return nil, fmt.Errorf("%s has no type", clipJSON(raw))
		}
		return nil, fmt.Errorf("unknown predicate %q", op)
	}
	pred, err := b.predicate(op, n.Left, n.Right, n.Child, n.Term, n.Value, n.Values)
	if err != nil {
		return nil, err
	}
	if not {
		pred.op = negated[pred.op]
	}
	return pred, nil
}

func boolExpr(b bool) expr {
	if b {
		return exprTrue{}
	}
	return exprFalse{}
}

// predicate binds one predicate's operand and literals.
func (b *filterBinder) predicate(op string, left, right, child, term, val, vals json.RawMessage) (exprPred, error) {
	operand := child
	if operand == nil {
		operand = left
	}
	if operand == nil {
		operand = term
	}
	if operand == nil {
		return exprPred{}, fmt.Errorf("%s names no column", op)
	}
	lit := right
	if lit == nil {
		lit = val
	}
	// A comparison written literal-first (5 < x) is the column one flipped.
	if left != nil && right != nil && isLiteral(left) && !isLiteral(right) {
		f, ok := flipped[op]
		if !ok {
			return exprPred{}, fmt.Errorf("%s must name its column first", op)
		}
		op, operand, lit = f, right, left
	}
	field, err := b.operand(operand)
	if err != nil {
		return exprPred{}, err
	}
	p := exprPred{op: op, field: field}
	switch op {
	case "is-null", "not-null", "is-nan", "not-nan":
		if field != nil && (op == "is-nan" || op == "not-nan") && field.typ.kind != kindFloat {
			return exprPred{}, fmt.Errorf("%s tests NaN, but %s is a %s", op, field.name, field.typ.name)
		}
		return p, nil
	case "in", "not-in":
		if vals == nil {
			return exprPred{}, fmt.Errorf("%s needs values", op)
		}
		raws, err := literalList(vals)
		if err != nil {
			return exprPred{}, err
		}
		if field == nil {
			return exprPred{op: op}, nil
		}
		for _, r := range raws {
			v, err := parseLiteral(field.typ, r)
			if err != nil {
				return exprPred{}, fmt.Errorf("%s %s: %v", field.name, op, err)
			}
			p.lits = append(p.lits, v)
		}
		return p, nil
	}
	if lit == nil {
		return exprPred{}, fmt.Errorf("%s needs a value", op)
	}
	if field == nil || !isLiteral(lit) {
		return exprPred{op: op}, nil // a term or a column against a column: never prunes
	}
	if (op == "starts-with" || op == "not-starts-with") && field.typ.kind != kindString {
		return exprPred{}, fmt.Errorf("%s needs a string column, %s is a %s", op, field.name, field.typ.name)
	}
	v, err := parseLiteral(field.typ, lit)
	if err != nil {
		return exprPred{}, fmt.Errorf("%s %s: %v", field.name, op, err)
	}
	p.lits = []value{v}
	return p, nil
}

// operand resolves a predicate's column: a name (the deprecated term), a
// reference object by name or id, or something planning cannot bound (a
// transform term, a function application), which is not an error but
// never prunes (nil, nil).
func (b *filterBinder) operand(raw json.RawMessage) (*boundField, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, err
		}
		return b.byName(name)
	}
	var ref struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
		ID   *int    `json:"id"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		return nil, fmt.Errorf("%s is not a column reference", clipJSON(raw))
	}
	switch ref.Type {
	case "reference":
		switch {
		case ref.Name != nil:
			return b.byName(*ref.Name)
		case ref.ID != nil:
			f, ok := b.byID[*ref.ID]
			if !ok {
				return nil, fmt.Errorf("no column has field id %d", *ref.ID)
			}
			return boundable(f), nil
		}
		return nil, fmt.Errorf("a reference needs a name or an id")
	case "transform", "apply":
		return nil, nil
	}
	return nil, fmt.Errorf("%s is not a column reference", clipJSON(raw))
}

func (b *filterBinder) byName(name string) (*boundField, error) {
	f, ok := b.fields[b.key(name)]
	if !ok {
		return nil, fmt.Errorf("no column is named %q", name)
	}
	return boundable(f), nil
}

// boundable keeps a column whose values planning can compare; nil for one
// it cannot (its predicates then never prune).
func boundable(f *boundField) *boundField {
	if f.typ.kind == 0 {
		return nil
	}
	return f
}

// isLiteral tells a literal operand from a column one: references,
// transforms and applications are objects with those types.
func isLiteral(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return true
	}
	var w struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &w)
	return w.Type == "literal"
}

// literalList reads in/not-in values: a bare array, or the spec's
// {"type":"literals","values":[…]}.
func literalList(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var w struct {
			Type   string            `json:"type"`
			Values []json.RawMessage `json:"values"`
		}
		if err := json.Unmarshal(raw, &w); err != nil || w.Type != "literals" {
			return nil, fmt.Errorf("values are an array or {\"type\":\"literals\",\"values\":[…]}")
		}
		raw, _ = json.Marshal(w.Values)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("values are an array of literals")
	}
	if len(out) > MaxFilterValues {
		return nil, fmt.Errorf("%d values, more than %d", len(out), MaxFilterValues)
	}
	return out, nil
}

// clipJSON shortens a client's JSON for an error sentence.
func clipJSON(raw []byte) string {
	const n = 80
	if len(raw) > n {
		return string(raw[:n]) + "…"
	}
	return string(raw)
}
