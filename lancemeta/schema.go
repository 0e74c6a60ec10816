package lancemeta

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floe/floe/lancemeta/lancepb"
)

// Schema is the Lance Namespace spec's JsonArrowSchema.
type Schema struct {
	Fields   []Field           `json:"fields"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Field is the spec's JsonArrowField.
type Field struct {
	// ID is the manifest's field id: kept by a rename, new for an added
	// field, so schemas of two versions compare field by field. Not part
	// of the spec's JSON.
	ID       int32             `json:"-"`
	Name     string            `json:"name"`
	Nullable bool              `json:"nullable"`
	Type     DataType          `json:"type"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// DataType is the spec's JsonArrowDataType: a type name as Lance's own
// namespace implementation writes it ("int64", "utf8", "fixed_size_list"),
// child fields for nested types and a length for fixed-size ones (decimals
// carry precision×1000+scale there, as Lance does).
type DataType struct {
	Type   string  `json:"type"`
	Fields []Field `json:"fields,omitempty"`
	Length *int64  `json:"length,omitempty"`
}

// schemaOf rebuilds the tree from the manifest's pre-order field list.
// Parents are followed from the top level down, at most maxSchemaDepth
// levels, so a damaged parent chain cannot loop.
func schemaOf(fields []*lancepb.Field, md map[string][]byte) (Schema, error) {
	children := map[int32][]*lancepb.Field{}
	seen := make(map[int32]bool, len(fields))
	for _, f := range fields {
		// Unique ids keep each field under one parent, so the walk below
		// visits every field once.
		if seen[f.GetId()] {
			return Schema{}, fmt.Errorf("field id %d appears twice", f.GetId())
		}
		seen[f.GetId()] = true
		children[f.GetParentId()] = append(children[f.GetParentId()], f)
	}
	top, err := buildFields(children, -1, 0)
	if err != nil {
		return Schema{}, err
	}
	if top == nil {
		top = []Field{}
	}
	return Schema{Fields: top, Metadata: metadataStrings(md)}, nil
}

func buildFields(children map[int32][]*lancepb.Field, parent int32, depth int) ([]Field, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("the schema nests deeper than %d levels", maxSchemaDepth)
	}
	var out []Field
	for _, f := range children[parent] {
		if f.GetId() == parent {
			return nil, fmt.Errorf("field %d is its own parent", f.GetId())
		}
		kids, err := buildFields(children, f.GetId(), depth+1)
		if err != nil {
			return nil, err
		}
		t, err := dataType(f.GetLogicalType(), kids)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.GetName(), err)
		}
		out = append(out, Field{ID: f.GetId(), Name: f.GetName(), Nullable: f.GetNullable(), Type: t, Metadata: metadataStrings(f.GetMetadata())})
	}
	return out, nil
}

// simpleTypes maps Lance logical types with no parameters to Arrow names.
var simpleTypes = map[string]string{
	"null": "null", "bool": "bool",
	"int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
	"int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64",
	"halffloat": "float16", "float": "float32", "double": "float64",
	"string": "utf8", "large_string": "large_utf8", "binary": "binary", "large_binary": "large_binary",
	"json": "large_binary", "date32:day": "date32", "date64:ms": "date64",
	"struct": "struct",
}

// dataType converts one Lance logical type. kids are the field's children
// in the manifest (a struct's members, a list's item).
func dataType(logical string, kids []Field) (DataType, error) {
	if name, ok := simpleTypes[logical]; ok {
		if name == "struct" {
			return DataType{Type: name, Fields: nonNil(kids)}, nil
		}
		return DataType{Type: name}, nil
	}
	parts := strings.Split(logical, ":")
	switch parts[0] {
	case "list", "list.struct", "large_list", "large_list.struct":
		if len(kids) != 1 {
			return DataType{}, fmt.Errorf("a list needs one item field, the manifest has %d", len(kids))
		}
		return DataType{Type: strings.TrimSuffix(parts[0], ".struct"), Fields: kids}, nil
	case "time32", "time64", "timestamp", "duration":
		return DataType{Type: parts[0]}, nil
	case "fixed_size_binary":
		n, err := length(parts, 1)
		return DataType{Type: "fixed_size_binary", Length: n}, err
	case "decimal":
		if len(parts) != 4 || (parts[1] != "128" && parts[1] != "256") {
			return DataType{}, fmt.Errorf("decimal type %q is not decimal:<128|256>:<precision>:<scale>", logical)
		}
		p, err1 := strconv.ParseInt(parts[2], 10, 16)
		s, err2 := strconv.ParseInt(parts[3], 10, 16)
		if err1 != nil || err2 != nil {
			return DataType{}, fmt.Errorf("decimal type %q has a bad precision or scale", logical)
		}
		n := p*1000 + s
		return DataType{Type: "decimal" + parts[1], Length: &n}, nil
	case "dict":
		if len(parts) != 4 {
			return DataType{}, fmt.Errorf("dictionary type %q is not dict:<value>:<key>:<ordered>", logical)
		}
		return dataType(parts[1], kids) // the spec's JSON shows a dictionary as its values
	case "fixed_size_list":
		if len(parts) < 3 {
			return DataType{}, fmt.Errorf("fixed_size_list type %q has no item type or size", logical)
		}
		n, err := length(parts, len(parts)-1)
		if err != nil {
			return DataType{}, err
		}
		inner := strings.Join(parts[1:len(parts)-1], ":")
		var item DataType
		if inner == "lance.bfloat16" {
			two := int64(2)
			item = DataType{Type: "fixed_size_binary", Length: &two}
		} else if item, err = dataType(inner, nil); err != nil {
			return DataType{}, err
		}
		return DataType{Type: "fixed_size_list", Fields: []Field{{Name: "item", Nullable: true, Type: item}}, Length: n}, nil
	}
	if logical == "" {
		return DataType{}, fmt.Errorf("no logical type")
	}
	// A type this reader does not know yet: named as Lance names it, never
	// guessed.
	return DataType{Type: logical}, nil
}

func length(parts []string, i int) (*int64, error) {
	if i >= len(parts) {
		return nil, fmt.Errorf("type %q has no size", strings.Join(parts, ":"))
	}
	n, err := strconv.ParseInt(parts[i], 10, 32)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("type %q has a bad size", strings.Join(parts, ":"))
	}
	return &n, nil
}

func nonNil(f []Field) []Field {
	if f == nil {
		return []Field{}
	}
	return f
}
