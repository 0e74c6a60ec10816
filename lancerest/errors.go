package lancerest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// Code is a Lance Namespace error code (the spec's ErrorResponse.code).
type Code int

// The codes floe answers with; the spec defines more (index, tag,
// transaction, column, state, schema, branch) that a metadata-only catalog
// never produces.
const (
	CodeUnsupported            Code = 0
	CodeNamespaceNotFound      Code = 1
	CodeNamespaceAlreadyExists Code = 2
	CodeNamespaceNotEmpty      Code = 3
	CodeTableNotFound          Code = 4
	CodeTableAlreadyExists     Code = 5
	CodeTableTagNotFound       Code = 8
	CodeTableTagAlreadyExists  Code = 9
	CodeTableVersionNotFound   Code = 11
	CodeInvalidInput           Code = 13
	CodeConcurrentModification Code = 14
	CodePermissionDenied       Code = 15
	CodeUnauthenticated        Code = 16
	CodeServiceUnavailable     Code = 17
	CodeInternal               Code = 18
	// CodeInvalidTableState: the table (or namespace) is in a state that
	// refuses the operation — protected (floe.protected), or its location
	// held by a recently deleted table.
	CodeInvalidTableState Code = 19
	CodeThrottling        Code = 21
)

// Status is the HTTP status the spec pairs with a code.
func (c Code) Status() int {
	switch c {
	case CodeUnsupported:
		return http.StatusNotAcceptable
	case CodeNamespaceNotFound, CodeTableNotFound, CodeTableTagNotFound, CodeTableVersionNotFound:
		return http.StatusNotFound
	case CodeNamespaceAlreadyExists, CodeNamespaceNotEmpty, CodeTableAlreadyExists, CodeTableTagAlreadyExists, CodeConcurrentModification,
		CodeInvalidTableState:
		return http.StatusConflict
	case CodeInvalidInput:
		return http.StatusBadRequest
	case CodePermissionDenied:
		return http.StatusForbidden
	case CodeUnauthenticated:
		return http.StatusUnauthorized
	case CodeServiceUnavailable:
		return http.StatusServiceUnavailable
	case CodeThrottling:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// kind is the fault kind a code stands for, for the audit trail.
func (c Code) kind() fault.Kind {
	switch c {
	case CodeUnsupported:
		return fault.Unsupported
	case CodeNamespaceNotFound, CodeTableNotFound, CodeTableTagNotFound, CodeTableVersionNotFound:
		return fault.NotFound
	case CodeNamespaceAlreadyExists, CodeTableAlreadyExists, CodeTableTagAlreadyExists:
		return fault.AlreadyExists
	case CodeNamespaceNotEmpty:
		return fault.NotEmpty
	case CodeConcurrentModification:
		return fault.Conflict
	case CodeInvalidInput:
		return fault.Invalid
	case CodePermissionDenied:
		return fault.Forbidden
	case CodeUnauthenticated:
		return fault.Unauthenticated
	case CodeServiceUnavailable:
		return fault.Unavailable
	case CodeThrottling:
		return fault.Quota
	}
	return ""
}

// Error is an API error: a code, a short message and a sentence telling the
// caller what to do. Handlers return it; WriteError renders it.
type Error struct {
	Code   Code
	Status int    // 0 means Code.Status()
	Msg    string // the spec's "error": what failed
	Detail string // the spec's "detail": why, and what to do next
	cause  error  // a server fault's cause: logged once, never sent
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) status() int {
	if e.Status != 0 {
		return e.Status
	}
	return e.Code.Status()
}

// NewError builds an API error with the code's usual HTTP status.
func NewError(code Code, msg, detail string) *Error {
	return &Error{Code: code, Msg: msg, Detail: detail}
}

func invalid(msg, detail string) *Error { return NewError(CodeInvalidInput, msg, detail) }

func forbidden(msg string) *Error {
	return NewError(CodePermissionDenied, msg,
		"Access follows grants: ask someone who manages the bucket, namespace or table to grant it (floe grant add, or the console's Access tab).")
}

// errorBody is the spec's ErrorResponse.
type errorBody struct {
	Error    string `json:"error"`
	Code     Code   `json:"code"`
	Detail   string `json:"detail"`
	Instance string `json:"instance"`
}

// encode is the surface's one error encoder (the edge's Encoder): it
// renders err in the Lance Namespace error shape with the request id as
// "instance". The operations' own *Error pass as they are; a domain error
// is mapped by kind (asError), the edge's own kinds (unknown route, wrong
// method, oversized body, refused credential) get the spec's code 13 or 16,
// and anything else is a server fault: 500 with a sentence naming the
// request id, its cause logged here once and never sent.
func (s *Server) encode(w http.ResponseWriter, r *http.Request, err error) {
	id := edge.RequestID(r.Context())
	e := protocolError(r, w.Header().Get("Allow"), err)
	if k := fault.KindOf(err); k != "" {
		edge.Failed(r.Context(), k)
	} else {
		edge.Failed(r.Context(), e.Code.kind())
	}
	status := e.status()
	cause := e.cause
	if cause == nil && status >= 500 && !errors.As(err, new(*Error)) {
		cause = err
	}
	s.logFailure(r, id, status, e, cause)
	b, _ := json.Marshal(errorBody{Error: e.Msg, Code: e.Code, Detail: e.Detail, Instance: id})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}

// protocolError is err as the spec's error; allow is the Allow header the
// edge set for a wrong method.
func protocolError(r *http.Request, allow string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	fe, ok := fault.As(err)
	if !ok {
		return internalError(r, err)
	}
	switch fe.Kind {
	case fault.NotFound:
		if fe.Field == "route" {
			return &Error{Code: CodeInvalidInput, Status: http.StatusNotFound,
				Msg:    "no such route: " + r.Method + " " + r.URL.Path,
				Detail: "The Lance Namespace REST API lives under /v1/namespace/{id}/... and /v1/table/{id}/...; see the Lance Namespace spec."}
		}
	case fault.MethodNotAllowed:
		return &Error{Code: CodeInvalidInput, Status: http.StatusMethodNotAllowed,
			Msg: r.Method + " is not allowed on " + r.URL.Path, Detail: "Use " + allow + " for this operation."}
	case fault.Unauthenticated:
		// The credential may be an API key, floe's access token or the
		// identity provider's token; the detail says which and why.
		return NewError(CodeUnauthenticated, "credential not accepted", fe.Message+".")
	case fault.TooLarge:
		return tooLarge()
	}
	notFound := CodeTableNotFound
	if strings.Contains(edge.Route(r.Context()), "/v1/namespace/") {
		notFound = CodeNamespaceNotFound
	}
	return asError(err, notFound)
}

// internalError is a server fault's answer: the request id, never the cause.
func internalError(r *http.Request, cause error) *Error {
	return &Error{Code: CodeInternal, Msg: "internal error",
		Detail: "floe failed unexpectedly; the server log has the cause under request id " + edge.RequestID(r.Context()) + ".", cause: cause}
}

// logFailure logs a server fault (5xx) once with its cause; the edge's
// access line already records every request, so a client's mistake is
// only logged at debug level, with its code and message.
func (s *Server) logFailure(r *http.Request, id string, status int, e *Error, cause error) {
	level := slog.LevelDebug
	if status >= 500 {
		level = slog.LevelError
	}
	if !s.log.Enabled(r.Context(), level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.String("request_id", id),
		slog.Int("status", status),
		slog.Int("code", int(e.Code)),
		slog.String("error", e.Msg),
	}
	if cause != nil && cause != error(e) {
		attrs = append(attrs, slog.String("cause", cause.Error()))
	}
	s.log.LogAttrs(r.Context(), level, "lance rest request failed", attrs...)
}

// asError turns any error into an *Error. notFound is the code for
// fault.NotFound when the catalog does not say which object was missing
// (1 for namespace operations, 4 for table operations).
func asError(err error, notFound Code) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return NewError(CodeServiceUnavailable, "request cancelled", "The request ended before the catalog answered; retry.")
	}
	ce, ok := fault.As(err)
	if !ok {
		return &Error{Code: CodeInternal, Msg: "internal error",
			Detail: "The catalog failed unexpectedly; the server log has the cause under this request id.", cause: err}
	}
	msg := ce.Message
	switch ce.Kind {
	case fault.NotFound:
		code := notFound
		if ce.Field == "namespace" || ce.Field == "bucket" {
			code = CodeNamespaceNotFound
		}
		return NewError(code, msg, "Check the identifier; list the parent namespace to see what exists.")
	case fault.AlreadyExists:
		code := CodeTableAlreadyExists
		if notFound == CodeNamespaceNotFound {
			code = CodeNamespaceAlreadyExists
		}
		return NewError(code, msg, "Pick another name, or use mode ExistOk/Overwrite where the operation offers it.")
	case fault.NotEmpty:
		return NewError(CodeNamespaceNotEmpty, msg, "Drop what it contains first, or drop with behavior Cascade (which deletes the data).")
	case fault.Conflict, fault.CommitFailed:
		if ce.Field == catalog.FieldProtected {
			return NewError(CodeInvalidTableState, msg, "Protection (floe.protected) refuses drop, purge, cascade, overwrite and rename; a caller with the manage privilege may repeat the request with ?force=true.")
		}
		if ce.Field == catalog.FieldRecentlyDeleted {
			return NewError(CodeInvalidTableState, msg, "Undrop the recently deleted table (POST /v1/table/{id}/undrop), or purge it first.")
		}
		return NewError(CodeConcurrentModification, msg, "The catalog changed underneath this request; read the object again and retry.")
	case fault.Invalid:
		if ce.Field == "name" || ce.Field == "bucket" || ce.Field == "namespace" || ce.Field == "table" {
			return invalid(msg, "Names are 1-255 of a-z, 0-9, _ and - (buckets 3-63 of a-z, 0-9 and -), starting and ending with a letter or digit.")
		}
		return invalid(msg, "Correct the request as the message says and send it again.")
	case fault.Unavailable:
		what := "catalog unavailable"
		if ce.Field == "storage" {
			what = "table storage is unavailable"
		}
		return &Error{Code: CodeServiceUnavailable, Msg: what, Detail: fault.Public(err), cause: err}
	case fault.Unauthenticated:
		return NewError(CodeUnauthenticated, msg, "Send a valid API key (x-api-key or Authorization: Bearer).")
	case fault.Forbidden:
		return NewError(CodePermissionDenied, msg, "Ask an administrator for access, or use a key that has it.")
	case fault.Unsupported:
		return NewError(CodeUnsupported, msg, "floe does not serve this; see the README for what is served.")
	case fault.Quota:
		return NewError(CodeThrottling, msg, "A limit is reached; free room or retry later.")
	case fault.TooLarge:
		return &Error{Code: CodeInvalidInput, Status: http.StatusRequestEntityTooLarge, Msg: msg, Detail: "Send a smaller request body."}
	}
	return &Error{Code: CodeInternal, Msg: "internal error",
		Detail: "The catalog failed unexpectedly; the server log has the cause under this request id.", cause: err}
}
