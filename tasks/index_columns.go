package tasks

import (
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/form"
	"github.com/floe/floe/observe"
)

// SchemaSource is where the service reads a table's columns as a worker last
// described them, to check an index task's column; the observe store is
// one.
type SchemaSource interface {
	Stats(objectID string, format catalog.Format) (observe.Stats, bool)
}

// The index types a column can take, by the Arrow type the worker reports
// (apache-arrow's names: "Utf8", "FixedSizeList[64]<Float32>", "List<Utf8>").
var (
	stringIndexTypes  = []string{"BTREE", "BITMAP", "FTS"}
	numericIndexTypes = []string{"BTREE", "BITMAP"}
	listIndexTypes    = []string{"LABEL_LIST"}
)

// IndexTypesFor is what an index on a column may be; nil for a type no
// index covers (structs, binary, maps). Workers report the type as a string
// ("FixedSizeList[64]<Float32>") or an Arrow JSON type with the item type in
// the field's children; both are read.
func IndexTypesFor(f observe.Field) []string {
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

func isVector(types []string) bool { return len(types) > 0 && types[0] == vectorIndexTypes[0] }

// columnOptions are the top-level columns an index task of typ can take,
// each narrowing index_type to the types its column type takes.
func columnOptions(schema []observe.Field, typ Type) []form.Option {
	var out []form.Option
	for _, f := range schema {
		types := IndexTypesFor(f)
		if len(types) == 0 || isVector(types) != (typ == TypeVectorIndex) {
			continue
		}
		out = append(out, form.Option{Value: f.Name, Label: f.Name + " — " + f.TypeString(), Narrows: types})
	}
	return out
}

// columnUnchecked is the note of an index task whose column floe could not
// check because no worker has described the table.
const columnUnchecked = "No worker has described this table yet, so floe did not check that the column takes this index type; the worker checks it when the task runs."

// checkColumn refuses an index task whose index type the column's observed
// type does not take, with the sentence both surfaces show (at index_type).
// note says what was not checked: the table has no observed schema, or the
// column is not in it (the schema may be older than the column; the worker
// checks when the task runs).
func checkColumn(typ Type, params map[string]any, schema []observe.Field, observed bool) (note string, err error) {
	if typ != TypeScalarIndex && typ != TypeVectorIndex {
		return "", nil
	}
	column, _ := params["column"].(string)
	indexType, _ := params["index_type"].(string)
	if !observed {
		return columnUnchecked, nil
	}
	i := slices.IndexFunc(schema, func(f observe.Field) bool { return f.Name == column })
	if i < 0 {
		return "Column " + column + " is not in the schema a worker last described, so floe did not check its type; the worker checks it when the task runs.", nil
	}
	f := schema[i]
	allowed := IndexTypesFor(f)
	if slices.Contains(allowed, indexType) {
		return "", nil
	}
	col := column + " (" + f.TypeString() + ")"
	msg := "index_type " + indexType + " does not apply to " + col
	switch {
	case len(allowed) == 0:
		msg += ": no index covers a column of that type; index a number, string, date, boolean, list or vector column instead."
	case isVector(allowed) && typ == TypeScalarIndex:
		msg += ": it is a vector column, which takes a vector index (" + form.OrList(allowed) + ") through create_vector_index."
	case !isVector(allowed) && typ == TypeVectorIndex:
		msg += ": a vector index needs a vector column (a fixed-size list of floats); " + column + " takes " + form.OrList(allowed) + " through create_scalar_index."
	default:
		msg += "; pick " + form.OrList(allowed) + "."
	}
	return "", &fault.Error{Kind: fault.Invalid, Field: "index_type", Message: msg}
}
