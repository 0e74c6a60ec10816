package iceberg

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/warehouse"
)

// Exception types of the Iceberg REST spec's error model.
const (
	typeBadRequest        = "BadRequestException"
	typeNotAuthorized     = "NotAuthorizedException"
	typeForbidden         = "ForbiddenException"
	typeNoSuchNamespace   = "NoSuchNamespaceException"
	typeNoSuchTable       = "NoSuchTableException"
	typeNoSuchWarehouse   = "NoSuchWarehouseException"
	typeAlreadyExists     = "AlreadyExistsException"
	typeNamespaceNotEmpty = "NamespaceNotEmptyException"
	typeCommitFailed      = "CommitFailedException"
	typeUnprocessable     = "UnprocessableEntityException"
	typeUnsupported       = "UnsupportedOperationException"
	typeNotFound          = "NotFoundException"
	typeServiceFailure    = "ServiceFailureException"
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

func commitFailed(format string, args ...any) *apiError {
	return errorf(http.StatusConflict, typeCommitFailed, format, args...)
}

// fromCatalog maps a catalog error to the spec's type. notFoundType says
// which "no such" the caller was looking for (namespace or table).
func fromCatalog(err error, notFoundType string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	var ce *catalog.Error
	if errors.As(err, &ce) {
		msg = ce.Message
		if ce.Field == "namespace" && errors.Is(err, catalog.ErrNotFound) {
			notFoundType = typeNoSuchNamespace
		}
		if ce.Field == "bucket" && errors.Is(err, catalog.ErrNotFound) {
			notFoundType = typeNoSuchWarehouse
		}
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
	case errors.Is(err, warehouse.ErrUnavailable):
		return &apiError{http.StatusServiceUnavailable, typeServiceFailure,
			"table storage is unavailable: the warehouse's object store does not answer, so the request did not complete; retry when it is back"}
	}
	return &apiError{http.StatusInternalServerError, typeServiceFailure, "internal error: " + msg}
}

// writeError answers with the spec's error body and logs server faults once.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = fromCatalog(err, typeNotFound)
	}
	if ae.Code >= 500 {
		s.log.Error("iceberg request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.log.Debug("iceberg request refused", "method", r.Method, "path", r.URL.Path, "type", ae.Type, "msg", ae.Message)
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
