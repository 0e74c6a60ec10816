package handlers

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// ShowBucket renders /buckets/{bucket}: namespaces, Connect snippets, delete.
func (h *Handlers) ShowBucket(w http.ResponseWriter, r *http.Request) {
	v, err := h.bucketView(r, chi.URLParam(r, "bucket"))
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
		Page: h.page(r, b.Name, "buckets"), Name: b.Name, Format: string(b.Format), ARN: b.ARN,
		CreatedAt: b.CreatedAt, TableCount: b.TableCount,
		Snippets: h.snippets(r, b.Name, "default", b.Format),
	}
	for _, n := range nss {
		v.Namespaces = append(v.Namespaces, views.NamespaceRow{Name: n.Name(), Depth: len(n.Levels) - 1, CreatedAt: n.CreatedAt})
	}
	return v, nil
}

// DeleteBucket deletes an empty bucket, or with cascade=true everything in it
// including data. A non-empty bucket without cascade is a 409 on the page.
func (h *Handlers) DeleteBucket(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "bucket")
	cascade := r.PostFormValue("cascade") == "true"
	if err := h.store.DeleteBucket(r.Context(), name, cascade); err != nil {
		h.fail(w, r, err)
		return
	}
	redirect(w, r, "/buckets")
}

// CreateNamespace creates one namespace in a bucket; a.b needs a to exist.
func (h *Handlers) CreateNamespace(w http.ResponseWriter, r *http.Request) {
	bucket := chi.URLParam(r, "bucket")
	raw := strings.TrimSpace(r.PostFormValue("namespace"))
	levels := catalog.SplitNamespace(raw)
	err := validateLevels(levels)
	if err == nil {
		_, err = h.store.CreateNamespace(r.Context(), bucket, levels, nil)
	}
	if err != nil {
		field, msg, status, ok := fieldError(err, "namespace")
		if !ok {
			h.fail(w, r, err)
			return
		}
		_ = field // every refusal here belongs to the one namespace input
		v, verr := h.bucketView(r, bucket)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.NewNS, v.Errors = raw, views.FieldErrors{"namespace": msg}
		h.render(w, r, status, views.BucketPage(v))
		return
	}
	redirect(w, r, views.NamespaceURL(bucket, raw))
}

func validateLevels(levels []string) error {
	if len(levels) == 0 {
		return catalog.Invalid("namespace", "Type a namespace name, e.g. sales or sales.eu.")
	}
	for _, l := range levels {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return err
		}
	}
	return nil
}
