package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// Properties of namespaces and tables: shown to everyone, set and removed
// by users who may write. A namespace's and a Lance table's live in floe's
// catalog (what the Lance REST and the Iceberg REST answer); an Iceberg
// table's live in its metadata, so a change there is a commit, checked and
// recorded as any engine's would be.

// propertyChange is one submitted change: op "set" (key, value) or
// "remove" (key).
type propertyChange struct {
	op, key, value string
}

func parsePropertyChange(r *http.Request) (propertyChange, error) {
	c := propertyChange{op: r.PostFormValue("op"), key: strings.TrimSpace(r.PostFormValue("key")), value: r.PostFormValue("value")}
	switch {
	case c.op != "set" && c.op != "remove":
		return c, catalog.Invalid("", "Pick Set property or Remove.")
	case c.key == "":
		return c, catalog.Invalid("key", "Give the property a key, e.g. owner or write.parquet.compression-codec.")
	case len(c.key) > catalog.MaxPropertyKeyBytes:
		return c, catalog.Invalid("key", "A property key is at most 1 KiB.")
	case len(c.value) > catalog.MaxPropertyValueBytes:
		return c, catalog.Invalid("value", "A property value is at most 64 KiB.")
	}
	return c, nil
}

func (c propertyChange) done() string {
	if c.op == "remove" {
		return "Property " + c.key + " removed."
	}
	return "Property " + c.key + " set."
}

func propertyRows(props map[string]string, fixed func(key string) string) []views.PropertyRow {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([]views.PropertyRow, 0, len(keys))
	for _, k := range keys {
		row := views.PropertyRow{Key: k, Value: props[k]}
		if fixed != nil {
			row.Fixed = fixed(k)
		}
		rows = append(rows, row)
	}
	return rows
}

// namespaceProperties is a namespace page's Properties panel.
func namespaceProperties(ns catalog.Namespace, canEdit bool) views.PropertiesView {
	return views.PropertiesView{TestID: "namespace-properties", Rows: propertyRows(ns.Properties, nil),
		URL: views.NamespaceURL(ns.Bucket, ns.Name()) + "/properties", CanEdit: canEdit,
		Empty: "No properties are set on this namespace.", Note: "Engines read them through the Lance and Iceberg catalogs."}
}

// lanceProperties is a Lance table page's Properties panel.
func lanceProperties(t catalog.Table, canEdit bool) views.PropertiesView {
	return views.PropertiesView{TestID: "table-properties", URL: tableURLOf(t) + "/properties", CanEdit: canEdit,
		Rows: propertyRows(t.Properties, func(k string) string {
			if strings.HasPrefix(k, catalog.ReservedPropertyPrefix) {
				return "set by floe"
			}
			return ""
		}),
		Empty: "No properties are set on this table.", Note: "They are kept in floe's catalog; the Lance REST's DescribeTable answers them."}
}

// icebergProperties is an Iceberg table page's Properties panel, from its
// current metadata.
func icebergProperties(t catalog.Table, props []views.IcebergProperty, canEdit bool) views.PropertiesView {
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p.Key] = p.Value
	}
	return views.PropertiesView{TestID: "table-properties", Rows: propertyRows(m, nil), URL: tableURLOf(t) + "/properties", CanEdit: canEdit,
		Empty: "No table properties are set.", Note: "Each change is a commit of the table's metadata (a new metadata file), as an engine's would be."}
}

// mayEditNamespace reports whether the user may change a namespace's
// properties: manage on it, as the Iceberg REST's updateProperties asks.
func (h *Handlers) mayEditNamespace(r *http.Request, ns catalog.Namespace) bool {
	return h.Can(r.Context(), identity.Manage, identity.Resource{Bucket: ns.Bucket, Namespace: ns.Levels})
}

// mayEditTable reports whether the user may change a table's properties:
// write on it, as the Iceberg REST's table commit asks.
func (h *Handlers) mayEditTable(r *http.Request, t catalog.Table) bool {
	return h.Can(r.Context(), identity.Write, tablePlace(t))
}

func tableURLOf(t catalog.Table) string {
	return views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)
}

// UpdateNamespaceProperties sets or removes one property of a namespace.
func (h *Handlers) UpdateNamespaceProperties(w http.ResponseWriter, r *http.Request) {
	bucket, levels := r.PathValue("bucket"), catalog.SplitNamespace(r.PathValue("ns"))
	ns, err := h.store.GetNamespace(r.Context(), bucket, levels)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	c, err := parsePropertyChange(r)
	if err == nil {
		var removals []string
		var updates map[string]string
		if c.op == "remove" {
			removals = []string{c.key}
		} else {
			updates = map[string]string{c.key: c.value}
		}
		var updated catalog.Namespace
		if updated, err = h.store.UpdateNamespaceProperties(r.Context(), bucket, levels, removals, updates); err == nil {
			ns = updated
		}
	}
	h.propertiesDone(w, r, namespaceProperties(ns, true), views.NamespaceURL(bucket, ns.Name()), c, err)
}

// UpdateTableProperties sets or removes one property of a table: a Lance
// table's in the catalog, an Iceberg table's through a commit.
func (h *Handlers) UpdateTableProperties(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	c, err := parsePropertyChange(r)
	var panel views.PropertiesView
	switch t.Format {
	case catalog.FormatIceberg:
		if err == nil {
			err = h.commitIcebergProperty(r.Context(), t, c)
		}
		panel = icebergProperties(t, nil, true)
		if md, lerr := h.reloadIceberg(r.Context(), ref); lerr == nil {
			panel = icebergProperties(t, md, true)
		} else if err == nil {
			err = lerr
		}
	default:
		if err == nil {
			var removals []string
			var updates map[string]string
			if c.op == "remove" {
				removals = []string{c.key}
			} else {
				updates = map[string]string{c.key: c.value}
			}
			var updated catalog.Table
			if updated, err = h.store.UpdateTableProperties(r.Context(), t.ID, "", removals, updates); err == nil {
				t = updated
			}
		}
		panel = lanceProperties(t, true)
	}
	h.propertiesDone(w, r, panel, tableURLOf(t), c, err)
}

// reloadIceberg reads an Iceberg table's properties after a commit.
func (h *Handlers) reloadIceberg(ctx context.Context, ref catalog.TableRef) ([]views.IcebergProperty, error) {
	t, err := h.store.GetTable(ctx, ref)
	if err != nil {
		return nil, err
	}
	md, err := iceberg.LoadTableMetadata(ctx, h.store.Storage(), t)
	if err != nil {
		return nil, err
	}
	out := make([]views.IcebergProperty, 0, len(md.Properties))
	for _, p := range md.Properties {
		out = append(out, views.IcebergProperty{Key: p.Key, Value: p.Value})
	}
	return out, nil
}

// commitIcebergProperty commits one property change to an Iceberg table,
// asserting the table's uuid, as the Iceberg REST's commit would.
func (h *Handlers) commitIcebergProperty(ctx context.Context, t catalog.Table, c propertyChange) error {
	b, err := h.store.GetBucket(ctx, t.Bucket)
	if err != nil {
		return err
	}
	md, err := iceberg.LoadTableMetadata(ctx, h.store.Storage(), t)
	if err != nil {
		return &fault.Error{Kind: fault.Conflict, Field: "", Message: "The table's metadata cannot be read, so no commit can change it: " + err.Error() + "."}
	}
	var update any = map[string]any{"action": "set-properties", "updates": map[string]string{c.key: c.value}}
	if c.op == "remove" {
		update = map[string]any{"action": "remove-properties", "removals": []string{c.key}}
	}
	req := iceberg.CommitInput{
		Requirements: []json.RawMessage{mustJSON(map[string]string{"type": "assert-table-uuid", "uuid": md.TableUUID})},
		Updates:      []json.RawMessage{mustJSON(update)},
	}
	_, err = iceberg.New(iceberg.Config{Store: h.store, Logger: h.log}).Commit(ctx, b, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name}, req)
	if errors.Is(err, fault.CommitFailed) {
		return &fault.Error{Kind: fault.Conflict, Field: "", Message: "Another commit changed the table meanwhile; the panel shows its properties now. Try again."}
	}
	return err
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("handlers: marshal a commit of strings: " + err.Error()) // maps and slices of strings always marshal
	}
	return b
}

// propertiesDone answers a property change: the panel in place for htmx
// (with the refusal at its field), else back to the page (or the error
// page for a refusal).
func (h *Handlers) propertiesDone(w http.ResponseWriter, r *http.Request, panel views.PropertiesView, page string, c propertyChange, err error) {
	if err != nil {
		field, msg, status, ok := fieldError(err, "")
		if !ok {
			h.fail(w, r, err)
			return
		}
		if field != "key" && field != "value" {
			field = ""
		}
		h.logError(r, status, err)
		if !isHTMX(r) {
			h.fail(w, r, err)
			return
		}
		panel.Key, panel.Value, panel.Errors = c.key, c.value, views.FieldErrors{field: msg}
		h.render(w, r, status, views.PropertiesPanel(panel))
		return
	}
	if !isHTMX(r) {
		h.flash(r, c.done())
		redirect(w, r, page+"#properties")
		return
	}
	panel.Saved = c.done()
	h.render(w, r, http.StatusOK, views.PropertiesPanel(panel))
}
