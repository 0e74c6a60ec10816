package warehouse

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/floe/floe/fault"
)

// The kinds of failure a caller maps to a status. ErrNotExist and ErrExist
// are the io/fs sentinels, so errors.Is(err, fs.ErrNotExist) keeps working
// for code that reads through a Backend.
var (
	ErrNotExist    = fs.ErrNotExist
	ErrExist       = fs.ErrExist
	ErrOutside     = errors.New("location is outside the warehouse")
	ErrSymlink     = errors.New("location passes through a symbolic link")
	ErrBadLocation = errors.New("location is not valid")
)

// errorf builds the domain error for a failure of one of the kinds above:
// the sentinel stays in the chain (errors.Is(err, ErrOutside) holds) and
// the fault kind is what every surface maps to its answer.
func errorf(kind error, format string, args ...any) error {
	return &fault.Error{Kind: faultKind(kind), Field: faultField(kind), Message: fmt.Sprintf(format, args...), Err: kind}
}

func faultKind(kind error) fault.Kind {
	switch kind {
	case ErrNotExist:
		return fault.NotFound
	case ErrExist:
		return fault.AlreadyExists
	case ErrUnavailable, ErrPermission:
		// A store that refuses floe's own credentials is floe's problem,
		// not the client's: it is answered like an unreachable store.
		return fault.Unavailable
	case ErrNoConditionalPut:
		return fault.Unsupported
	case ErrChanged:
		return fault.Conflict
	}
	return fault.Invalid
}

func faultField(kind error) string {
	switch kind {
	case ErrUnavailable, ErrPermission, ErrNoConditionalPut:
		return "storage"
	}
	return "location"
}

// IsClientError reports whether err is a refusal of the location itself
// (bad, outside, through a symlink) rather than a storage fault: callers
// answer it with a 4xx and the error's sentence.
func IsClientError(err error) bool {
	return errors.Is(err, ErrBadLocation) || errors.Is(err, ErrOutside) || errors.Is(err, ErrSymlink)
}
