package iceberg

import (
	"errors"
	"fmt"

	"github.com/floe/floe/catalog"
)

// Error kinds. Test with errors.Is(err, iceberg.ErrNotFound) and friends;
// each surface (the REST catalog, the console) maps them once to its own
// answer.
var (
	// ErrInvalid: the request breaks a rule of the format or the catalog.
	ErrInvalid = errors.New("invalid")
	// ErrNotFound: Field says what is missing: "bucket", "namespace" or "table".
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: the table name is taken.
	ErrAlreadyExists = errors.New("already exists")
	// ErrCommitFailed: a requirement does not hold or another commit won
	// the race; the client reloads and retries.
	ErrCommitFailed = errors.New("commit failed")
	// ErrUnsupported: a valid request for something floe does not do.
	ErrUnsupported = errors.New("unsupported")
	// ErrBusy: a bound on concurrent work is reached; the client retries
	// shortly.
	ErrBusy = errors.New("busy")
)

// Error carries a kind, the field it concerns and a sentence for people.
// Anything a library function returns that is not an *Error is a server
// fault whose text is for the log, never for a client.
type Error struct {
	Kind    error  // one of the Err* sentinels
	Field   string // e.g. "name", "location", "schema", "namespace", "table"; may be empty
	Message string
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is match the kind.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, field, format string, args ...any) *Error {
	return &Error{Kind: kind, Field: field, Message: fmt.Sprintf(format, args...)}
}

func invalid(field, format string, args ...any) *Error {
	return newError(ErrInvalid, field, format, args...)
}

func commitFailed(format string, args ...any) *Error {
	return newError(ErrCommitFailed, "", format, args...)
}

func noSuchTable(ref catalog.TableRef) *Error {
	return newError(ErrNotFound, "table", "table %s does not exist in namespace %s", ref.Name, catalog.JoinNamespace(ref.Namespace))
}

// fromCatalog turns a catalog error into the library's. notFound says which
// thing the caller was looking for ("namespace" or "table") when the
// catalog does not say. Errors that are not the catalog's pass unchanged:
// they are server faults.
func fromCatalog(err error, notFound string) error {
	if err == nil {
		return nil
	}
	var ie *Error
	if errors.As(err, &ie) {
		return ie
	}
	var ce *catalog.Error
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		field := notFound
		if ce.Field == "namespace" || ce.Field == "bucket" {
			field = ce.Field
		}
		return &Error{Kind: ErrNotFound, Field: field, Message: ce.Message}
	case errors.Is(err, catalog.ErrAlreadyExists), errors.Is(err, catalog.ErrConflict):
		// The catalog's conflicts are a name held by the other format or a
		// bucket declared for it: the name is taken, as far as Iceberg sees.
		return &Error{Kind: ErrAlreadyExists, Field: ce.Field, Message: ce.Message}
	case errors.Is(err, catalog.ErrInvalid):
		return &Error{Kind: ErrInvalid, Field: ce.Field, Message: ce.Message}
	}
	return err
}
