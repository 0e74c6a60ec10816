package lancerest

import (
	"context"
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
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

// namespaceExists: POST /v1/namespace/{id}/exists; 200 or 404, no body.
func namespaceExists(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return e
	}
	if _, e := s.namespaceProps(r.Context(), c); e != nil {
		if e.Code == CodeNamespaceNotFound {
			w.WriteHeader(http.StatusNotFound)
			return nil
		}
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
	if e := canRead(c.key, c.id[0]); e != nil {
		return nil, e
	}
	b, e := s.lanceBucket(ctx, c.id[0], c.delim)
	if e != nil {
		return nil, e
	}
	if len(c.id) == 1 {
		return propsOrEmpty(b.Tags), nil
	}
	ns, err := s.store.GetNamespace(ctx, c.id[0], c.id[1:])
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, nsNotFound(c.id, c.delim)
	}
	if err != nil {
		return nil, asError(err, CodeNamespaceNotFound)
	}
	return propsOrEmpty(ns.Properties), nil
}
