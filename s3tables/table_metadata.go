package s3tables

import (
	"encoding/json"
	"fmt"

	"github.com/floe/floe/iceberg"
)

// icebergMetadata is CreateTable's metadata.iceberg: a schema (the flat
// "schema" of primitive fields or the nested "schemaV2"), and optionally a
// partition spec, a write order and table properties. The partition and
// sort members use the Iceberg spec's own JSON names, as iceberg's
// CreateTableInput does.
type icebergMetadata struct {
	Schema *struct {
		Fields []schemaField `json:"fields"`
	} `json:"schema"`
	SchemaV2 *struct {
		Fields             []schemaField `json:"fields"`
		IdentifierFieldIDs []int         `json:"identifier-field-ids"`
	} `json:"schemaV2"`
	PartitionSpec *iceberg.UnboundSpec `json:"partitionSpec"`
	WriteOrder    *iceberg.SortOrder   `json:"writeOrder"`
	Properties    map[string]string    `json:"properties"`
}

// schemaField is a field of either schema form; type is a primitive name or,
// in schemaV2, a nested Iceberg type object.
type schemaField struct {
	ID       *int            `json:"id"`
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Required bool            `json:"required"`
	Doc      string          `json:"doc"`
}

// icebergCreateInput turns S3 Tables' metadata into the Iceberg library's
// create input. Fields without an id are numbered in order; the library
// then renumbers every field afresh, as the Iceberg spec asks of a catalog.
func icebergCreateInput(name string, raw json.RawMessage) (iceberg.CreateTableInput, error) {
	in := iceberg.CreateTableInput{Name: name}
	var md struct {
		Iceberg *icebergMetadata `json:"iceberg"`
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		return in, badRequest("metadata", "metadata is not the S3 Tables shape {\"iceberg\": {\"schema\": {\"fields\": […]}}}: "+err.Error())
	}
	m := md.Iceberg
	if m == nil || (m.Schema == nil && m.SchemaV2 == nil) {
		return in, badRequest("metadata", "metadata.iceberg.schema (or schemaV2) is required when metadata is given")
	}
	fields, ids := []schemaField(nil), []int(nil)
	if m.SchemaV2 != nil {
		fields, ids = m.SchemaV2.Fields, m.SchemaV2.IdentifierFieldIDs
	} else {
		fields = m.Schema.Fields
	}
	if len(fields) == 0 {
		return in, badRequest("metadata", "metadata.iceberg.schema needs at least one field")
	}
	schema := &iceberg.Schema{IdentifierFieldIDs: ids}
	for i, f := range fields {
		if f.Name == "" || len(f.Type) == 0 {
			return in, badRequest("metadata", fmt.Sprintf("schema field %d needs a name and a type", i+1))
		}
		var t iceberg.Type
		if err := json.Unmarshal(f.Type, &t); err != nil {
			return in, badRequest("metadata", fmt.Sprintf("schema field %q: type %s is not an Iceberg type: %v", f.Name, f.Type, err))
		}
		id := i + 1
		if f.ID != nil {
			id = *f.ID
		}
		schema.Fields = append(schema.Fields, iceberg.Field{ID: id, Name: f.Name, Required: f.Required, Type: t, Doc: f.Doc})
	}
	in.Schema, in.PartitionSpec, in.WriteOrder, in.Properties = schema, m.PartitionSpec, m.WriteOrder, m.Properties
	return in, nil
}
