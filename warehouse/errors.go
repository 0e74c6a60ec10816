package warehouse

import (
	"errors"
	"fmt"
	"io/fs"
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

// Error is a failure with a sentence a client can act on. Kind is one of the
// sentinels above; errors.Is matches it.
type Error struct {
	Kind    error
	Message string
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// IsClientError reports whether err is a refusal of the location itself
// (bad, outside, through a symlink) rather than a storage fault: callers
// answer it with a 4xx and the error's sentence.
func IsClientError(err error) bool {
	return errors.Is(err, ErrBadLocation) || errors.Is(err, ErrOutside) || errors.Is(err, ErrSymlink)
}
