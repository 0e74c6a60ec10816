package icebergrest

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
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
	// typeConflict is floe's: a protected resource, or data a recently
	// deleted table still holds, refuses the operation (409).
	typeConflict = "ConflictException"
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
// surface, by the domain error's kind and field. notFoundType says which
// "no such" a not-found means when the error names no field. Anything that
// is not a domain error is a server fault (nil here): its text stays in the
// log.
func asAPIError(err error, notFoundType string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	e, ok := fault.As(err)
	if !ok {
		return nil
	}
	msg := fault.Public(err)
	switch e.Kind {
	case fault.NotFound:
		typ := notFoundType
		switch e.Field {
		case "route": // the edge found no route
			return &apiError{http.StatusNotFound, typeNotFound,
				msg + "; routes are /v1/{prefix}/… with prefix = bucket (GET /v1/config?warehouse=<bucket>)"}
		case "namespace":
			typ = typeNoSuchNamespace
		case "bucket":
			typ = typeNoSuchWarehouse
		case "table":
			typ = typeNoSuchTable
		case "view":
			typ = typeNoSuchView
		}
		return &apiError{http.StatusNotFound, typ, msg}
	case fault.Conflict:
		if e.Field == catalog.FieldProtected || e.Field == catalog.FieldRecentlyDeleted {
			// Not a name taken: the table (or what holds it) refuses the
			// operation as it stands; the message says why and what to do.
			return &apiError{http.StatusConflict, typeConflict, msg}
		}
		return &apiError{http.StatusConflict, typeAlreadyExists, msg}
	case fault.AlreadyExists:
		// The catalog's conflicts are a name held by the other format or a
		// bucket declared for it: the name is taken, as far as Iceberg sees.
		return &apiError{http.StatusConflict, typeAlreadyExists, msg}
	case fault.NotEmpty:
		return &apiError{http.StatusConflict, typeNamespaceNotEmpty, msg}
	case fault.CommitFailed:
		return &apiError{http.StatusConflict, typeCommitFailed, msg}
	case fault.Unavailable:
		return &apiError{http.StatusServiceUnavailable, typeServiceFailure, msg}
	case fault.Quota: // planning's bounds (iceberg.ErrBusy): retry shortly
		return &apiError{http.StatusServiceUnavailable, typeUnavailable, msg}
	case fault.Unauthenticated:
		return &apiError{http.StatusUnauthorized, typeNotAuthorized, msg}
	case fault.Forbidden:
		return &apiError{http.StatusForbidden, typeForbidden, msg}
	case fault.Unsupported:
		return &apiError{http.StatusNotAcceptable, typeUnsupported, msg}
	case fault.TooLarge:
		return &apiError{http.StatusRequestEntityTooLarge, typeBadRequest, msg}
	case fault.MethodNotAllowed: // the edge has set Allow
		return &apiError{http.StatusMethodNotAllowed, typeBadRequest, msg}
	}
	return &apiError{http.StatusBadRequest, typeBadRequest, msg} // Invalid, Quota
}

// fromCatalog is asAPIError for a catalog call whose not-found has a
// known meaning; a server fault passes through to writeError unchanged.
func fromCatalog(err error, notFoundType string) error {
	if ae := asAPIError(err, notFoundType); ae != nil {
		return ae
	}
	return err
}

// writeError is the surface's one error encoder (the edge's too: unknown
// routes, wrong methods, oversized bodies, refused credentials and panics
// come here). It answers with the spec's error body — none on HEAD — and
// logs a server fault's cause once, under the request id. A 5xx body
// carries a sentence and the request id only: causes name server paths and
// internals a client has no business seeing.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := asAPIError(err, typeNotFound)
	edge.Failed(r.Context(), err)
	id := edge.RequestID(r.Context())
	switch {
	case ae == nil:
		ae = &apiError{http.StatusInternalServerError, typeServiceFailure,
			"the Iceberg catalog failed unexpectedly; the server log has the cause under request id " + id}
	case ae.Code == http.StatusServiceUnavailable:
		ae = &apiError{ae.Code, ae.Type, ae.Message + " (request id " + id + ")"}
	}
	if ae.Code >= 500 {
		s.log.Error("iceberg request failed", "method", r.Method, "route", edge.Route(r.Context()), "request_id", id, "err", err)
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
