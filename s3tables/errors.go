package s3tables

import (
	"errors"
	"net/http"

	"github.com/floe/floe/fault"
)

// Error is this surface's one error type: the S3 Tables exception name
// (sent in x-amzn-errortype, which the SDKs map to their typed
// exceptions), the HTTP status and a sentence for people. Field names the
// input the sentence is about, when there is one.
type Error struct {
	Type    string
	Status  int
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// The S3 Tables exception names of the restJson1 model.
const (
	excBadRequest     = "BadRequestException"
	excConflict       = "ConflictException"
	excNotFound       = "NotFoundException"
	excAccessDenied   = "AccessDeniedException"
	excForbidden      = "ForbiddenException"
	excTooManyReqs    = "TooManyRequestsException"
	excInternal       = "InternalServerErrorException"
	excUnavailable    = "ServiceUnavailableException"
	excMethodNotAllow = "MethodNotAllowedException"
)

func badRequest(field, msg string) error {
	return &Error{Type: excBadRequest, Status: http.StatusBadRequest, Field: field, Message: msg}
}

func notFound(msg string) error {
	return &Error{Type: excNotFound, Status: http.StatusNotFound, Message: msg}
}

func conflict(field, msg string) error {
	return &Error{Type: excConflict, Status: http.StatusConflict, Field: field, Message: msg}
}

func accessDenied(msg string) error {
	return &Error{Type: excAccessDenied, Status: http.StatusForbidden, Message: msg}
}

func forbidden(msg string) error {
	return &Error{Type: excForbidden, Status: http.StatusForbidden, Message: msg}
}

// internalMessage is all a client learns of a failure that is not its
// fault; the cause goes to the log.
const internalMessage = "floe failed to complete the request; the server log has the cause, retry later"

// toError maps any error onto the surface's error, once: catalog kinds to
// their S3 Tables exceptions, anything unknown to InternalServerErrorException
// (reported true when the caller should log the cause).
func toError(err error) (e *Error, internal bool) {
	if errors.As(err, &e) {
		return e, false
	}
	fe, ok := fault.As(err)
	if !ok {
		return &Error{Type: excInternal, Status: http.StatusInternalServerError, Message: internalMessage}, true
	}
	msg := fault.Public(err)
	switch fe.Kind {
	case fault.NotFound:
		return &Error{Type: excNotFound, Status: http.StatusNotFound, Field: fe.Field, Message: msg}, false
	case fault.AlreadyExists, fault.Conflict, fault.NotEmpty, fault.CommitFailed:
		return &Error{Type: excConflict, Status: http.StatusConflict, Field: fe.Field, Message: msg}, false
	case fault.Invalid, fault.TooLarge, fault.Unsupported:
		return &Error{Type: excBadRequest, Status: http.StatusBadRequest, Field: fe.Field, Message: msg}, false
	case fault.Unavailable:
		// Logged as a fault (true) so the cause is kept, answered as 503.
		return &Error{Type: excUnavailable, Status: http.StatusServiceUnavailable, Message: msg}, true
	case fault.Forbidden:
		return &Error{Type: excAccessDenied, Status: http.StatusForbidden, Message: msg}, false
	case fault.Unauthenticated:
		return &Error{Type: excForbidden, Status: http.StatusForbidden, Message: msg}, false
	case fault.Quota:
		return &Error{Type: excTooManyReqs, Status: http.StatusTooManyRequests, Message: msg}, false
	}
	return &Error{Type: excInternal, Status: http.StatusInternalServerError, Message: internalMessage}, true
}
