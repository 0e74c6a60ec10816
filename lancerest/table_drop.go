package lancerest

import (
	"context"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

type dropTableResponse struct {
	ID         []string          `json:"id"`
	Location   string            `json:"location"`
	Properties map[string]string `json:"properties"`
}

// dropTable: POST /v1/table/{id}/drop. Removes the entry AND deletes the data.
func dropTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.removeTable(w, r, c, (*catalog.Store).DropTable)
}

// deregisterTable: POST /v1/table/{id}/deregister. Hides the entry; storage
// is left exactly as it was (no marker file either).
func deregisterTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	return s.removeTable(w, r, c, (*catalog.Store).DeregisterTable)
}

func (s *Server) removeTable(w http.ResponseWriter, r *http.Request, c *call,
	remove func(*catalog.Store, context.Context, catalog.TableRef) (catalog.Table, error)) *Error {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if e := c.require(identity.Manage, tableResource(ref)); e != nil {
		return e
	}
	ctx := r.Context()
	if _, e := s.resolveTable(ctx, ref, c.id, c.delim); e != nil {
		return e
	}
	t, err := remove(s.store, ctx, ref)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, dropTableResponse{ID: c.id, Location: t.Location})
}
