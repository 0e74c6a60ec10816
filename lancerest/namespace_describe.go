package lancerest

import (
	"context"
	"errors"
	"net/http"

	"github.com/floe/floe/fault"
)

// describeNamespace: POST /v1/namespace/{id}/describe.
func describeNamespace(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return e
	}
	props, e := s.namespaceProps(r.Context(), c)
	if e != nil {
		return e
	}
	return writeJSON(w, propsResponse{Properties: props})
}

// namespaceExists: POST /v1/namespace/{id}/exists; 200 without a body, or
// the spec's ErrorResponse (404 code 1 when it does not exist).
func namespaceExists(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return e
	}
	if _, e := s.namespaceProps(r.Context(), c); e != nil {
		return e
	}
	return writeEmpty(w)
}

func (s *Server) namespaceProps(ctx context.Context, c *call) (map[string]string, *Error) {
	if len(c.id) == 0 {
		return emptyProps, nil
	}
	if e := validateNamespaceID(c.id); e != nil {
		return nil, e
	}
	if e := c.see(nsResource(c.id)); e != nil {
		return nil, e
	}
	b, e := s.lanceBucket(ctx, c.id[0], c.delim)
	if e != nil {
		return nil, e
	}
	if len(c.id) == 1 {
		return bucketProps(b), nil
	}
	ns, err := s.store.GetNamespace(ctx, c.id[0], c.id[1:])
	if errors.Is(err, fault.NotFound) {
		return nil, nsNotFound(c.id, c.delim)
	}
	if err != nil {
		return nil, asError(err, CodeNamespaceNotFound)
	}
	return propsOrEmpty(ns.Properties), nil
}
