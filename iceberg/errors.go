package iceberg

import (
	"errors"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
)

func newError(kind fault.Kind, field, format string, args ...any) *fault.Error {
	return fault.New(kind, field, format, args...)
}

// ErrBusy is the finer reason of a fault.Quota refusal from scan planning:
// a bound on concurrent planning work is reached, and the client retries
// shortly (the REST answers 503 with Retry-After).
var ErrBusy = errors.New("busy")

func busy(format string, args ...any) *fault.Error {
	e := newError(fault.Quota, "", format, args...)
	e.Err = ErrBusy
	return e
}

func invalid(field, format string, args ...any) *fault.Error {
	return newError(fault.Invalid, field, format, args...)
}

func commitFailed(format string, args ...any) *fault.Error {
	return newError(fault.CommitFailed, "", format, args...)
}

func noSuchTable(ref catalog.TableRef) *fault.Error {
	return newError(fault.NotFound, "table", "table %s does not exist in namespace %s", ref.Name, catalog.JoinNamespace(ref.Namespace))
}

// fromCatalog names what a catalog not-found was about when the catalog
// does not say: notFound is the thing the caller was looking for
// ("namespace" or "table"). Every other error passes unchanged (the kinds
// are the same; a server fault stays a server fault).
func fromCatalog(err error, notFound string) error {
	e, ok := fault.As(err)
	if !ok || e.Kind != fault.NotFound || e.Field == "namespace" || e.Field == "bucket" || e.Field == notFound {
		return err
	}
	c := *e
	c.Field = notFound
	return &c
}
