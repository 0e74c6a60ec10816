package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/safety"
	"github.com/floe/floe/views"
)

// ProtectBucket protects a bucket (on=true) or lifts it (on=false).
func (h *Handlers) ProtectBucket(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("bucket")
	on, err := onParam(r)
	if err == nil {
		err = h.requireManage(r, safety.NamespaceResource(name, nil), "protecting a bucket")
	}
	if err == nil {
		_, err = h.store.SetBucketProtected(r.Context(), name, on)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Bucket "+name+" "+protectedWord(on))
	redirect(w, r, views.BucketURL(name))
}

// ProtectNamespace protects a namespace or lifts it (its floe.protected
// property).
func (h *Handlers) ProtectNamespace(w http.ResponseWriter, r *http.Request) {
	bucket, ns := r.PathValue("bucket"), r.PathValue("ns")
	levels := catalog.SplitNamespace(ns)
	on, err := onParam(r)
	if err == nil {
		err = h.requireManage(r, safety.NamespaceResource(bucket, levels), "protecting a namespace")
	}
	if err == nil {
		_, err = h.store.SetNamespaceProtected(r.Context(), bucket, levels, on)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Namespace "+ns+" "+protectedWord(on))
	redirect(w, r, views.NamespaceURL(bucket, ns))
}

// ProtectTable protects a table or lifts it: a Lance table's property in
// the catalog, an Iceberg table's through a commit, so its metadata file
// says the same.
func (h *Handlers) ProtectTable(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	ctx := r.Context()
	on, err := onParam(r)
	if err == nil {
		err = h.requireManage(r, safety.TableResource(ref), "protecting a table")
	}
	var t catalog.Table
	if err == nil {
		t, err = h.store.GetTable(ctx, ref)
	}
	if err == nil {
		if t.Format == catalog.FormatIceberg {
			var b catalog.Bucket
			if b, err = h.store.GetBucket(ctx, ref.Bucket); err == nil {
				_, err = iceberg.New(iceberg.Config{Store: h.store, Logger: h.log}).SetProtected(ctx, b, ref, on)
			}
		} else {
			_, err = h.store.SetTableProtected(ctx, ref, on)
		}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Table "+ref.Name+" "+protectedWord(on))
	redirect(w, r, views.TableURL(ref.Bucket, catalog.JoinNamespace(ref.Namespace), ref.Name))
}

func protectedWord(on bool) string {
	if on {
		return "is protected: drop, purge, cascade, overwrite and rename now refuse unless forced"
	}
	return "is no longer protected"
}
