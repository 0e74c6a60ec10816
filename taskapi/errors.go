package taskapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// apiError is one error answer: the HTTP status, the contract's error name
// and numeric code, and a sentence telling the caller what to do.
type apiError struct {
	status int
	name   string
	code   int
	detail string
	cause  error // logged, never shown
}

func (e *apiError) Error() string { return e.name + ": " + e.detail }

// The contract's error names and codes.
func invalid(detail string) *apiError {
	return &apiError{status: http.StatusBadRequest, name: "InvalidInput", code: 13, detail: detail}
}

func unauthenticated(detail string) *apiError {
	return &apiError{status: http.StatusUnauthorized, name: "Unauthenticated", code: 16, detail: detail}
}

func forbidden(detail string) *apiError {
	return &apiError{status: http.StatusForbidden, name: "PermissionDenied", code: 15, detail: detail}
}

func tableNotFound(detail string) *apiError {
	return &apiError{status: http.StatusNotFound, name: "TableNotFound", code: 4, detail: detail}
}

func taskNotFound(detail string) *apiError {
	return &apiError{status: http.StatusNotFound, name: "TaskNotFound", code: 10000, detail: detail}
}

func internal(cause error) *apiError {
	return &apiError{status: http.StatusInternalServerError, name: "InternalError", code: 18,
		detail: "floe failed unexpectedly; the server log has the cause under this request id", cause: cause}
}

// fromService maps a domain error to an answer, by kind; the one place
// that does for this surface.
func fromService(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		e := internal(err)
		e.detail = "the request ended before floe answered; retry"
		return e
	}
	fe, ok := fault.As(err)
	if !ok {
		if persist.IsUnreachable(err) { // the tasks service hands the database's error on as it is
			return unavailable(err, fault.Public(&fault.Error{Kind: fault.Unavailable, Field: "database"}))
		}
		return internal(err)
	}
	msg := fault.Public(err)
	switch fe.Kind {
	case fault.Invalid, fault.TooLarge:
		return invalid(msg)
	case fault.NotFound:
		if fe.Field == "task" {
			return taskNotFound(msg)
		}
		return tableNotFound(msg)
	case fault.Conflict, fault.AlreadyExists, fault.CommitFailed, fault.NotEmpty:
		return &apiError{status: http.StatusConflict, name: "TaskStateConflict", code: 10001, detail: msg}
	case fault.Quota:
		return &apiError{status: http.StatusTooManyRequests, name: "TaskQuotaExceeded", code: 10002, detail: msg}
	case fault.Unavailable:
		return unavailable(err, msg)
	case fault.Unauthenticated:
		return &apiError{status: http.StatusUnauthorized, name: "Unauthenticated", code: 16, detail: msg}
	case fault.Forbidden:
		return &apiError{status: http.StatusForbidden, name: "PermissionDenied", code: 15, detail: msg}
	case fault.Unsupported:
		return &apiError{status: http.StatusNotAcceptable, name: "Unsupported", code: 0, detail: msg}
	}
	return internal(err)
}

func unavailable(cause error, detail string) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, name: "ServiceUnavailable", code: 17, detail: detail, cause: cause}
}

type errorBody struct {
	Error    string `json:"error"`
	Code     int    `json:"code"`
	Detail   string `json:"detail"`
	Instance string `json:"instance"`
}

// bodyTooLarge is an oversized body: the contract answers every malformed
// request with 400 InvalidInput, a body over the cap included.
func bodyTooLarge() *apiError {
	return invalid("the request body is larger than 64 KiB; task bodies are small JSON objects")
}

// encode is the surface's one error encoder (the edge's Encoder): err in
// the contract's shape with the request id as "instance". The operations'
// own refusals pass as they are; a domain error is mapped by kind
// (fromService); the edge's kinds get the contract's answers (an unknown
// route is 404 and a wrong method 405, both InvalidInput 13; an oversized
// body 400 InvalidInput; a refused credential 401); anything else is a
// server fault: 500 with a sentence naming the request id, its cause
// logged here once and never sent.
func (h *handler) encode(w http.ResponseWriter, r *http.Request, err error) {
	id := edge.RequestID(r.Context())
	e := apiErrorOf(r, w.Header().Get("Allow"), err)
	edge.Failed(r.Context(), err)
	level := slog.LevelDebug // the edge's access line records every request
	if e.status >= 500 {
		level = slog.LevelError
	}
	if h.log.Enabled(r.Context(), level) {
		attrs := []slog.Attr{
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("request_id", id), slog.Int("status", e.status),
			slog.Int("code", e.code), slog.String("detail", e.detail),
		}
		if e.cause != nil {
			attrs = append(attrs, slog.String("cause", e.cause.Error()))
		}
		h.log.LogAttrs(r.Context(), level, "lance task request failed", attrs...)
	}
	b, _ := json.Marshal(errorBody{Error: e.name, Code: e.code, Detail: e.detail, Instance: id})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.status)
	w.Write(b)
}

// apiErrorOf is err as the contract's answer; allow is the Allow header
// the edge set for a wrong method.
func apiErrorOf(r *http.Request, allow string, err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	switch fault.KindOf(err) {
	case fault.NotFound:
		if fault.Field(err) == "route" {
			e := invalid("no such operation: " + r.Method + " " + r.URL.Path +
				"; the task API has POST /lance/oss/v1/table/{id}/{compact|create_scalar_index|create_vector_index|optimize_indices|cleanup} and GET|DELETE /lance/oss/v1/table/{id}/tasks[/{task_id}]")
			e.status = http.StatusNotFound
			return e
		}
	case fault.MethodNotAllowed:
		e := invalid(r.Method + " is not allowed here; use " + allow)
		e.status = http.StatusMethodNotAllowed
		return e
	case fault.TooLarge:
		return bodyTooLarge()
	case "":
		if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !persist.IsUnreachable(err) {
			e := internal(err)
			e.detail = "floe failed unexpectedly; the server log has the cause under request id " + edge.RequestID(r.Context())
			return e
		}
	}
	return fromService(err)
}
