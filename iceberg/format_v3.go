package iceberg

import "fmt"

// Format version 3: new types and row lineage. A v3 table carries
// next-row-id; each snapshot added to it says which row ids it assigned
// (first-row-id, added-rows) and the table's next-row-id moves past them.

// maxFormatVersion is the newest table format this catalog writes.
const maxFormatVersion = 3

// defaultFormatVersion is what a create without a format-version property
// gets: v2 is what every engine reads; v3 is asked for by name.
const defaultFormatVersion = 2

// v3OnlyTypes are the primitive types a table below format 3 may not hold:
// readers of v1/v2 tables do not know them.
var v3OnlyTypes = map[string]bool{
	"timestamp_ns": true, "timestamptz_ns": true, "variant": true, "unknown": true,
	"geometry": true, "geography": true,
}

// v3Type returns the first v3-only type in t, or "".
func v3Type(t Type) string {
	switch {
	case t.Primitive != "":
		if v3OnlyTypes[t.Primitive] {
			return t.Primitive
		}
		return ""
	case t.List != nil:
		return v3Type(t.List.Element)
	case t.Map != nil:
		if p := v3Type(t.Map.Key); p != "" {
			return p
		}
		return v3Type(t.Map.Value)
	}
	for _, f := range t.Struct {
		if p := v3Type(f.Type); p != "" {
			return p
		}
	}
	return ""
}

// checkSchemaVersion refuses a schema holding types its table's format
// version does not have.
func checkSchemaVersion(s Schema, version int) error {
	if version >= 3 {
		return nil
	}
	if p := v3Type(Type{Struct: s.Fields}); p != "" {
		return fmt.Errorf("type %s needs format version 3, the table is version %d; create it with the property format-version=3 or upgrade it first", p, version)
	}
	return nil
}

// assignRowIDs checks a snapshot added to a v3 table and moves next-row-id
// past the ids it assigned (the spec's Snapshot Row IDs).
func assignRowIDs(md *tableMetadata, s Snapshot) error {
	if md.FormatVersion < 3 {
		return nil
	}
	if s.FirstRowID == nil || s.AddedRows == nil {
		return fmt.Errorf("a snapshot of a format version 3 table needs first-row-id and added-rows")
	}
	next := int64(0)
	if md.NextRowID != nil {
		next = *md.NextRowID
	}
	if *s.FirstRowID < next {
		return fmt.Errorf("first-row-id %d is behind the table's next-row-id %d; reload the table and retry", *s.FirstRowID, next)
	}
	if *s.AddedRows < 0 {
		return fmt.Errorf("added-rows %d is negative", *s.AddedRows)
	}
	n := *s.FirstRowID + *s.AddedRows
	md.NextRowID = &n
	return nil
}

// startRowLineage sets next-row-id of a table becoming v3 (the spec: it
// starts at 0 and existing snapshots keep no first-row-id).
func startRowLineage(md *tableMetadata) {
	if md.FormatVersion >= 3 && md.NextRowID == nil {
		zero := int64(0)
		md.NextRowID = &zero
	}
}
