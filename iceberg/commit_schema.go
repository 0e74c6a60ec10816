package iceberg

// The schema, partition spec and sort order updates of a commit.

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
)

func (b *builder) addSchema(s Schema, lastColumnID *int, fail func(string, ...any) error) error {
	if err := checkSchemaLimits(s.Fields); err != nil {
		return fail("%v", err)
	}
	ids := map[int]bool{}
	if err := collectIDs(Type{Struct: s.Fields}, ids); err != nil {
		return fail("%v", err)
	}
	for _, id := range s.IdentifierFieldIDs {
		if !ids[id] {
			return fail("identifier field %d is not in the schema", id)
		}
	}
	highest := 0
	for id := range ids {
		highest = max(highest, id)
	}
	md := b.md
	// An identical schema already known is reused rather than duplicated.
	for _, old := range md.Schemas {
		if reflect.DeepEqual(old.Fields, s.Fields) && slices.Equal(old.IdentifierFieldIDs, s.IdentifierFieldIDs) {
			id := old.SchemaID
			b.lastSchema = &id
			return nil
		}
	}
	next := 0
	for _, old := range md.Schemas {
		next = max(next, old.SchemaID+1)
	}
	s.SchemaID = next
	md.Schemas = append(md.Schemas, s)
	md.LastColumnID = max(md.LastColumnID, highest)
	if lastColumnID != nil {
		md.LastColumnID = max(md.LastColumnID, *lastColumnID)
	}
	b.lastSchema = &next
	return nil
}

// collectIDs gathers every field id of a type, refusing duplicates.
func collectIDs(t Type, ids map[int]bool) error {
	add := func(id int) error {
		if id <= 0 {
			return fmt.Errorf("field id %d must be positive", id)
		}
		if ids[id] {
			return fmt.Errorf("field id %d is used twice", id)
		}
		ids[id] = true
		return nil
	}
	switch {
	case t.List != nil:
		if err := add(t.List.ElementID); err != nil {
			return err
		}
		return collectIDs(t.List.Element, ids)
	case t.Map != nil:
		if err := add(t.Map.KeyID); err != nil {
			return err
		}
		if err := add(t.Map.ValueID); err != nil {
			return err
		}
		if err := collectIDs(t.Map.Key, ids); err != nil {
			return err
		}
		return collectIDs(t.Map.Value, ids)
	case t.Primitive != "":
		return checkPrimitive(t.Primitive)
	}
	for _, f := range t.Struct {
		if f.Name == "" {
			return fmt.Errorf("field %d has no name", f.ID)
		}
		if err := add(f.ID); err != nil {
			return err
		}
		if err := collectIDs(f.Type, ids); err != nil {
			return err
		}
	}
	return nil
}

var transformRe = regexp.MustCompile(`^(identity|year|month|day|hour|void|bucket\[\d+\]|truncate\[\d+\])$`)

func (b *builder) addSpec(u UnboundSpec, fail func(string, ...any) error) error {
	md := b.md
	cur, _ := md.schema(md.CurrentSchemaID)
	ids := map[int]bool{}
	_ = collectIDs(Type{Struct: cur.Fields}, ids)
	spec := PartitionSpec{Fields: []PartitionField{}}
	last := md.LastPartitionID
	names := map[string]bool{}
	for j, f := range u.Fields {
		if f.SourceID == nil {
			return fail("field %d needs source-id", j)
		}
		if !transformRe.MatchString(f.Transform) {
			return fail("field %d: unknown transform %q", j, f.Transform)
		}
		if !ids[*f.SourceID] {
			return fail("field %d: source column %d is not in the current schema", j, *f.SourceID)
		}
		if f.Name == "" || names[f.Name] {
			return fail("field %d: partition names must be present and unique", j)
		}
		names[f.Name] = true
		pf := PartitionField{SourceID: *f.SourceID, Name: f.Name, Transform: f.Transform}
		if f.FieldID != nil {
			pf.FieldID = *f.FieldID
		} else if id, ok := existingPartitionField(md, pf); ok {
			pf.FieldID = id
		} else {
			last++
			pf.FieldID = last
		}
		last = max(last, pf.FieldID)
		spec.Fields = append(spec.Fields, pf)
	}
	for _, old := range md.PartitionSpecs {
		if samePartitioning(old.Fields, spec.Fields) {
			id := old.SpecID
			b.lastSpec = &id
			return nil
		}
	}
	next := 0
	for _, old := range md.PartitionSpecs {
		next = max(next, old.SpecID+1)
	}
	spec.SpecID = next
	md.PartitionSpecs = append(md.PartitionSpecs, spec)
	md.LastPartitionID = max(md.LastPartitionID, last)
	b.lastSpec = &next
	return nil
}

// existingPartitionField keeps a partition field's id stable across specs
// (v2 readers rely on it).
func existingPartitionField(md *tableMetadata, pf PartitionField) (int, bool) {
	for _, s := range md.PartitionSpecs {
		for _, f := range s.Fields {
			if f.SourceID == pf.SourceID && f.Transform == pf.Transform {
				return f.FieldID, true
			}
		}
	}
	return 0, false
}

func samePartitioning(a, b []PartitionField) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SourceID != b[i].SourceID || a[i].Transform != b[i].Transform || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

func (b *builder) addSortOrder(o SortOrder, fail func(string, ...any) error) error {
	md := b.md
	for j, f := range o.Fields {
		if !transformRe.MatchString(f.Transform) {
			return fail("field %d: unknown transform %q", j, f.Transform)
		}
		if f.Direction != "asc" && f.Direction != "desc" {
			return fail("field %d: direction must be asc or desc", j)
		}
		if f.NullOrder != "nulls-first" && f.NullOrder != "nulls-last" {
			return fail("field %d: null-order must be nulls-first or nulls-last", j)
		}
	}
	if o.Fields == nil {
		o.Fields = []SortField{}
	}
	for _, old := range md.SortOrders {
		if slices.Equal(old.Fields, o.Fields) {
			id := old.OrderID
			b.lastOrder = &id
			return nil
		}
	}
	next := 0
	if len(o.Fields) > 0 {
		next = 1
		for _, old := range md.SortOrders {
			next = max(next, old.OrderID+1)
		}
	}
	o.OrderID = next
	md.SortOrders = append(md.SortOrders, o)
	b.lastOrder = &next
	return nil
}
