package handlers

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/views"
)

// TableSchemaHistory compares two schemas of an Iceberg table (?from= and
// ?to= schema ids; by default the current schema against the one before
// it), field by field id; a Lance table's two versions' schemas
// (table_schema_lance.go).
func (h *Handlers) TableSchemaHistory(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ref := tableRef(r)
	b, err := h.store.GetBucket(ctx, ref.Bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, err := h.store.GetTable(ctx, ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if t.Format == catalog.FormatLance {
		h.lanceSchemaHistory(w, r, b, t)
		return
	}
	v := views.SchemaHistoryView{Page: h.page(r, t.Name+" · schema history", "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(t.Namespace), Name: t.Name, Unit: "schema"}
	md, err := iceberg.LoadTableMetadata(ctx, h.store.Storage(), t)
	if err != nil {
		h.log.Warn("iceberg metadata unreadable", "table", t.ID, "err", err)
		v.Error = "The table's metadata could not be read, so its schemas cannot be compared."
		if t.MetadataLocation == "" {
			v.Error = "This table has no metadata file yet: an engine reserved the name but never committed a first version."
		}
		h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
		return
	}
	byID := map[int]iceberg.SchemaInfo{}
	for _, s := range md.Schemas {
		byID[s.ID] = s
	}
	to, err := schemaParam(r, "to", md.SchemaID, byID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	from, err := schemaParam(r, "from", previousSchema(md.Schemas, to), byID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	used, since := map[int]int{}, map[int]time.Time{}
	for _, s := range md.Snapshots {
		used[s.SchemaID]++
		if first, ok := since[s.SchemaID]; !ok || s.Time.Before(first) {
			since[s.SchemaID] = s.Time
		}
	}
	for _, s := range slices.Backward(md.Schemas) { // newest first
		label := "Schema " + strconv.Itoa(s.ID)
		var notes []string
		if s.ID == md.SchemaID {
			notes = append(notes, "current")
		}
		if n := used[s.ID]; n > 0 {
			notes = append(notes, strconv.Itoa(n)+" snapshot"+plural(n)+" since "+since[s.ID].UTC().Format("2006-01-02 15:04 UTC"))
		}
		notes = append(notes, strconv.Itoa(len(s.Columns))+" field"+plural(len(s.Columns)))
		v.Options = append(v.Options, views.SchemaOption{ID: strconv.Itoa(s.ID), Label: label + " · " + strings.Join(notes, " · "), From: s.ID == from, To: s.ID == to})
	}
	v.FromID, v.ToID = strconv.Itoa(from), strconv.Itoa(to)
	for _, c := range iceberg.DiffSchemas(byID[from], byID[to]) {
		v.Changes = append(v.Changes, views.SchemaChangeRow{ID: strconv.Itoa(c.ID), Path: c.Path, Kind: string(c.Kind), From: c.From, To: c.To})
	}
	h.render(w, r, http.StatusOK, views.SchemaHistoryPage(v))
}

// schemaParam reads a schema id from the query (def when absent); an id
// the metadata does not keep is fault.NotFound.
func schemaParam(r *http.Request, name string, def int, byID map[int]iceberg.SchemaInfo) (int, error) {
	raw := strings.TrimSpace(r.URL.Query().Get(name))
	if raw == "" {
		return def, nil
	}
	id, err := strconv.Atoi(raw)
	if err != nil || len(raw) > 10 {
		return 0, fault.New(fault.Invalid, name, "Schema %q is not a schema id; pick one from the list.", raw)
	}
	if _, ok := byID[id]; !ok {
		return 0, fault.New(fault.NotFound, name, "This table has no schema %d; pick one from the list.", id)
	}
	return id, nil
}

// previousSchema is the schema before id (by id), or id itself when it is
// the first.
func previousSchema(schemas []iceberg.SchemaInfo, id int) int {
	prev := id
	for _, s := range schemas { // oldest id first
		if s.ID >= id {
			break
		}
		prev = s.ID
	}
	return prev
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
