package iceberg

import (
	"strconv"
)

// CreateTableInput is a new table: the body of the REST catalog's
// POST …/namespaces/{ns}/tables, and what the console's form builds.
// Location may be empty (the catalog's default location is used).
// StageCreate builds the metadata without writing anything: the table
// appears when a commit with assert-create follows.
type CreateTableInput struct {
	Name          string            `json:"name"`
	Location      string            `json:"location"`
	Schema        *Schema           `json:"schema"`
	PartitionSpec *UnboundSpec      `json:"partition-spec"`
	WriteOrder    *SortOrder        `json:"write-order"`
	StageCreate   bool              `json:"stage-create"`
	Properties    map[string]string `json:"properties"`
	// Tags label the catalog entry (S3 Tables' CreateTable tags); not part
	// of the REST spec's request, so never read from its JSON.
	Tags map[string]string `json:"-"`
}

// newTableMetadata builds a table's first metadata. Field ids are assigned
// afresh, as the spec asks of a catalog: the client's numbering only links
// the partition spec and sort order to the schema in the same request.
func newTableMetadata(in CreateTableInput, loc, tableUUID string, nowMs int64) (*tableMetadata, error) {
	if in.Schema == nil {
		return nil, invalid("schema", "create table needs a schema")
	}
	if err := checkSchemaLimits(in.Schema.Fields); err != nil {
		return nil, invalid("schema", "schema: %v", err)
	}
	old := map[int]bool{}
	if err := collectIDs(Type{Struct: in.Schema.Fields}, old); err != nil {
		return nil, invalid("schema", "schema: %v", err)
	}
	remap := map[int]int{}
	next := 0
	fields := freshStruct(in.Schema.Fields, remap, &next)
	schema := Schema{SchemaID: 0, Fields: fields}
	for _, id := range in.Schema.IdentifierFieldIDs {
		n, ok := remap[id]
		if !ok {
			return nil, invalid("schema", "identifier field %d is not in the schema", id)
		}
		schema.IdentifierFieldIDs = append(schema.IdentifierFieldIDs, n)
	}
	if err := checkProperties(in.Properties); err != nil {
		return nil, invalid("properties", "%v", err)
	}
	props := map[string]string{}
	for k, v := range in.Properties {
		props[k] = v
	}
	version := defaultFormatVersion
	if v, ok := props["format-version"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxFormatVersion {
			return nil, invalid("properties", "format-version %q is not supported (1 to %d)", v, maxFormatVersion)
		}
		version = n
		delete(props, "format-version") // a table property, not metadata
	}
	if err := checkSchemaVersion(schema, version); err != nil {
		return nil, invalid("schema", "schema: %v", err)
	}
	md := &tableMetadata{
		FormatVersion:     version,
		TableUUID:         tableUUID,
		Location:          loc,
		LastUpdatedMs:     nowMs,
		LastColumnID:      next,
		Schemas:           []Schema{schema},
		CurrentSchemaID:   0,
		LastPartitionID:   unpartitionedLastID,
		Properties:        props,
		CurrentSnapshotID: -1,
		Refs:              map[string]SnapshotRef{},
	}
	startRowLineage(md)
	b := &builder{md: md, nowMs: nowMs, addedSnapshots: map[int64]int64{}}
	fail := func(format string, args ...any) error {
		return invalid("partition-spec", "partition-spec: "+format, args...)
	}
	spec := UnboundSpec{}
	if in.PartitionSpec != nil {
		spec.Fields = in.PartitionSpec.Fields
		for i := range spec.Fields {
			f := &spec.Fields[i]
			if f.SourceID != nil {
				n, ok := remap[*f.SourceID]
				if !ok {
					return nil, fail("field %d: source column %d is not in the schema", i, *f.SourceID)
				}
				f.SourceID = &n
			}
			f.FieldID = nil // partition field ids are assigned from 1000 afresh
		}
	}
	if err := b.addSpec(spec, fail); err != nil {
		return nil, err
	}
	order := SortOrder{Fields: []SortField{}}
	if in.WriteOrder != nil {
		for i, f := range in.WriteOrder.Fields {
			n, ok := remap[f.SourceID]
			if !ok {
				return nil, invalid("write-order", "write-order: field %d: source column %d is not in the schema", i, f.SourceID)
			}
			f.SourceID = n
			order.Fields = append(order.Fields, f)
		}
	}
	fail = func(format string, args ...any) error { return invalid("write-order", "write-order: "+format, args...) }
	if err := b.addSortOrder(order, fail); err != nil {
		return nil, err
	}
	md.DefaultSpecID = *b.lastSpec
	md.DefaultSortOrderID = *b.lastOrder
	return md, nil
}

// freshStruct renumbers a struct the way Java's assignFreshIds does: a
// struct's own fields first, then what is nested inside each of them.
func freshStruct(fields []Field, remap map[int]int, next *int) []Field {
	out := make([]Field, len(fields))
	for i, f := range fields {
		*next++
		remap[f.ID] = *next
		f.ID = *next
		out[i] = f
	}
	for i := range out {
		out[i].Type = freshType(out[i].Type, remap, next)
	}
	return out
}

func freshType(t Type, remap map[int]int, next *int) Type {
	switch {
	case t.List != nil:
		l := *t.List
		*next++
		remap[l.ElementID] = *next
		l.ElementID = *next
		l.Element = freshType(l.Element, remap, next)
		return Type{List: &l}
	case t.Map != nil:
		m := *t.Map
		*next++
		remap[m.KeyID] = *next
		m.KeyID = *next
		*next++
		remap[m.ValueID] = *next
		m.ValueID = *next
		m.Key = freshType(m.Key, remap, next)
		m.Value = freshType(m.Value, remap, next)
		return Type{Map: &m}
	case t.Primitive != "":
		return t
	}
	return Type{Struct: freshStruct(t.Struct, remap, next)}
}
