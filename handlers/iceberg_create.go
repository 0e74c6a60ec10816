package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// IcebergColumnRowURL is the htmx fragment that adds one schema-builder row.
const IcebergColumnRowURL = "/fragments/iceberg-column"

// NewIcebergTable shows the create-table form of an Iceberg (or unset)
// bucket's namespace. A read-only user sees it too, disabled with the
// reason (every page is readable; only the POST is refused).
func (h *Handlers) NewIcebergTable(w http.ResponseWriter, r *http.Request) {
	v, err := h.icebergCreateView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Columns = []views.IcebergColumnInput{{Key: "0", Type: "long"}}
	h.render(w, r, http.StatusOK, views.IcebergCreatePage(v))
}

// IcebergColumnRow is the htmx fragment of one empty schema-builder row. Its
// input ids carry a random key so rows added side by side never share one.
func (h *Handlers) IcebergColumnRow(w http.ResponseWriter, r *http.Request) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	h.render(w, r, http.StatusOK, views.IcebergColumnRow(views.IcebergColumnInput{Key: "n" + hex.EncodeToString(b[:]), Type: "string"}, icebergTypes, nil))
}

// CreateIcebergTable validates the form and creates the table with its first
// metadata file; problems come back as 422 with the reason at each field.
func (h *Handlers) CreateIcebergTable(w http.ResponseWriter, r *http.Request) {
	v, err := h.icebergCreateView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := r.ParseForm(); err != nil {
		if tl := bodyTooLarge(err); tl != nil {
			h.fail(w, r, tl)
			return
		}
		h.fail(w, r, catalog.Invalid("form", "the form could not be read"))
		return
	}
	form := parseIcebergCreateForm(r.PostForm)
	place := identity.Resource{Bucket: v.Bucket, Namespace: catalog.SplitNamespace(v.Namespace), Table: form.Name}
	if err := h.mayCreate(r.Context(), place, catalog.ValidateTableName(form.Name) == nil); err != nil {
		h.Forbidden(w, r, err)
		return
	}
	v.Name, v.Columns, v.Partition, v.PartSource, v.PartN = form.Name, form.Columns, form.Partition, form.PartSource, form.PartN
	edge.Describe(r.Context(), identity.Resource{Bucket: v.Bucket, Namespace: catalog.SplitNamespace(v.Namespace), Table: v.Name}) // what was asked for
	if len(v.Columns) > maxSchemaColumns {
		v.Columns = v.Columns[:maxSchemaColumns]
	}
	spec, errs := form.validate()
	status := http.StatusUnprocessableEntity
	if len(errs) == 0 {
		err := h.createIcebergTable(r.Context(), v.Bucket, catalog.SplitNamespace(v.Namespace), spec)
		var ie *fault.Error
		isLib := errors.As(err, &ie)
		switch {
		case err == nil:
		case errors.Is(err, fault.AlreadyExists):
			status, errs["name"] = http.StatusConflict, "A table named "+spec.Name+" already exists in this namespace."
		case errors.Is(err, fault.NotFound):
			h.fail(w, r, &fault.Error{Kind: fault.NotFound, Field: ie.Field, Message: ie.Message})
			return
		case isLib:
			v.Notice = "The catalog refused the table: " + ie.Message
			errs["form"] = ie.Message // logged below; shown as the notice
		default:
			h.fail(w, r, err)
			return
		}
	}
	if len(errs) > 0 {
		h.logError(r, status, fmt.Errorf("create iceberg table: %v", errs))
		v.Errors = errs
		h.render(w, r, status, views.IcebergCreatePage(v))
		return
	}
	h.flash(r, "Iceberg table "+spec.Name+" created")
	redirect(w, r, views.TableURL(v.Bucket, v.Namespace, spec.Name))
}

// icebergCreateView loads the bucket and namespace and fills the form's
// fixed parts. A Lance bucket has no Iceberg tables: it is a conflict.
func (h *Handlers) icebergCreateView(r *http.Request) (views.IcebergCreateView, error) {
	ctx := r.Context()
	b, err := h.store.GetBucket(ctx, r.PathValue("bucket"))
	if err != nil {
		return views.IcebergCreateView{}, err
	}
	if b.Format == catalog.FormatLance {
		return views.IcebergCreateView{}, &fault.Error{Kind: fault.Conflict,
			Message: "Bucket " + b.Name + " holds Lance tables only; create Iceberg tables in an Iceberg bucket."}
	}
	ns, err := h.store.GetNamespace(ctx, b.Name, catalog.SplitNamespace(r.PathValue("ns")))
	if err != nil {
		return views.IcebergCreateView{}, err
	}
	return views.IcebergCreateView{
		Page: h.page(r, "Create table · "+ns.Name(), "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns.Name(), Action: views.NamespaceURL(b.Name, ns.Name()) + "/create-table",
		RowURL: IcebergColumnRowURL, Types: icebergTypes, Partition: "none",
	}, nil
}

// createIcebergTable creates the table with the Iceberg library, so its
// first metadata file is written exactly as an engine's create through the
// REST catalog writes it (the console has already checked that the user may
// write). A refusal is an *fault.Error; anything else is a server fault.
func (h *Handlers) createIcebergTable(ctx context.Context, bucket string, ns []string, spec icebergCreateSpec) error {
	b, err := h.store.GetBucket(ctx, bucket)
	if err != nil {
		return err
	}
	schema := spec.Schema
	part := &iceberg.UnboundSpec{SpecID: new(int), Fields: []iceberg.UnboundPartitionField{}}
	for _, f := range spec.Partition {
		part.Fields = append(part.Fields, iceberg.UnboundPartitionField{SourceID: &f.SourceID, Name: f.Name, Transform: f.Transform})
	}
	in := iceberg.CreateTableInput{
		Name:          spec.Name,
		Schema:        &schema,
		PartitionSpec: part,
		WriteOrder:    &iceberg.SortOrder{Fields: []iceberg.SortField{}},
		Properties:    map[string]string{},
	}
	_, err = iceberg.New(iceberg.Config{Store: h.store, Logger: h.log}).CreateTable(ctx, b, ns, in)
	return err
}
