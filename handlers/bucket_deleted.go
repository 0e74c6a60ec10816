package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/views"
)

// deletedPerPage is the Recently deleted list's page: dropped tables are
// rare next to live ones, and a long list pages by drop time.
const deletedPerPage = 50

// bucketSafetyViews fills the bucket page's protection, Recently deleted
// list and settings.
func (h *Handlers) bucketSafetyViews(r *http.Request, b catalog.Bucket, v *views.BucketView) error {
	ctx := r.Context()
	res := safety.NamespaceResource(b.Name, nil)
	manage := h.canManage(r, res)
	v.CanManage = manage
	v.Protection = views.ProtectionView{What: "bucket", Action: views.BucketURL(b.Name) + "/protect", Protected: b.Protected, CanManage: manage}
	after := r.URL.Query().Get("deleted_after")
	if len(after) > maxFilterLen {
		after = after[:maxFilterLen]
	}
	rows, next, err := h.store.ListDeletedTables(ctx, b.Name, catalog.ListOptions{After: after, Limit: deletedPerPage})
	if err != nil {
		return err
	}
	def, err := h.store.DefaultHold(ctx)
	if err != nil {
		return err
	}
	hold := b.HoldOr(def)
	v.Deleted = views.RecentlyDeletedView{Hold: holdSentence(hold), CanManage: manage}
	if next != "" {
		v.Deleted.NextHref = views.BucketURL(b.Name) + "?deleted_after=" + url.QueryEscape(next) + "#recently-deleted"
	}
	for _, d := range rows {
		base := views.BucketURL(b.Name) + "/deleted/" + url.PathEscape(d.ID)
		v.Deleted.Rows = append(v.Deleted.Rows, views.DeletedRow{ID: d.ID, Namespace: catalog.JoinNamespace(d.Namespace), Name: d.Name,
			Format: string(d.Format), DeletedAt: d.DeletedAt, PurgeAt: d.PurgeAt, DeletedBy: d.DeletedBy, Reason: d.Reason,
			KeepsData: !d.PurgeData, Protected: d.Protected(), UndropURL: base + "/undrop", PurgeURL: base + "/purge"})
	}
	on, own, err := h.store.DestructiveMaintenance(ctx, b.Name)
	if err != nil {
		return err
	}
	v.Safety = views.BucketSafetyView{Action: views.BucketURL(b.Name) + "/settings", DefaultHold: catalog.FormatHold(def),
		Destructive: on, DestructiveOwn: own, CanManage: manage}
	if b.SoftDeleteHold >= 0 {
		v.Safety.Hold = catalog.FormatHold(b.SoftDeleteHold)
	}
	return nil
}

// holdSentence says what a drop in the bucket does.
func holdSentence(d time.Duration) string {
	if d == 0 {
		return "This bucket keeps no dropped tables: a drop deletes the data at once."
	}
	return "A table dropped in this bucket stays here for " + catalog.FormatHold(d) + ", its data kept, then its data is deleted. Undrop brings it back meanwhile; Purge now deletes it at once."
}

// UndropDeletedTable brings a recently deleted table back, under its old
// name or the one typed.
func (h *Handlers) UndropDeletedTable(w http.ResponseWriter, r *http.Request) {
	bucket, id := r.PathValue("bucket"), r.PathValue("id")
	ctx := r.Context()
	d, err := h.store.GetDeletedTable(ctx, id)
	if err == nil && d.Bucket != bucket {
		err = catalog.Invalid("table_id", "that table was dropped from another bucket")
	}
	to := catalog.TableRef{Bucket: bucket, Name: strings.TrimSpace(r.PostFormValue("name"))}
	if err == nil {
		err = h.requireManage(r, safety.TableResource(catalog.TableRef{Bucket: bucket, Namespace: d.Namespace, Name: d.Name}), "undrop")
	}
	var t catalog.Table
	if err == nil {
		t, err = h.store.UndropTable(ctx, id, to)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Table "+t.Name+" is back in namespace "+catalog.JoinNamespace(t.Namespace)+", with its data")
	redirect(w, r, views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name))
}

// PurgeDeletedTable deletes a recently deleted table's data now.
func (h *Handlers) PurgeDeletedTable(w http.ResponseWriter, r *http.Request) {
	bucket, id := r.PathValue("bucket"), r.PathValue("id")
	ctx := r.Context()
	d, err := h.store.GetDeletedTable(ctx, id)
	if err == nil && d.Bucket != bucket {
		err = catalog.Invalid("table_id", "that table was dropped from another bucket")
	}
	if err == nil {
		err = h.requireManage(r, safety.TableResource(catalog.TableRef{Bucket: bucket, Namespace: d.Namespace, Name: d.Name}), "purge")
	}
	if err == nil {
		_, err = h.store.PurgeDeletedTable(ctx, id, r.PostFormValue("force") == "true")
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	msg := "Table " + d.Name + " purged: its data is deleted"
	if !d.PurgeData {
		msg = "Table " + d.Name + " purged: its entry is forgotten; its data was kept, as its drop asked"
	}
	h.flash(r, msg)
	redirect(w, r, views.BucketURL(bucket)+"#recently-deleted")
}

// UndropBucket brings back a deleted bucket with the tables its delete
// dropped.
func (h *Handlers) UndropBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	err := h.requireManage(r, safety.NamespaceResource(name, nil), "undrop")
	var back []catalog.Table
	if err == nil {
		_, back, err = h.store.UndropBucket(r.Context(), name)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Bucket "+name+" is back with "+strconv.Itoa(len(back))+" tables")
	redirect(w, r, views.BucketURL(name))
}

// PurgeBucket deletes the data of a deleted bucket's tables now, and the
// bucket.
func (h *Handlers) PurgeBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	err := h.requireManage(r, safety.NamespaceResource(name, nil), "purge")
	var done []catalog.DeletedTable
	if err == nil {
		done, err = h.store.PurgeDeletedBucket(r.Context(), name, false)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Bucket "+name+" purged with "+strconv.Itoa(len(done))+" tables")
	redirect(w, r, "/buckets")
}

// SaveBucketSafety stores a bucket's hold and destructive-maintenance
// switch.
func (h *Handlers) SaveBucketSafety(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	ctx := r.Context()
	if err := h.requireManage(r, safety.NamespaceResource(name, nil), "changing the bucket's hold and maintenance"); err != nil {
		h.fail(w, r, err)
		return
	}
	hold := time.Duration(-1)
	if raw := strings.TrimSpace(r.PostFormValue("soft_delete_hold")); raw != "" {
		d, err := catalog.ParseHold(raw)
		if err != nil {
			v, verr := h.bucketView(r, name)
			if verr != nil {
				h.fail(w, r, verr)
				return
			}
			h.logError(r, http.StatusUnprocessableEntity, err)
			v.Safety.Hold = raw
			v.Safety.Errors = views.FieldErrors{"soft_delete_hold": fault.Message(err, "not a hold")}
			h.render(w, r, http.StatusUnprocessableEntity, views.BucketPage(v))
			return
		}
		hold = d
	}
	if _, err := h.store.SetBucketHold(ctx, name, hold); err != nil {
		h.fail(w, r, err)
		return
	}
	on := r.PostFormValue("destructive") == "true"
	if cur, _, err := h.store.DestructiveMaintenance(ctx, name); err != nil || cur != on {
		if err := h.store.SetDestructiveMaintenance(ctx, name, on); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	h.flash(r, "Settings of bucket "+name+" saved")
	redirect(w, r, views.BucketURL(name))
}
