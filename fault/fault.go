// Package fault is floe's one vocabulary of domain errors. A service
// (catalog, iceberg, tasks, warehouse, preview, plugin) that refuses a
// request returns an *Error: a Kind from the one set below, the field the
// failure concerns, and a sentence for people that says what to do next.
// Each protocol surface maps kinds to its own answer once (Lance numeric
// codes, Iceberg exception types, S3 Tables exception names, the console's
// pages); nothing between the service and that mapping translates kinds.
//
// Anything a service returns that is not an *Error is a server fault: its
// text is for the log, never for a client.
package fault

import (
	"errors"
	"fmt"
)

// Kind is what sort of failure an Error is. A Kind is itself an error, so
// errors.Is(err, fault.NotFound) matches any *Error of that kind.
type Kind string

func (k Kind) Error() string { return string(k) }

// The kinds. Services produce the first eight; the edge and the authorizer
// produce the request-level ones after them.
const (
	NotFound      Kind = "not found"
	AlreadyExists Kind = "already exists"
	// Conflict: the request contradicts the current state (a version token
	// that moved, a format the bucket refuses, a job already running).
	Conflict Kind = "conflict"
	NotEmpty Kind = "not empty"
	Invalid  Kind = "invalid"
	// Unavailable: a dependency (the catalog database, the object store, a
	// worker) cannot answer right now; the client retries.
	Unavailable Kind = "unavailable"
	// CommitFailed: a commit's requirement does not hold or another commit
	// won the race; the client reloads and retries.
	CommitFailed Kind = "commit failed"
	// Quota: a bound on stored or running things is reached.
	Quota Kind = "quota exceeded"

	Unauthenticated Kind = "unauthenticated"
	Forbidden       Kind = "forbidden"
	// Unsupported: a well-formed request for something floe does not do.
	Unsupported Kind = "unsupported"
	// TooLarge: a request body over its surface's cap.
	TooLarge Kind = "too large"
	// MethodNotAllowed: the route exists but not for this method.
	MethodNotAllowed Kind = "method not allowed"
)

// Error is a refusal with a kind, the field it concerns ("name", "bucket",
// "namespace", "table", a form field; may be empty) and a sentence. Err is
// an optional finer reason or cause (a package's own sentinel such as
// preview.ErrTimeout); errors.Is sees it, clients never do.
type Error struct {
	Kind    Kind
	Field   string
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is match the kind and the finer reason.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// New builds an Error with a formatted message.
func New(kind Kind, field, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Kind: kind, Field: field, Message: format}
	}
	return &Error{Kind: kind, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Invalidf is an Invalid error about one field.
func Invalidf(field, format string, args ...any) *Error {
	return New(Invalid, field, format, args...)
}

// As returns the *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// KindOf is the kind of the *Error in err's chain, or "" for a server fault.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return ""
}

// Field is the field of the *Error in err's chain, or "".
func Field(err error) string {
	if e, ok := As(err); ok {
		return e.Field
	}
	return ""
}

// Message is the sentence of the *Error in err's chain, or fallback for a
// server fault (whose text is never shown).
func Message(err error, fallback string) string {
	if e, ok := As(err); ok && e.Message != "" {
		return e.Message
	}
	return fallback
}

// Public is the sentence a client may see for err. An Error's message says
// what the client did or can do; an Unavailable error's message may name
// internal addresses (a store's endpoint, a location), so a client gets the
// one fixed sentence for what is unavailable instead, and the message stays
// in the log. A server fault (not an *Error) gets "".
func Public(err error) string {
	e, ok := As(err)
	if !ok {
		return ""
	}
	if e.Kind != Unavailable {
		return e.Message
	}
	switch e.Field {
	case "database":
		return "The catalog database cannot be reached right now (stopped or restarting), so the request did not complete; retry shortly."
	case "storage":
		return "Table storage is unavailable: the warehouse's object store does not answer, so the request did not complete; retry when it is back."
	case "worker":
		return "No worker that can do this is connected right now; start one (floe serve --with-worker) or retry shortly."
	}
	return "A service this request needs is unavailable right now; retry shortly."
}
