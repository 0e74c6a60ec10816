package handlers

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/views"
)

// icebergPanel reads an Iceberg table's current metadata for its page. An
// unreadable metadata file becomes a sentence on the page, not a 500: the
// catalog entry is still worth showing (and dropping).
func (h *Handlers) icebergPanel(ctx context.Context, t catalog.Table) views.IcebergPanel {
	md, err := iceberg.LoadTableMetadata(ctx, h.store.Storage(), t)
	if err != nil {
		h.log.Warn("iceberg metadata unreadable", "table", t.ID, "err", err)
		msg := "The table's metadata could not be read, so its schema, partitions and snapshots cannot be shown: " + err.Error() + "."
		if t.MetadataLocation == "" {
			msg = "This table has no metadata file yet: an engine reserved the name but never committed a first version."
		}
		return views.IcebergPanel{Error: msg}
	}
	base := views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)
	p := views.IcebergPanel{
		FormatVersion: md.FormatVersion, UUID: md.TableUUID, MetadataLocation: md.MetadataLocation,
		LastUpdated: md.LastUpdated,
		Records:     icebergCount(md.TotalRecords), DataFiles: icebergCount(md.TotalDataFiles),
		DeleteFiles: icebergCount(md.TotalDeleteFiles), Size: icebergBytes(md.TotalFilesSize),
		Snapshots: icebergCount(int64(md.SnapshotCount)),
	}
	p.ColumnsTotal = len(md.Columns)
	p.Schemas, p.SchemasHref = len(md.Schemas), base+"/schema"
	for _, c := range md.Columns[:min(len(md.Columns), maxSchemaRows)] {
		p.Columns = append(p.Columns, views.IcebergColumn{ID: c.ID, Name: c.Name, Path: c.Path, Depth: c.Depth, Type: c.Type, Required: c.Required, Doc: c.Doc})
	}
	for _, f := range md.PartitionSpec {
		p.Partition = append(p.Partition, fmt.Sprintf("%s(%s) AS %s", f.Transform, f.SourceName, f.Name))
	}
	for _, f := range md.SortOrder {
		expr := f.SourceName
		if f.Transform != "" && f.Transform != "identity" {
			expr = f.Transform + "(" + f.SourceName + ")"
		}
		p.SortOrder = append(p.SortOrder, strings.TrimSpace(expr+" "+f.Direction+" "+f.NullOrder))
	}
	for _, kv := range md.Properties {
		p.Properties = append(p.Properties, views.IcebergProperty{Key: kv.Key, Value: kv.Value})
	}
	for _, s := range md.Snapshots {
		id := strconv.FormatInt(s.ID, 10)
		p.History = append(p.History, views.IcebergSnapshot{
			ID: id, Time: s.Time, Operation: s.Operation, Added: icebergCount(s.AddedRecords), Total: icebergCount(s.TotalRecords),
			Current: s.Current, DataHref: base + "/data?" + url.Values{"snapshot": {id}}.Encode(),
		})
	}
	for _, r := range md.Refs {
		p.Refs = append(p.Refs, views.IcebergRef{Name: r.Name, Type: r.Type, SnapshotID: strconv.FormatInt(r.SnapshotID, 10)})
	}
	return p
}

// icebergCount formats a figure a writer may have left out (-1): a dash, never 0.
func icebergCount(n int64) string {
	if n < 0 {
		return "—"
	}
	return groupDigits(n)
}

// icebergBytes renders a size in binary units with one decimal: 1.5 MiB.
func icebergBytes(n int64) string {
	if n < 0 {
		return "—"
	}
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// maxSchemaRows bounds the schema panel: past a few hundred rows a page is
// no longer read but scrolled, and a legal 10,000-field schema would render
// megabytes of HTML on every visit. The rest is in the metadata file.
const maxSchemaRows = 500
