package lancerest

import (
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// undropTableRequest is the body of floe's UndropTable extension.
type undropTableRequest struct {
	ID []string `json:"id"`
	// TableID picks one recently deleted table (by the table_id it had);
	// without it, the one most recently dropped under the path's name.
	TableID string `json:"table_id"`
}

type undropTableResponse struct {
	ID         []string          `json:"id"`
	TableID    string            `json:"table_id"`
	Location   string            `json:"location"`
	Properties map[string]string `json:"properties"`
}

func decodeUndropTable(body []byte, path []string) (undropTableRequest, *Error) {
	var req undropTableRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	return req, checkBodyID(req.ID, path)
}

// undropTable: POST /v1/table/{id}/undrop, floe's extension (the spec's
// RestoreTable is about versions of a live table). It brings a recently
// deleted Lance table back as {id}: its old name, or another one when
// table_id names the table and {id} a new name (in the same bucket). The
// table keeps its table_id, location, data, versions and properties. It
// needs the manage privilege.
func undropTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req undropTableRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeUndropTable(b, c.id); return }); e != nil {
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
	if err := safety.Require(ctx, s.manager, c.principal, tableResource(ref), "undrop"); err != nil {
		return asError(err, CodeTableNotFound)
	}
	var d catalog.DeletedTable
	var err error
	if req.TableID != "" {
		d, err = s.store.GetDeletedTable(ctx, req.TableID)
		if err == nil && d.Bucket != ref.Bucket {
			err = fault.New(fault.NotFound, "table_id", "no recently deleted table of bucket %q has table_id %q", ref.Bucket, req.TableID)
		}
	} else {
		d, err = s.store.FindDeletedTable(ctx, ref)
	}
	if err == nil && d.Format != catalog.FormatLance {
		err = fault.New(fault.NotFound, "table", "recently deleted table %q is an Iceberg table; undrop it through the Iceberg REST, the console or floe table undrop", d.Name)
	}
	if err != nil {
		return asError(err, CodeTableNotFound)
	}
	t, err := s.store.UndropTable(ctx, d.ID, ref)
	switch {
	case err == nil:
	case errors.Is(err, fault.AlreadyExists):
		return NewError(CodeTableAlreadyExists, fault.Message(err, "the name is taken"),
			"Undrop under another name: POST /v1/table/{new id}/undrop with this table's table_id in the body.")
	case errors.Is(err, fault.Conflict):
		return NewError(CodeInvalidTableState, fault.Message(err, "the table cannot be undropped now"), "Do what the message says, then retry.")
	default:
		return asError(err, CodeTableNotFound)
	}
	return writeJSON(w, undropTableResponse{ID: c.id, TableID: t.ID, Location: t.Location, Properties: propsOrEmpty(t.Properties)})
}
