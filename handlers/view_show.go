package handlers

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// viewsPerNamespacePage bounds the views the namespace page lists: each row
// reads the view's metadata file, and a namespace rarely holds more.
const viewsPerNamespacePage = 50

// namespaceViews lists the first views of a namespace with their current
// dialects and version counts, read from each view's metadata file.
func (h *Handlers) namespaceViews(ctx context.Context, namespace catalog.Namespace) ([]views.ViewRow, error) {
	bucket, ns := namespace.Bucket, namespace.Levels
	vs, _, err := h.store.ListViewsIn(ctx, namespace, catalog.ListOptions{Limit: viewsPerNamespacePage})
	if err != nil {
		return nil, err
	}
	rows := make([]views.ViewRow, 0, len(vs))
	for _, v := range vs {
		if !h.Can(ctx, identity.Read, identity.Resource{Bucket: bucket, Namespace: ns, Table: v.Name}) {
			continue
		}
		row := views.ViewRow{Name: v.Name}
		info, err := iceberg.LoadViewInfo(h.store.Storage(), v)
		if err != nil {
			h.log.Warn("iceberg view metadata unreadable", "view", v.ID, "err", err)
			row.Error = "metadata unreadable"
		} else {
			row.Dialects = strings.Join(info.Dialects, ", ")
			row.Versions = len(info.Versions)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ShowView renders an Iceberg view: SQL per dialect, schema, versions.
func (h *Handlers) ShowView(w http.ResponseWriter, r *http.Request) {
	ref := catalog.TableRef{
		Bucket:    r.PathValue("bucket"),
		Namespace: catalog.SplitNamespace(r.PathValue("ns")),
		Name:      r.PathValue("view"),
	}
	b, err := h.store.GetBucket(r.Context(), ref.Bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v, err := h.store.GetView(r.Context(), ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p := views.ViewPageView{
		Page: h.page(r, v.Name, "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(v.Namespace), Name: v.Name, Location: v.Location,
		MetadataLocation: v.MetadataLocation, CreatedAt: v.CreatedAt, ModifiedAt: v.ModifiedAt,
	}
	info, err := iceberg.LoadViewInfo(h.store.Storage(), v)
	if err != nil {
		h.log.Warn("iceberg view metadata unreadable", "view", v.ID, "err", err)
		p.Error = "The view's metadata file could not be read, so its SQL, schema and versions cannot be shown."
		h.render(w, r, http.StatusOK, views.ViewPage(p))
		return
	}
	p.UUID, p.Current = info.UUID, info.CurrentVersionID
	for _, c := range info.Columns[:min(len(info.Columns), maxSchemaRows)] {
		p.Columns = append(p.Columns, views.IcebergColumn{ID: c.ID, Name: c.Name, Path: c.Path, Depth: c.Depth, Type: c.Type, Required: c.Required})
	}
	for _, ver := range info.Versions {
		row := views.ViewVersionRow{
			ID: ver.VersionID, Time: time.UnixMilli(ver.TimestampMs).UTC(), SchemaID: ver.SchemaID,
			Current: ver.VersionID == info.CurrentVersionID, DefaultNamespace: strings.Join(ver.DefaultNamespace, "."),
			Engine: strings.TrimSpace(ver.Summary["engine-name"] + " " + ver.Summary["engine-version"]),
		}
		for _, rep := range ver.Representations {
			row.SQL = append(row.SQL, views.ViewSQL{Dialect: rep.Dialect, Text: rep.SQL})
		}
		p.Versions = append(p.Versions, row)
	}
	keys := make([]string, 0, len(info.Properties))
	for k := range info.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p.Properties = append(p.Properties, views.IcebergProperty{Key: k, Value: info.Properties[k]})
	}
	h.render(w, r, http.StatusOK, views.ViewPage(p))
}
