package s3tables

import (
	"net/http"
	"time"
)

// HandlePanicForTest registers an operation at pattern whose handler
// panics with a value that names an internal path, as a bug would.
func (s *Server) HandlePanicForTest(pattern string) {
	s.op(pattern, "GetTable", read, func(*request) (any, error) { panic("boom: /var/lib/floe/secret") })
}

// SetBodyTimeoutForTest shortens the body read deadline.
func (s *Server) SetBodyTimeoutForTest(d time.Duration) { s.surface.SetBodyTimeout(d) }

var _ http.Handler = (*Server)(nil)
