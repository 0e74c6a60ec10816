package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// CreateBucket handles the create-bucket dialog. Refusals re-render the form
// (the htmx fragment, or the whole page with the dialog open) with the reason
// next to the field.
func (h *Handlers) CreateBucket(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	format := r.PostFormValue("format")
	edge.Describe(r.Context(), identity.Resource{Bucket: name}) // the audit trail names what was asked for
	form := h.newBucketForm(r, name, format)
	if err := h.mayCreate(r.Context(), identity.Resource{Bucket: name}, catalog.ValidateBucketName(name) == nil); err != nil {
		h.Forbidden(w, r, err)
		return
	}

	f, err := catalog.ParseFormat(format)
	switch {
	case err != nil || f == catalog.FormatUnset:
		h.refuseBucket(w, r, form, http.StatusUnprocessableEntity, "format", "Pick a format: Lance or Iceberg.")
		return
	case f == catalog.FormatLance && h.surfaces.Lance == "":
		h.refuseBucket(w, r, form, http.StatusUnprocessableEntity, "format", "The Lance catalog is not running, so a Lance bucket would have no endpoint. Start floe with --lance.")
		return
	case f == catalog.FormatIceberg && h.surfaces.Iceberg == "":
		h.refuseBucket(w, r, form, http.StatusUnprocessableEntity, "format", "The Iceberg catalog is not running, so an Iceberg bucket would have no endpoint. Start floe with --iceberg.")
		return
	}
	if err := catalog.ValidateBucketName(name); err != nil {
		h.refuseBucket(w, r, form, http.StatusUnprocessableEntity, "name", err.Error())
		return
	}
	u, _ := UserFrom(r.Context())
	b, err := h.store.CreateBucket(r.Context(), catalog.CreateBucketInput{Name: name, Format: f, Owner: u.Name})
	if err != nil {
		if field, msg, status, ok := fieldError(err, "name"); ok {
			if field != "format" {
				field = "name"
			}
			h.refuseBucket(w, r, form, status, field, msg)
			return
		}
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Bucket "+b.Name+" created")
	redirect(w, r, views.BucketURL(b.Name))
}

func (h *Handlers) refuseBucket(w http.ResponseWriter, r *http.Request, form views.CreateBucketForm, status int, field, msg string) {
	h.logError(r, status, &fault.Error{Kind: fault.Invalid, Field: field, Message: msg})
	form.Errors = views.FieldErrors{field: msg}
	if isHTMX(r) {
		h.render(w, r, status, views.CreateBucketFormView(form))
		return
	}
	form.Open = true
	v, err := h.bucketsView(r, form)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, status, views.BucketsPage(v))
}
