package icebergrest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/iceberg"
	"github.com/floe/floe/warehouse"
)

// Exception types of the Iceberg REST spec's error model.
const (
	typeBadRequest        = "BadRequestException"
	typeNotAuthorized     = "NotAuthorizedException"
	typeForbidden         = "ForbiddenException"
	typeNoSuchNamespace   = "NoSuchNamespaceException"
	typeNoSuchTable       = "NoSuchTableException"
	typeNoSuchView        = "NoSuchViewException"
	typeNoSuchWarehouse   = "NoSuchWarehouseException"
	typeAlreadyExists     = "AlreadyExistsException"
	typeNamespaceNotEmpty = "NamespaceNotEmptyException"
	typeCommitFailed      = "CommitFailedException"
	typeUnprocessable     = "UnprocessableEntityException"
	typeUnsupported       = "UnsupportedOperationException"
	typeNotFound          = "NotFoundException"
	typeServiceFailure    = "ServiceFailureException"
	typeUnavailable       = "ServiceUnavailableException"
)

// apiError is an error the handlers answer with as it is.
type apiError struct {
	Code    int
	Type    string
	Message string
}

func (e *apiError) Error() string { return e.Type + ": " + e.Message }

func errorf(code int, typ, format string, args ...any) *apiError {
	return &apiError{Code: code, Type: typ, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, typeBadRequest, format, args...)
}

// asAPIError maps any error to the spec's error model, once for the whole
// surface: the library's *iceberg.Error by kind and field, the catalog's
// errors (namespace routes call the catalog directly) by kind. notFoundType
// says which "no such" a catalog not-found means when the catalog does not
// say. Anything else is a server fault: its text stays in the log.
func asAPIError(err error, notFoundType string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var ie *iceberg.Error
	if errors.As(err, &ie) {
		return fromLibrary(ie)
	}
	var ce *catalog.Error
	if !errors.As(err, &ce) {
		return nil
	}
	msg := ce.Message
	if ce.Field == "namespace" && errors.Is(err, catalog.ErrNotFound) {
		notFoundType = typeNoSuchNamespace
	}
	if ce.Field == "bucket" && errors.Is(err, catalog.ErrNotFound) {
		notFoundType = typeNoSuchWarehouse
	}
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return &apiError{http.StatusNotFound, notFoundType, msg}
	case errors.Is(err, catalog.ErrAlreadyExists):
		return &apiError{http.StatusConflict, typeAlreadyExists, msg}
	case errors.Is(err, catalog.ErrNotEmpty):
		return &apiError{http.StatusConflict, typeNamespaceNotEmpty, msg}
	case errors.Is(err, catalog.ErrConflict):
		// The catalog's conflicts are a name held by the other format or a
		// bucket declared for it: the name is taken, as far as Iceberg sees.
		return &apiError{http.StatusConflict, typeAlreadyExists, msg}
	case errors.Is(err, catalog.ErrInvalid):
		return &apiError{http.StatusBadRequest, typeBadRequest, msg}
	}
	return nil
}

// fromLibrary maps the Iceberg library's error kinds to the spec's types.
func fromLibrary(e *iceberg.Error) *apiError {
	switch {
	case errors.Is(e, iceberg.ErrNotFound):
		typ := typeNoSuchTable
		switch e.Field {
		case "namespace":
			typ = typeNoSuchNamespace
		case "bucket":
			typ = typeNoSuchWarehouse
		case "view":
			typ = typeNoSuchView
		}
		return &apiError{http.StatusNotFound, typ, e.Message}
	case errors.Is(e, iceberg.ErrAlreadyExists):
		return &apiError{http.StatusConflict, typeAlreadyExists, e.Message}
	case errors.Is(e, iceberg.ErrCommitFailed):
		return &apiError{http.StatusConflict, typeCommitFailed, e.Message}
	case errors.Is(e, iceberg.ErrUnsupported):
		return &apiError{http.StatusNotAcceptable, typeUnsupported, e.Message}
	case errors.Is(e, iceberg.ErrBusy):
		return &apiError{http.StatusServiceUnavailable, typeUnavailable, e.Message}
	}
	return &apiError{http.StatusBadRequest, typeBadRequest, e.Message}
}

// fromCatalog is asAPIError for a catalog call whose not-found has a
// known meaning; a server fault passes through to writeError unchanged.
func fromCatalog(err error, notFoundType string) error {
	if ae := asAPIError(err, notFoundType); ae != nil {
		return ae
	}
	return err
}

// writeError answers with the spec's error body and logs server faults once,
// with their cause. A 5xx body carries a sentence and the request id only:
// causes name server paths and internals a client has no business seeing.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := asAPIError(err, typeNotFound)
	id := requestID(w)
	switch {
	case ae == nil && errors.Is(err, catalog.ErrUnavailable):
		ae = &apiError{http.StatusServiceUnavailable, typeServiceFailure,
			"the catalog database cannot be reached right now (stopped or restarting), so the request did not complete; retry shortly (request id " + id + ")"}
	case ae == nil && errors.Is(err, warehouse.ErrUnavailable):
		ae = &apiError{http.StatusServiceUnavailable, typeServiceFailure,
			"table storage is unavailable: the warehouse's object store does not answer, so the request did not complete; retry when it is back (request id " + id + ")"}
	case ae == nil:
		ae = &apiError{http.StatusInternalServerError, typeServiceFailure,
			"the Iceberg catalog failed unexpectedly; the server log has the cause under request id " + id}
	}
	if ae.Code >= 500 {
		s.log.Error("iceberg request failed", "method", r.Method, "path", r.URL.Path, "request_id", id, "err", err)
	} else {
		s.log.Debug("iceberg request refused", "method", r.Method, "path", r.URL.Path, "request_id", id, "type", ae.Type, "msg", ae.Message)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(ae.Code)
		return
	}
	body := map[string]any{"error": map[string]any{"message": ae.Message, "type": ae.Type, "code": ae.Code}}
	writeJSON(w, ae.Code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		slog.Error("iceberg: encoding response", "err", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}
