package lancerest

import (
	"net/http"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

type dropTableResponse struct {
	ID         []string          `json:"id"`
	Location   string            `json:"location"`
	Properties map[string]string `json:"properties"`
}

// PurgeAtProperty is set in DropTable's answer when the table is recently
// deleted rather than gone: when its hold ends and its data is deleted
// (RFC 3339). Until then POST /v1/table/{id}/undrop brings it back.
const PurgeAtProperty = "floe.purge_at"

// dropTable: POST /v1/table/{id}/drop. The table becomes recently deleted
// for its bucket's hold (its name free, its data kept; undrop brings it
// back), then its data is deleted; with a hold of 0 at once. A protected
// table needs ?force=true from a caller that manages it.
func dropTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	ref, e := s.removable(r, c)
	if e != nil {
		return e
	}
	force, e := s.force(r.Context(), c, tableResource(ref))
	if e != nil {
		return e
	}
	d, err := s.store.DropTableWith(r.Context(), ref, catalog.DropOptions{Force: force, By: c.principal.String()})
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	props := emptyProps
	if d.Held() {
		props = map[string]string{PurgeAtProperty: d.PurgeAt.UTC().Format(time.RFC3339)}
	}
	return writeJSON(w, dropTableResponse{ID: c.id, Location: d.Location, Properties: props})
}

// deregisterTable: POST /v1/table/{id}/deregister. Hides the entry; storage
// is left exactly as it was (no marker file either). A protected table
// needs ?force=true.
func deregisterTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	ref, e := s.removable(r, c)
	if e != nil {
		return e
	}
	force, e := s.force(r.Context(), c, tableResource(ref))
	if e != nil {
		return e
	}
	t, err := s.store.DeregisterTableWith(r.Context(), ref, force)
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, dropTableResponse{ID: c.id, Location: t.Location})
}

// removable parses a drop or deregister: the id-only body, the table, the
// caller's write access, and that the table exists for Lance.
func (s *Server) removable(r *http.Request, c *call) (catalog.TableRef, *Error) {
	if e := withBody(r, func(b []byte) *Error { return decodeIDOnly(b, c.id) }); e != nil {
		return catalog.TableRef{}, e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return ref, e
	}
	if e := c.require(identity.Manage, tableResource(ref)); e != nil {
		return ref, e
	}
	if _, e := s.resolveTable(r.Context(), ref, c.id, c.delim); e != nil {
		return ref, e
	}
	return ref, nil
}
