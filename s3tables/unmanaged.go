package s3tables

import (
	"fmt"

	"github.com/floe/floe/fault"
)

// unmanaged answers a write of something floe does not manage with a
// BadRequestException that says so and what to do instead.
func unmanaged(what, hint string) handlerFunc {
	msg := fmt.Sprintf("floe does not manage %s through the S3 Tables API", what)
	if hint != "" {
		msg += "; " + hint
	}
	return func(*request) (any, error) { return nil, &fault.Error{Kind: fault.Unsupported, Message: msg} }
}

// absent answers a read of something floe does not manage the way AWS
// answers for a resource that has none: NotFoundException, with a sentence.
func absent(what string) handlerFunc {
	msg := fmt.Sprintf("there is no %s here: floe does not manage %s through the S3 Tables API", what, what)
	return func(*request) (any, error) { return nil, notFound(msg) }
}
