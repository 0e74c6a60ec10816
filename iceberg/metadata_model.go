package iceberg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file is the Iceberg table metadata JSON (format v1 read, v2 written)
// as the catalog stores it. It is deliberately our own small model: the
// server needs to apply commits and the console needs to render them, and
// neither needs a query engine's whole library.

// tableMetadata is one metadata.json file.
type tableMetadata struct {
	FormatVersion       int                    `json:"format-version"`
	TableUUID           string                 `json:"table-uuid"`
	Location            string                 `json:"location"`
	LastSequenceNumber  int64                  `json:"last-sequence-number"`
	LastUpdatedMs       int64                  `json:"last-updated-ms"`
	LastColumnID        int                    `json:"last-column-id"`
	Schemas             []Schema               `json:"schemas"`
	CurrentSchemaID     int                    `json:"current-schema-id"`
	PartitionSpecs      []PartitionSpec        `json:"partition-specs"`
	DefaultSpecID       int                    `json:"default-spec-id"`
	LastPartitionID     int                    `json:"last-partition-id"`
	Properties          map[string]string      `json:"properties"`
	CurrentSnapshotID   int64                  `json:"current-snapshot-id"` // -1 = none, as Java writes it
	Snapshots           []Snapshot             `json:"snapshots"`
	SnapshotLog         []SnapshotLogEntry     `json:"snapshot-log"`
	MetadataLog         []MetadataLogEntry     `json:"metadata-log"`
	SortOrders          []SortOrder            `json:"sort-orders"`
	DefaultSortOrderID  int                    `json:"default-sort-order-id"`
	Refs                map[string]SnapshotRef `json:"refs"`
	Statistics          []json.RawMessage      `json:"statistics,omitempty"`
	PartitionStatistics []json.RawMessage      `json:"partition-statistics,omitempty"`
	NextRowID           *int64                 `json:"next-row-id,omitempty"` // v3 row lineage
}

// Schema is one schema of a table: a struct with an id.
type Schema struct {
	SchemaID           int     `json:"schema-id"`
	IdentifierFieldIDs []int   `json:"identifier-field-ids,omitempty"`
	Fields             []Field `json:"fields"`
}

// Field is a named, numbered member of a struct.
type Field struct {
	ID             int             `json:"id"`
	Name           string          `json:"name"`
	Required       bool            `json:"required"`
	Type           Type            `json:"type"`
	Doc            string          `json:"doc,omitempty"`
	InitialDefault json.RawMessage `json:"initial-default,omitempty"`
	WriteDefault   json.RawMessage `json:"write-default,omitempty"`
}

// Type is an Iceberg type: a primitive name ("long", "decimal(9,2)") or one
// of struct, list, map.
type Type struct {
	Primitive string
	Struct    []Field
	List      *ListType
	Map       *MapType
}

// ListType is list<element>.
type ListType struct {
	ElementID       int
	Element         Type
	ElementRequired bool
}

// MapType is map<key, value>.
type MapType struct {
	KeyID         int
	Key           Type
	ValueID       int
	Value         Type
	ValueRequired bool
}

// PartitionSpec is one partition spec.
type PartitionSpec struct {
	SpecID int              `json:"spec-id"`
	Fields []PartitionField `json:"fields"`
}

// PartitionField derives a partition value from a source column.
type PartitionField struct {
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

// SortOrder is one sort order; order 0 is "unsorted".
type SortOrder struct {
	OrderID int         `json:"order-id"`
	Fields  []SortField `json:"fields"`
}

// SortField sorts by a transform of a source column.
type SortField struct {
	SourceID  int    `json:"source-id"`
	Transform string `json:"transform"`
	Direction string `json:"direction"`
	NullOrder string `json:"null-order"`
}

// Snapshot is one table state.
type Snapshot struct {
	SnapshotID       int64             `json:"snapshot-id"`
	ParentSnapshotID *int64            `json:"parent-snapshot-id,omitempty"`
	SequenceNumber   int64             `json:"sequence-number"`
	TimestampMs      int64             `json:"timestamp-ms"`
	ManifestList     string            `json:"manifest-list,omitempty"`
	Manifests        []string          `json:"manifests,omitempty"` // v1 only
	Summary          map[string]string `json:"summary"`
	SchemaID         *int              `json:"schema-id,omitempty"`
	FirstRowID       *int64            `json:"first-row-id,omitempty"` // v3 row lineage
	AddedRows        *int64            `json:"added-rows,omitempty"`   // v3 row lineage
}

// SnapshotRef is a named branch or tag.
type SnapshotRef struct {
	SnapshotID         int64  `json:"snapshot-id"`
	Type               string `json:"type"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms,omitempty"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms,omitempty"`
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep,omitempty"`
}

// SnapshotLogEntry records when the current snapshot changed.
type SnapshotLogEntry struct {
	TimestampMs int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

// MetadataLogEntry records a previous metadata file.
type MetadataLogEntry struct {
	TimestampMs  int64  `json:"timestamp-ms"`
	MetadataFile string `json:"metadata-file"`
}

const mainBranch = "main"

// MarshalJSON writes the schema as a struct type with its id.
func (s Schema) MarshalJSON() ([]byte, error) {
	type wire struct {
		Type               string  `json:"type"`
		SchemaID           int     `json:"schema-id"`
		IdentifierFieldIDs []int   `json:"identifier-field-ids,omitempty"`
		Fields             []Field `json:"fields"`
	}
	f := s.Fields
	if f == nil {
		f = []Field{}
	}
	return json.Marshal(wire{"struct", s.SchemaID, s.IdentifierFieldIDs, f})
}

// MarshalJSON writes a primitive as a string and nested types as objects.
func (t Type) MarshalJSON() ([]byte, error) {
	switch {
	case t.List != nil:
		return json.Marshal(struct {
			Type            string `json:"type"`
			ElementID       int    `json:"element-id"`
			Element         Type   `json:"element"`
			ElementRequired bool   `json:"element-required"`
		}{"list", t.List.ElementID, t.List.Element, t.List.ElementRequired})
	case t.Map != nil:
		return json.Marshal(struct {
			Type          string `json:"type"`
			KeyID         int    `json:"key-id"`
			Key           Type   `json:"key"`
			ValueID       int    `json:"value-id"`
			Value         Type   `json:"value"`
			ValueRequired bool   `json:"value-required"`
		}{"map", t.Map.KeyID, t.Map.Key, t.Map.ValueID, t.Map.Value, t.Map.ValueRequired})
	case t.Primitive != "":
		return json.Marshal(t.Primitive)
	default:
		f := t.Struct
		if f == nil {
			f = []Field{}
		}
		return json.Marshal(struct {
			Type   string  `json:"type"`
			Fields []Field `json:"fields"`
		}{"struct", f})
	}
}

// UnmarshalJSON reads either form of a type.
func (t *Type) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			return fmt.Errorf("empty type name")
		}
		*t = Type{Primitive: s}
		return nil
	}
	var w struct {
		Type            string  `json:"type"`
		Fields          []Field `json:"fields"`
		ElementID       *int    `json:"element-id"`
		Element         *Type   `json:"element"`
		ElementRequired bool    `json:"element-required"`
		KeyID           *int    `json:"key-id"`
		Key             *Type   `json:"key"`
		ValueID         *int    `json:"value-id"`
		Value           *Type   `json:"value"`
		ValueRequired   bool    `json:"value-required"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch w.Type {
	case "struct":
		f := w.Fields
		if f == nil {
			f = []Field{}
		}
		*t = Type{Struct: f}
	case "list":
		if w.ElementID == nil || w.Element == nil {
			return fmt.Errorf("list type needs element-id and element")
		}
		*t = Type{List: &ListType{ElementID: *w.ElementID, Element: *w.Element, ElementRequired: w.ElementRequired}}
	case "map":
		if w.KeyID == nil || w.Key == nil || w.ValueID == nil || w.Value == nil {
			return fmt.Errorf("map type needs key-id, key, value-id and value")
		}
		*t = Type{Map: &MapType{KeyID: *w.KeyID, Key: *w.Key, ValueID: *w.ValueID, Value: *w.Value, ValueRequired: w.ValueRequired}}
	default:
		return fmt.Errorf("unknown nested type %q", w.Type)
	}
	return nil
}

// String renders a type the way people read it: list<long>,
// map<string, struct<a: int, b: string>>.
func (t Type) String() string {
	switch {
	case t.List != nil:
		return "list<" + t.List.Element.String() + ">"
	case t.Map != nil:
		return "map<" + t.Map.Key.String() + ", " + t.Map.Value.String() + ">"
	case t.Primitive != "":
		return t.Primitive
	default:
		parts := make([]string, len(t.Struct))
		for i, f := range t.Struct {
			p := f.Name + ": " + f.Type.String()
			if f.Required {
				p += " not null"
			}
			parts[i] = p
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	}
}

// UnmarshalJSON accepts the v1 and v2 layouts and fills what v1 leaves out,
// so everything above works on one shape.
func (m *tableMetadata) UnmarshalJSON(b []byte) error {
	type alias tableMetadata
	var w struct {
		alias
		CurrentSnapshotID *int64           `json:"current-snapshot-id"`
		LastPartitionID   *int             `json:"last-partition-id"`
		Schema            *Schema          `json:"schema"`
		PartitionSpec     []PartitionField `json:"partition-spec"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = tableMetadata(w.alias)
	if m.FormatVersion < 1 || m.FormatVersion > maxFormatVersion {
		return fmt.Errorf("format-version %d is not supported (1 to %d)", m.FormatVersion, maxFormatVersion)
	}
	if len(m.Schemas) == 0 && w.Schema != nil {
		m.Schemas = []Schema{*w.Schema}
		m.CurrentSchemaID = w.Schema.SchemaID
	}
	if len(m.PartitionSpecs) == 0 {
		m.PartitionSpecs = []PartitionSpec{{SpecID: 0, Fields: w.PartitionSpec}}
		m.DefaultSpecID = 0
	}
	m.CurrentSnapshotID = -1
	if w.CurrentSnapshotID != nil {
		m.CurrentSnapshotID = *w.CurrentSnapshotID
	}
	if w.LastPartitionID != nil {
		m.LastPartitionID = *w.LastPartitionID
	} else {
		m.LastPartitionID = unpartitionedLastID
		for _, s := range m.PartitionSpecs {
			for _, f := range s.Fields {
				m.LastPartitionID = max(m.LastPartitionID, f.FieldID)
			}
		}
	}
	if len(m.SortOrders) == 0 {
		m.SortOrders = []SortOrder{{OrderID: 0, Fields: []SortField{}}}
	}
	if m.Properties == nil {
		m.Properties = map[string]string{}
	}
	if m.Refs == nil {
		m.Refs = map[string]SnapshotRef{}
	}
	if m.CurrentSnapshotID >= 0 {
		if _, ok := m.Refs[mainBranch]; !ok {
			m.Refs[mainBranch] = SnapshotRef{SnapshotID: m.CurrentSnapshotID, Type: "branch"}
		}
	}
	if _, ok := m.schema(m.CurrentSchemaID); !ok {
		return fmt.Errorf("current-schema-id %d names no schema", m.CurrentSchemaID)
	}
	return nil
}

// unpartitionedLastID is last-partition-id before any partition field exists;
// partition field ids start at 1000.
const unpartitionedLastID = 999

func (m *tableMetadata) schema(id int) (Schema, bool) {
	for _, s := range m.Schemas {
		if s.SchemaID == id {
			return s, true
		}
	}
	return Schema{}, false
}

func (m *tableMetadata) spec(id int) (PartitionSpec, bool) {
	for _, s := range m.PartitionSpecs {
		if s.SpecID == id {
			return s, true
		}
	}
	return PartitionSpec{}, false
}

func (m *tableMetadata) sortOrder(id int) (SortOrder, bool) {
	for _, s := range m.SortOrders {
		if s.OrderID == id {
			return s, true
		}
	}
	return SortOrder{}, false
}

func (m *tableMetadata) snapshot(id int64) (Snapshot, bool) {
	for _, s := range m.Snapshots {
		if s.SnapshotID == id {
			return s, true
		}
	}
	return Snapshot{}, false
}

// encode writes the metadata with empty lists as [] rather than null, which
// some readers insist on.
func (m *tableMetadata) encode() ([]byte, error) {
	c := *m
	if c.Snapshots == nil {
		c.Snapshots = []Snapshot{}
	}
	if c.SnapshotLog == nil {
		c.SnapshotLog = []SnapshotLogEntry{}
	}
	if c.MetadataLog == nil {
		c.MetadataLog = []MetadataLogEntry{}
	}
	if c.Properties == nil {
		c.Properties = map[string]string{}
	}
	if c.Refs == nil {
		c.Refs = map[string]SnapshotRef{}
	}
	for i := range c.PartitionSpecs {
		if c.PartitionSpecs[i].Fields == nil {
			c.PartitionSpecs[i].Fields = []PartitionField{}
		}
	}
	for i := range c.SortOrders {
		if c.SortOrders[i].Fields == nil {
			c.SortOrders[i].Fields = []SortField{}
		}
	}
	if c.FormatVersion == 1 {
		return encodeV1(c)
	}
	return json.Marshal(c)
}

// encodeV1 writes format version 1 as its readers expect: without the
// fields v2 introduced (iceberg-go refuses a v1 file that has
// last-sequence-number), and with the single schema and partition spec v1
// readers look for beside the lists.
func encodeV1(c tableMetadata) ([]byte, error) {
	type alias tableMetadata
	var spec []PartitionField
	if s, ok := c.spec(c.DefaultSpecID); ok {
		spec = s.Fields
	}
	if spec == nil {
		spec = []PartitionField{}
	}
	schema, _ := c.schema(c.CurrentSchemaID)
	// The outer fields shadow the embedded ones of the same JSON name.
	return json.Marshal(struct {
		alias
		LastSequenceNumber *int64           `json:"last-sequence-number,omitempty"`
		NextRowID          *int64           `json:"next-row-id,omitempty"`
		Schema             Schema           `json:"schema"`
		PartitionSpec      []PartitionField `json:"partition-spec"`
	}{alias: alias(c), Schema: schema, PartitionSpec: spec})
}

// clone deep-copies the parts commits change in place.
func (m *tableMetadata) clone() *tableMetadata {
	c := *m
	c.Schemas = append([]Schema(nil), m.Schemas...)
	c.PartitionSpecs = append([]PartitionSpec(nil), m.PartitionSpecs...)
	c.SortOrders = append([]SortOrder(nil), m.SortOrders...)
	c.Snapshots = append([]Snapshot(nil), m.Snapshots...)
	c.SnapshotLog = append([]SnapshotLogEntry(nil), m.SnapshotLog...)
	c.MetadataLog = append([]MetadataLogEntry(nil), m.MetadataLog...)
	c.Statistics = append([]json.RawMessage(nil), m.Statistics...)
	c.PartitionStatistics = append([]json.RawMessage(nil), m.PartitionStatistics...)
	c.Properties = make(map[string]string, len(m.Properties))
	for k, v := range m.Properties {
		c.Properties[k] = v
	}
	c.Refs = make(map[string]SnapshotRef, len(m.Refs))
	for k, v := range m.Refs {
		c.Refs[k] = v
	}
	return &c
}
