package lancerest

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// renameTable: POST /v1/table/{id}/rename. Moves the entry to new_table_name
// (and new_namespace_id, within the same bucket); the data stays where it is.
func renameTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req renameTableRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeRenameTable(b, c.id); return }); e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	if err := catalog.ValidateTableName(req.NewTableName); err != nil {
		return asError(err, CodeTableNotFound)
	}
	toNs := ref.Namespace
	if req.NewNamespaceID != nil {
		if len(req.NewNamespaceID) < 2 {
			return invalid("new_namespace_id needs a bucket and a namespace", "Give the full namespace id, e.g. [\"bucket\", \"ns\"].")
		}
		if req.NewNamespaceID[0] != ref.Bucket {
			return invalid("a table is renamed within its bucket", "new_namespace_id must start with bucket "+quote(ref.Bucket)+".")
		}
		if e := validateNamespaceID(req.NewNamespaceID); e != nil {
			return e
		}
		toNs = req.NewNamespaceID[1:]
	}
	// A rename takes the table out of its place and creates it in
	// another: it needs manage on both.
	if e := c.require(identity.Manage, tableResource(ref)); e != nil {
		return e
	}
	if e := c.require(identity.Manage, identity.Resource{Bucket: ref.Bucket, Namespace: toNs}); e != nil {
		return e
	}
	ctx := r.Context()
	if _, e := s.resolveTable(ctx, ref, c.id, c.delim); e != nil {
		return e
	}
	force, e := s.force(ctx, c, tableResource(ref))
	if e != nil {
		return e
	}
	_, err := s.store.RenameTableWith(ctx, ref, toNs, req.NewTableName, catalog.RenameOptions{Force: force})
	switch {
	case err == nil:
		return writeJSON(w, struct{}{})
	case fault.Field(err) == catalog.FieldProtected:
		return asError(err, CodeTableNotFound)
	case errors.Is(err, fault.AlreadyExists), errors.Is(err, fault.Conflict):
		return NewError(CodeTableAlreadyExists, "a table named "+quote(req.NewTableName)+" already exists there",
			"Pick another name, or drop or rename the other table first.")
	case errors.Is(err, fault.NotFound):
		return nsNotFound(append([]string{ref.Bucket}, toNs...), c.delim)
	}
	return asError(err, CodeTableNotFound)
}
