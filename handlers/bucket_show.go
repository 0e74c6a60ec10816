package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// ShowBucket renders /buckets/{bucket}: namespaces, Connect snippets, delete.
func (h *Handlers) ShowBucket(w http.ResponseWriter, r *http.Request) {
	v, err := h.bucketView(r, r.PathValue("bucket"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.BucketPage(v))
}

func (h *Handlers) bucketView(r *http.Request, name string) (views.BucketView, error) {
	b, err := h.store.GetBucket(r.Context(), name)
	if err != nil {
		return views.BucketView{}, err
	}
	nss, err := h.store.ListAllNamespaces(r.Context(), b.Name)
	if err != nil {
		return views.BucketView{}, err
	}
	v := views.BucketView{
		Page: h.page(r, b.Name, "buckets"), Name: b.Name, Format: string(b.Format), ARN: h.displayARN(b.ARN),
		CreatedAt: b.CreatedAt, TableCount: b.TableCount,
		Snippets: h.snippets(r, b.Name, b.Format),
	}
	storeRisk(&v, b, h.store.Storage().ConditionalWrites())
	rt, err := h.Rights(r.Context())
	if err != nil {
		return views.BucketView{}, err
	}
	for _, n := range nss {
		if rt.Visible(identity.Resource{Bucket: b.Name, Namespace: n.Levels}) {
			v.Namespaces = append(v.Namespaces, views.NamespaceRow{Name: n.Name(), Depth: len(n.Levels) - 1, CreatedAt: n.CreatedAt})
		}
	}
	// Dropping a bucket takes every grantee's tables in it: a manager of
	// everything's to do.
	v.CanDrop = rt.Can(identity.Manage, identity.Resource{})
	v.Trend = h.bucketTrendView(r.Context(), b, rt)
	if err := h.bucketSafetyViews(r, b, &v); err != nil {
		return views.BucketView{}, err
	}
	return v, nil
}

// storeRisk fills the bucket's managed versioning and, on a warehouse whose
// store ignores If-None-Match, what that means for its Lance tables.
func storeRisk(v *views.BucketView, b catalog.Bucket, conditional bool) {
	if b.Format == catalog.FormatIceberg {
		return
	}
	v.Managed = "off"
	if b.ManagedVersioning {
		v.Managed = "on"
	}
	switch {
	case conditional:
	case b.ManagedVersioning:
		v.StoreRisk = "This warehouse's S3 store does not honour If-None-Match (--s3-conditional-put absent), so floe decides every commit of this bucket's Lance tables " +
			"and managed versioning stays on. Writers must be LanceDB 0.39 or newer, through floe: one that writes to the store directly can lose its commits or another's."
	default:
		v.RiskAlert = true
		v.StoreRisk = "This warehouse's S3 store does not honour If-None-Match (--s3-conditional-put absent), and this bucket is not managed: " +
			"two writers committing to one of its Lance tables at once can replace each other's version without an error. " +
			"Turn managed versioning on (floe bucket managed-versioning " + b.Name + " on) once its writers are LanceDB 0.39 or newer."
	}
}
