package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/lancemeta"
	"github.com/floe/floe/views"
)

// lanceSchemaHistory compares the schemas of two versions of a Lance
// table (?from= and ?to= version numbers; by default the newest against
// the one before it), field by field id as the manifests number them. It
// lists _versions/ once and reads the two manifests compared, whatever
// the number of versions.
func (h *Handlers) lanceSchemaHistory(w http.ResponseWriter, r *http.Request, b catalog.Bucket, t catalog.Table) {
	ctx := r.Context()
	v := views.SchemaHistoryView{Page: h.page(r, t.Name+" · schema history", "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(t.Namespace), Name: t.Name, Unit: "version"}
	wh := h.store.Storage()
	versions, err := lancemeta.Versions(ctx, wh, t.Location)
	if err != nil {
		h.log.Warn("lance versions unreadable", "table", t.ID, "err", err)
		v.Error = "The table's versions could not be listed on storage, so their schemas cannot be compared."
		h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
		return
	}
	if len(versions) == 0 {
		v.Error = "This table has no version on storage yet: nothing has written it."
		h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
		return
	}
	to, err := versionParam(r, "to", versions[0], versions)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	def := to
	for _, ver := range versions { // newest first: the first older one
		if ver < to {
			def = ver
			break
		}
	}
	from, err := versionParam(r, "from", def, versions)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	schemas := map[uint64]iceberg.SchemaInfo{}
	for _, ver := range []uint64{from, to} {
		if _, ok := schemas[ver]; ok {
			continue
		}
		m, found, err := lancemeta.Version(ctx, wh, t.Location, ver)
		if err != nil || !found {
			h.log.Warn("lance manifest unreadable", "table", t.ID, "version", ver, "err", err)
			v.Error = "Version " + strconv.FormatUint(ver, 10) + "'s manifest could not be read, so its schema cannot be compared."
			h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
			return
		}
		schemas[ver] = lanceSchemaInfo(m.Schema)
	}
	for i, ver := range versions {
		label := "Version " + strconv.FormatUint(ver, 10)
		if i == 0 {
			label += " · newest"
		}
		if s, ok := schemas[ver]; ok {
			label += " · " + strconv.Itoa(len(s.Columns)) + " field" + plural(len(s.Columns))
		}
		id := strconv.FormatUint(ver, 10)
		v.Options = append(v.Options, views.SchemaOption{ID: id, Label: label, From: ver == from, To: ver == to})
	}
	v.FromID, v.ToID = strconv.FormatUint(from, 10), strconv.FormatUint(to, 10)
	for _, c := range iceberg.DiffSchemas(schemas[from], schemas[to]) {
		v.Changes = append(v.Changes, views.SchemaChangeRow{ID: strconv.Itoa(c.ID), Path: c.Path, Kind: string(c.Kind), From: c.From, To: c.To})
	}
	h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
}

// versionParam reads a version number from the query (def when absent);
// one _versions/ does not hold is fault.NotFound.
func versionParam(r *http.Request, name string, def uint64, versions []uint64) (uint64, error) {
	raw := strings.TrimSpace(r.URL.Query().Get(name))
	if raw == "" {
		return def, nil
	}
	ver, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, fault.New(fault.Invalid, name, "Version %q is not a version number; pick one from the list.", raw)
	}
	for _, have := range versions {
		if have == ver {
			return ver, nil
		}
	}
	return 0, fault.New(fault.NotFound, name, "This table has no version %d on storage (or it is older than the %d newest); pick one from the list.", ver, lancemeta.MaxListedVersions)
}

// lanceSchemaInfo flattens a Lance schema into the columns the schema
// diff compares: top-level fields and struct members by path, each with
// its manifest field id; a list's item is part of the list's type.
func lanceSchemaInfo(s lancemeta.Schema) iceberg.SchemaInfo {
	var out iceberg.SchemaInfo
	var walk func(fields []lancemeta.Field, prefix string, depth int)
	walk = func(fields []lancemeta.Field, prefix string, depth int) {
		for _, f := range fields {
			path := prefix + f.Name
			out.Columns = append(out.Columns, iceberg.Column{ID: int(f.ID), Name: f.Name, Path: path, Depth: depth,
				Type: lanceTypeName(f.Type), Required: !f.Nullable})
			if f.Type.Type == "struct" {
				walk(f.Type.Fields, path+".", depth+1)
			}
		}
	}
	walk(s.Fields, "", 0)
	return out
}

// lanceTypeName reads an Arrow type: int64, list<utf8>,
// fixed_size_list<float32, 128>, struct<a: int64, b: utf8>.
func lanceTypeName(t lancemeta.DataType) string {
	switch t.Type {
	case "struct":
		parts := make([]string, 0, len(t.Fields))
		for _, f := range t.Fields {
			parts = append(parts, f.Name+": "+lanceTypeName(f.Type))
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	case "list", "large_list", "fixed_size_list":
		item := "?"
		if len(t.Fields) == 1 {
			item = lanceTypeName(t.Fields[0].Type)
		}
		if t.Length != nil {
			item += ", " + strconv.FormatInt(*t.Length, 10)
		}
		return t.Type + "<" + item + ">"
	}
	if t.Length != nil {
		return t.Type + "(" + strconv.FormatInt(*t.Length, 10) + ")"
	}
	return t.Type
}
