package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/views"
)

func tableRef(r *http.Request) catalog.TableRef {
	return catalog.TableRef{
		Bucket:    r.PathValue("bucket"),
		Namespace: catalog.SplitNamespace(r.PathValue("ns")),
		Name:      r.PathValue("table"),
	}
}

// ShowTable renders the table page in the table's own format.
func (h *Handlers) ShowTable(w http.ResponseWriter, r *http.Request) {
	v, err := h.tableView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if v.Format == string(catalog.FormatIceberg) {
		t, err := h.store.GetTable(r.Context(), tableRef(r))
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v.Iceberg = h.icebergPanel(r.Context(), t)
		if v.Iceberg.Error == "" {
			v.Rows = v.Iceberg.Records // the metadata knows; no worker observes Iceberg
			p := icebergProperties(t, v.Iceberg.Properties, h.mayEditTable(r, t))
			v.Properties = &p
		}
	}
	h.render(w, r, http.StatusOK, views.TablePage(v))
}

func (h *Handlers) tableView(r *http.Request) (views.TableView, error) {
	since := renderedAt() // before anything shown is read
	ref := tableRef(r)
	b, err := h.store.GetBucket(r.Context(), ref.Bucket)
	if err != nil {
		return views.TableView{}, err
	}
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		return views.TableView{}, err
	}
	v := views.TableView{
		Page: h.page(r, t.Name, "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(t.Namespace), Name: t.Name, ID: t.ID, ARN: h.displayARN(t.ARN),
		Format: string(t.Format), Location: t.Location, State: string(t.State),
		CreatedAt: t.CreatedAt, ModifiedAt: t.ModifiedAt, Rows: "—",
	}
	if t.Format == catalog.FormatLance {
		v.Version, v.UpdatingTo = h.lanceFigures(r.Context(), t)
		p := lanceProperties(t, h.mayEditTable(r, t))
		v.Properties = &p
	}
	if h.stats != nil {
		if st, ok := h.stats.TableStats(t.ID, t.Format); ok {
			v.Rows, v.ObservedAt, v.WorkerID = groupDigits(st.Rows), st.ObservedAt, st.WorkerID
		}
	}
	if t.Format != catalog.FormatIceberg {
		v.Observed = h.observedView(t)
	}
	v.RenderedAt = since
	v.Health = h.healthPanel(t, since)
	v.Trend = h.trendView(r.Context(), t)
	if t.Format == catalog.FormatLance {
		v.Refs = h.lanceRefs(r.Context(), t, v.Version)
	}
	v.CanManage = h.canManage(r, safety.TableResource(ref))
	v.Protection = views.ProtectionView{What: "table", Action: views.TableURL(b.Name, v.Namespace, t.Name) + "/protect",
		Protected: t.Protected(), CanManage: v.CanManage}
	hold, err := h.store.EffectiveHold(r.Context(), b)
	if err != nil {
		return views.TableView{}, err
	}
	v.Hold = catalog.FormatHold(hold)
	return v, nil
}
