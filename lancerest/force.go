package lancerest

import (
	"context"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// force reads the ?force= query flag of a destructive operation (floe's
// extension: the spec's request models have no such field) and answers
// whether this caller may have it: asking for force without the manage
// privilege on r is refused, not ignored.
func (s *Server) force(ctx context.Context, c *call, r identity.Resource) (bool, *Error) {
	asked, e := queryBool(c, "force", false)
	if e != nil {
		return false, e
	}
	ok, err := safety.Force(ctx, s.manager, c.principal, r, asked)
	if err != nil {
		return false, asError(err, CodeTableNotFound)
	}
	return ok, nil
}
