package s3tables

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
)

// The S3 Tables exception names of the restJson1 model that floe answers.
const (
	excBadRequest     = "BadRequestException"
	excConflict       = "ConflictException"
	excNotFound       = "NotFoundException"
	excAccessDenied   = "AccessDeniedException"
	excForbidden      = "ForbiddenException"
	excTooManyReqs    = "TooManyRequestsException"
	excInternal       = "InternalServerErrorException"
	excMethodNotAllow = "MethodNotAllowedException"
)

func badRequest(field, msg string) error {
	return &fault.Error{Kind: fault.Invalid, Field: field, Message: msg}
}

func notFound(msg string) error { return &fault.Error{Kind: fault.NotFound, Message: msg} }

func conflict(field, msg string) error {
	return &fault.Error{Kind: fault.Conflict, Field: field, Message: msg}
}

func accessDenied(msg string) error { return &fault.Error{Kind: fault.Forbidden, Message: msg} }

// encode is the surface's one error encoder (an edge.Encoder): the
// exception name in x-amzn-errortype, which the SDKs map to their typed
// exceptions, the status, and {"message": …}. Kinds are mapped here once,
// typed as the request's operation lists them (model.go). A server fault's
// cause is logged here, once, with the request id, and never sent.
func (s *Server) encode(w http.ResponseWriter, r *http.Request, err error) {
	op := s.ops[edge.Route(r.Context())]
	edge.Failed(r.Context(), err)
	status, exc, msg := s.exception(r, op, err, w.Header().Get("Allow"))
	if status >= 500 {
		s.log.Error("s3tables request failed", "operation", op.name, "request_id", edge.RequestID(r.Context()), "err", err)
	}
	buf, _ := json.Marshal(struct {
		Message string `json:"message"`
	}{msg})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-Errortype", exc)
	w.WriteHeader(status)
	w.Write(buf)
}

// exception maps err onto status, exception name and sentence.
// allow is the Allow header the edge set for a wrong method.
func (s *Server) exception(r *http.Request, op operation, err error, allow string) (int, string, string) {
	fe, ok := fault.As(err)
	if !ok {
		return http.StatusInternalServerError, excInternal, fmt.Sprintf(
			"floe failed to complete the request (request id %s); the server log has the cause, retry later", edge.RequestID(r.Context()))
	}
	msg := fault.Public(err)
	switch fe.Kind {
	case fault.NotFound:
		if fe.Field == "route" {
			msg = fmt.Sprintf("%s %s is not an S3 Tables operation", r.Method, r.URL.Path)
		}
		return http.StatusNotFound, excNotFound, msg
	case fault.MethodNotAllowed:
		return http.StatusMethodNotAllowed, excMethodNotAllow, fmt.Sprintf("%s is not an S3 Tables operation on %s; it answers %s",
			r.Method, r.URL.Path, allow)
	case fault.AlreadyExists, fault.Conflict, fault.NotEmpty, fault.CommitFailed:
		if !op.conflict {
			return http.StatusBadRequest, excBadRequest, msg
		}
		return http.StatusConflict, excConflict, msg
	case fault.Invalid, fault.Unsupported:
		return http.StatusBadRequest, excBadRequest, msg
	case fault.TooLarge:
		return http.StatusRequestEntityTooLarge, excBadRequest, msg
	case fault.Forbidden:
		if op.accessDenied {
			return http.StatusForbidden, excAccessDenied, msg
		}
		return http.StatusForbidden, excForbidden, msg
	case fault.Unauthenticated:
		return http.StatusForbidden, excForbidden, msg
	case fault.Quota:
		return http.StatusTooManyRequests, excTooManyReqs, msg
	case fault.Unavailable:
		// The model has no ServiceUnavailableException: typed as the
		// internal error every operation lists, with 503 so the SDKs retry.
		s.log.Warn("s3tables dependency unavailable", "operation", op.name, "request_id", edge.RequestID(r.Context()), "err", err)
		return http.StatusServiceUnavailable, excInternal, msg
	}
	return http.StatusInternalServerError, excInternal, fmt.Sprintf(
		"floe failed to complete the request (request id %s); the server log has the cause, retry later", edge.RequestID(r.Context()))
}
