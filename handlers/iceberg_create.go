package handlers

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/views"
)

// IcebergColumnRowURL is the htmx fragment that adds one schema-builder row.
const IcebergColumnRowURL = "/fragments/iceberg-column"

// NewIcebergTable shows the create-table form of an Iceberg (or unset)
// bucket's namespace.
func (h *Handlers) NewIcebergTable(w http.ResponseWriter, r *http.Request) {
	if u, _ := UserFrom(r.Context()); !u.CanWrite() {
		h.Forbidden(w, r)
		return
	}
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
		h.fail(w, r, catalog.Invalid("form", "the form could not be read"))
		return
	}
	form := parseIcebergCreateForm(r.PostForm)
	v.Name, v.Columns, v.Partition, v.PartSource, v.PartN = form.Name, form.Columns, form.Partition, form.PartSource, form.PartN
	if len(v.Columns) > maxSchemaColumns {
		v.Columns = v.Columns[:maxSchemaColumns]
	}
	spec, errs := form.validate()
	status := http.StatusUnprocessableEntity
	if len(errs) == 0 {
		code, msg, cerr := h.createIcebergTable(r.Context(), v.Bucket, catalog.SplitNamespace(v.Namespace), spec)
		switch {
		case cerr != nil:
			h.fail(w, r, cerr)
			return
		case code == http.StatusConflict:
			status, errs["name"] = code, "A table named "+spec.Name+" already exists in this namespace."
		case code == http.StatusNotFound:
			h.fail(w, r, &catalog.Error{Kind: catalog.ErrNotFound, Message: msg})
			return
		case code >= 300:
			v.Notice = "The catalog refused the table: " + msg
			errs["form"] = msg // logged below; shown as the notice
		}
	}
	if len(errs) > 0 {
		h.logError(r, status, fmt.Errorf("create iceberg table: %v", errs))
		v.Errors = errs
		h.render(w, r, status, views.IcebergCreatePage(v))
		return
	}
	redirect(w, r, views.TableURL(v.Bucket, v.Namespace, spec.Name))
}

// icebergCreateView loads the bucket and namespace and fills the form's
// fixed parts. A Lance bucket has no Iceberg tables: it is a conflict.
func (h *Handlers) icebergCreateView(r *http.Request) (views.IcebergCreateView, error) {
	ctx := r.Context()
	b, err := h.store.GetBucket(ctx, chi.URLParam(r, "bucket"))
	if err != nil {
		return views.IcebergCreateView{}, err
	}
	if b.Format == catalog.FormatLance {
		return views.IcebergCreateView{}, &catalog.Error{Kind: catalog.ErrConflict,
			Message: "Bucket " + b.Name + " holds Lance tables only; create Iceberg tables in an Iceberg bucket."}
	}
	ns, err := h.store.GetNamespace(ctx, b.Name, catalog.SplitNamespace(chi.URLParam(r, "ns")))
	if err != nil {
		return views.IcebergCreateView{}, err
	}
	return views.IcebergCreateView{
		Page: h.page(r, "Create table · "+ns.Name(), "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns.Name(), Action: views.NamespaceURL(b.Name, ns.Name()) + "/create-table",
		RowURL: IcebergColumnRowURL, Types: icebergTypes, Partition: "none",
	}, nil
}

// createIcebergTable creates the table through the Iceberg REST handler, so
// its first metadata file is written exactly as an engine's create writes it.
//
// Stop-gap: iceberg/ exports no create function yet, so this serves one
// in-process request on an anonymous iceberg.Server (the console has already
// checked that the user may write). Replace it with iceberg's exported
// create helper once there is one. It returns the REST status and error
// message, or an error when the request could not be made at all.
func (h *Handlers) createIcebergTable(ctx context.Context, bucket string, ns []string, spec icebergCreateSpec) (int, string, error) {
	body := map[string]any{
		"name":           spec.Name,
		"schema":         spec.Schema,
		"partition-spec": map[string]any{"spec-id": 0, "fields": nonNil(spec.Partition)},
		"write-order":    map[string]any{"order-id": 0, "fields": []any{}},
		"properties":     map[string]string{},
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, "", err
	}
	path := "/v1/" + url.PathEscape(bucket) + "/namespaces/" + url.PathEscape(strings.Join(ns, "\x1f")) + "/tables"
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	iceberg.New(iceberg.Config{Store: h.store, Logger: h.log, Anonymous: true}).Handler().ServeHTTP(rec, req)
	if rec.Code < 300 {
		return rec.Code, "", nil
	}
	var out struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Error.Message == "" {
		return 0, "", fmt.Errorf("iceberg create answered %d: %s", rec.Code, rec.Body.String())
	}
	if rec.Code >= 500 {
		return 0, "", fmt.Errorf("iceberg create answered %d: %s", rec.Code, out.Error.Message)
	}
	return rec.Code, out.Error.Message, nil
}

func nonNil(f []icebergPartField) []icebergPartField {
	if f == nil {
		return []icebergPartField{}
	}
	return f
}
