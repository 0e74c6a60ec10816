package iceberg

import (
	"cmp"
	"slices"
	"strings"
)

// SchemaChangeKind is what happened to one field between two schemas.
type SchemaChangeKind string

// The kinds, in the order a diff lists a field's changes.
const (
	FieldAdded    SchemaChangeKind = "added"
	FieldRemoved  SchemaChangeKind = "removed"
	FieldRenamed  SchemaChangeKind = "renamed"
	FieldRetyped  SchemaChangeKind = "type changed"
	FieldOptional SchemaChangeKind = "made optional"
	FieldRequired SchemaChangeKind = "made required"
	FieldDoc      SchemaChangeKind = "doc changed"
)

// SchemaChange is one change of one field, known by its field id (Iceberg
// keeps ids across renames, so a rename is not a drop and an add).
type SchemaChange struct {
	Kind     SchemaChangeKind
	ID       int
	Path     string // the field's path in the newer schema (the older one for a removal)
	From, To string // old and new value: path, type or doc; "" where the kind has none
}

// DiffSchemas lists what changed from schema a to schema b, by field id,
// then in the kinds' order. A struct, list or map whose children changed
// is not itself "type changed": its children's changes say what did.
func DiffSchemas(a, b SchemaInfo) []SchemaChange {
	old := make(map[int]Column, len(a.Columns))
	for _, c := range a.Columns {
		old[c.ID] = c
	}
	seen := make(map[int]bool, len(b.Columns))
	var out []SchemaChange
	for _, n := range b.Columns {
		seen[n.ID] = true
		o, ok := old[n.ID]
		if !ok {
			out = append(out, SchemaChange{Kind: FieldAdded, ID: n.ID, Path: n.Path, To: n.Type})
			continue
		}
		if o.Path != n.Path {
			out = append(out, SchemaChange{Kind: FieldRenamed, ID: n.ID, Path: n.Path, From: o.Path, To: n.Path})
		}
		if o.Type != n.Type && !childrenSay(o.Type, n.Type) {
			out = append(out, SchemaChange{Kind: FieldRetyped, ID: n.ID, Path: n.Path, From: o.Type, To: n.Type})
		}
		switch {
		case o.Required && !n.Required:
			out = append(out, SchemaChange{Kind: FieldOptional, ID: n.ID, Path: n.Path})
		case !o.Required && n.Required:
			out = append(out, SchemaChange{Kind: FieldRequired, ID: n.ID, Path: n.Path})
		}
		if o.Doc != n.Doc {
			out = append(out, SchemaChange{Kind: FieldDoc, ID: n.ID, Path: n.Path, From: o.Doc, To: n.Doc})
		}
	}
	for _, o := range a.Columns {
		if !seen[o.ID] {
			out = append(out, SchemaChange{Kind: FieldRemoved, ID: o.ID, Path: o.Path, From: o.Type})
		}
	}
	order := map[SchemaChangeKind]int{FieldAdded: 0, FieldRemoved: 1, FieldRenamed: 2, FieldRetyped: 3, FieldOptional: 4, FieldRequired: 5, FieldDoc: 6}
	slices.SortStableFunc(out, func(x, y SchemaChange) int {
		return cmp.Or(cmp.Compare(x.ID, y.ID), cmp.Compare(order[x.Kind], order[y.Kind]))
	})
	return out
}

func nested(t string) bool {
	return strings.HasPrefix(t, "struct<") || strings.HasPrefix(t, "list<") || strings.HasPrefix(t, "map<")
}

// childrenSay reports whether a change from type a to b is told by the
// field's flattened children instead: a struct's fields, a list's nested
// element, a map's nested value are columns of their own.
func childrenSay(a, b string) bool {
	inner := func(t string) (kind, rest string) {
		kind, rest, _ = strings.Cut(t, "<")
		if kind == "map" {
			_, rest, _ = strings.Cut(rest, ", ")
		}
		return kind, rest
	}
	ka, ra := inner(a)
	kb, rb := inner(b)
	switch {
	case ka != kb || !nested(a):
		return false
	case ka == "struct":
		return true
	}
	return nested(ra) && nested(rb)
}
