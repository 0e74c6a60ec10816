package iceberg

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// Metadata is what the console shows of an Iceberg table: summary figures of
// the current snapshot, the current schema, partitioning, sort order,
// properties, snapshots (newest first) and refs.
type Metadata struct {
	FormatVersion    int
	TableUUID        string
	Location         string
	MetadataLocation string
	LastUpdated      time.Time

	// From the current snapshot's summary; -1 when the writer did not say.
	TotalRecords     int64
	TotalDataFiles   int64
	TotalDeleteFiles int64
	TotalFilesSize   int64 // bytes
	SnapshotCount    int
	// CurrentSnapshotID is 0 when the table has no snapshot yet.
	CurrentSnapshotID int64

	SchemaID int
	Columns  []Column // current schema, nested fields flattened in order
	// Schemas are every schema the metadata keeps, oldest id first, each
	// flattened like Columns (schema history and diffs).
	Schemas       []SchemaInfo
	PartitionSpec []PartitionColumn
	SortOrder     []SortColumn
	Properties    []Property // sorted by key
	Snapshots     []SnapshotInfo
	Refs          []Ref // sorted: main first, then by name
}

// Column is one field of the schema. Nested fields follow their parent with
// Depth+1 and a dotted Path ("address.city", "tags.element").
type Column struct {
	ID       int
	Name     string
	Path     string
	Depth    int
	Type     string // readable: long, decimal(9,2), list<string>, struct<a: int, …>
	Required bool
	Doc      string
}

// PartitionColumn is one partition field: Transform(SourceName) AS Name.
type PartitionColumn struct {
	FieldID    int
	Name       string
	SourceName string
	Transform  string
}

// SortColumn is one sort key.
type SortColumn struct {
	SourceName string
	Transform  string
	Direction  string // asc | desc
	NullOrder  string // nulls-first | nulls-last
}

// Property is one table property.
type Property struct{ Key, Value string }

// SnapshotInfo is one snapshot. Counts are -1 when the summary lacks them.
type SnapshotInfo struct {
	ID           int64
	ParentID     int64 // 0 = none
	Time         time.Time
	Operation    string // append, overwrite, delete, replace
	AddedRecords int64
	TotalRecords int64
	AddedFiles   int64
	Current      bool
	Summary      map[string]string
	SchemaID     int // the schema it was written with; -1 when the snapshot does not say (v1)
}

// SchemaInfo is one schema of the table's history.
type SchemaInfo struct {
	ID      int
	Columns []Column
}

// Ref is a branch or tag.
type Ref struct {
	Name       string
	Type       string // branch | tag
	SnapshotID int64
}

// LoadTableMetadata reads a table's current metadata file for the console.
func LoadTableMetadata(ctx context.Context, wh *warehouse.Warehouse, tbl catalog.Table) (*Metadata, error) {
	md, err := tableMetadataOf(warehouseFiles{wh}, tbl)
	if err != nil {
		return nil, err
	}
	return describe(md, tbl.MetadataLocation), nil
}

func tableMetadataOf(fs fileStore, tbl catalog.Table) (*tableMetadata, error) {
	if tbl.Format != catalog.FormatIceberg {
		return nil, fmt.Errorf("table %s is a %s table, not Iceberg", tbl.Name, tbl.Format)
	}
	if tbl.MetadataLocation == "" {
		return nil, fmt.Errorf("table %s has no metadata file yet", tbl.Name)
	}
	raw, err := fs.ReadFile(tbl.MetadataLocation)
	if err != nil {
		return nil, fmt.Errorf("reading metadata of %s: %w", tbl.Name, err)
	}
	var md tableMetadata
	if err := json.Unmarshal(raw, &md); err != nil {
		return nil, fmt.Errorf("metadata of %s at %s is not valid: %w", tbl.Name, tbl.MetadataLocation, err)
	}
	return &md, nil
}

func describe(md *tableMetadata, loc string) *Metadata {
	out := &Metadata{
		FormatVersion: md.FormatVersion, TableUUID: md.TableUUID, Location: md.Location,
		MetadataLocation: loc, LastUpdated: time.UnixMilli(md.LastUpdatedMs).UTC(),
		TotalRecords: -1, TotalDataFiles: -1, TotalDeleteFiles: -1, TotalFilesSize: -1,
		SnapshotCount: len(md.Snapshots), SchemaID: md.CurrentSchemaID,
	}
	if cur, ok := md.snapshot(md.CurrentSnapshotID); ok {
		out.CurrentSnapshotID = cur.SnapshotID
		out.TotalRecords = summaryInt(cur.Summary, "total-records")
		out.TotalDataFiles = summaryInt(cur.Summary, "total-data-files")
		out.TotalDeleteFiles = summaryInt(cur.Summary, "total-delete-files")
		out.TotalFilesSize = summaryInt(cur.Summary, "total-files-size")
	}
	schema, _ := md.schema(md.CurrentSchemaID)
	names := map[int]string{}
	flatten(schema.Fields, "", 0, &out.Columns, names)
	for _, sc := range md.Schemas {
		si := SchemaInfo{ID: sc.SchemaID}
		flatten(sc.Fields, "", 0, &si.Columns, map[int]string{})
		out.Schemas = append(out.Schemas, si)
	}
	sort.Slice(out.Schemas, func(i, j int) bool { return out.Schemas[i].ID < out.Schemas[j].ID })
	if spec, ok := md.spec(md.DefaultSpecID); ok {
		for _, f := range spec.Fields {
			out.PartitionSpec = append(out.PartitionSpec, PartitionColumn{f.FieldID, f.Name, sourceName(names, f.SourceID), f.Transform})
		}
	}
	if order, ok := md.sortOrder(md.DefaultSortOrderID); ok {
		for _, f := range order.Fields {
			out.SortOrder = append(out.SortOrder, SortColumn{sourceName(names, f.SourceID), f.Transform, f.Direction, f.NullOrder})
		}
	}
	for k, v := range md.Properties {
		out.Properties = append(out.Properties, Property{k, v})
	}
	sort.Slice(out.Properties, func(i, j int) bool { return out.Properties[i].Key < out.Properties[j].Key })
	for _, s := range md.Snapshots {
		info := SnapshotInfo{
			ID: s.SnapshotID, Time: time.UnixMilli(s.TimestampMs).UTC(), Operation: s.Summary["operation"],
			AddedRecords: summaryInt(s.Summary, "added-records"), TotalRecords: summaryInt(s.Summary, "total-records"),
			AddedFiles: summaryInt(s.Summary, "added-data-files"), Current: s.SnapshotID == md.CurrentSnapshotID,
			Summary: s.Summary, SchemaID: -1,
		}
		if s.SchemaID != nil {
			info.SchemaID = *s.SchemaID
		}
		if s.ParentSnapshotID != nil {
			info.ParentID = *s.ParentSnapshotID
		}
		out.Snapshots = append(out.Snapshots, info)
	}
	sort.SliceStable(out.Snapshots, func(i, j int) bool { return out.Snapshots[i].Time.After(out.Snapshots[j].Time) })
	for name, r := range md.Refs {
		out.Refs = append(out.Refs, Ref{name, r.Type, r.SnapshotID})
	}
	sort.Slice(out.Refs, func(i, j int) bool {
		if (out.Refs[i].Name == mainBranch) != (out.Refs[j].Name == mainBranch) {
			return out.Refs[i].Name == mainBranch
		}
		return out.Refs[i].Name < out.Refs[j].Name
	})
	return out
}

func summaryInt(m map[string]string, k string) int64 {
	v, err := strconv.ParseInt(m[k], 10, 64)
	if err != nil {
		return -1
	}
	return v
}

func sourceName(names map[int]string, id int) string {
	if n, ok := names[id]; ok {
		return n
	}
	return "#" + strconv.Itoa(id) // a column dropped from the current schema
}

func flatten(fields []Field, prefix string, depth int, out *[]Column, names map[int]string) {
	for _, f := range fields {
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		*out = append(*out, Column{ID: f.ID, Name: f.Name, Path: path, Depth: depth, Type: f.Type.String(), Required: f.Required, Doc: f.Doc})
		names[f.ID] = path
		flattenType(f.Type, path, depth+1, out, names)
	}
}

func flattenType(t Type, path string, depth int, out *[]Column, names map[int]string) {
	switch {
	case t.List != nil:
		if isNested(t.List.Element) {
			p := path + ".element"
			*out = append(*out, Column{ID: t.List.ElementID, Name: "element", Path: p, Depth: depth, Type: t.List.Element.String(), Required: t.List.ElementRequired})
			names[t.List.ElementID] = p
			flattenType(t.List.Element, p, depth+1, out, names)
		}
	case t.Map != nil:
		if isNested(t.Map.Value) {
			p := path + ".value"
			*out = append(*out, Column{ID: t.Map.ValueID, Name: "value", Path: p, Depth: depth, Type: t.Map.Value.String(), Required: t.Map.ValueRequired})
			names[t.Map.ValueID] = p
			flattenType(t.Map.Value, p, depth+1, out, names)
		}
	case t.Primitive == "":
		flatten(t.Struct, path, depth, out, names)
	}
}

func isNested(t Type) bool { return t.Primitive == "" }
