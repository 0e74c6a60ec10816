package lancerest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

type declareTableResponse struct {
	Location          string            `json:"location"`
	StorageOptions    map[string]string `json:"storage_options"`
	Properties        map[string]string `json:"properties"`
	ManagedVersioning bool              `json:"managed_versioning"`
}

// declareTable: POST /v1/table/{id}/declare. Reserves the name (the catalog
// writes .lance-reserved) and hands out the location the SDK writes to;
// brings a deregistered one back. A table that exists (has versions) is
// 409 code 5, as the spec lists (DeclareTable has no mode); re-declaring one
// only declared, whose data was never written, answers as the first declare
// did, so a client retrying a lost answer is not stuck.
func declareTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req declareTableRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeDeclareTable(b, c.id); return }); e != nil {
		return e
	}
	ref, e := tableRef(c.id)
	if e != nil {
		return e
	}
	// Declaring creates a table: manage on its place (its namespace's
	// managers have it).
	if e := c.require(identity.Manage, tableResource(ref)); e != nil {
		return e
	}
	vend, e := vendFlag(c, req.VendCredentials)
	if e != nil {
		return e
	}
	ctx := r.Context()
	if req.Location != "" {
		if e := s.checkDeclaredLocation(ctx, ref, req.Location); e != nil {
			return e
		}
	}
	t, created, err := s.store.CreateTable(ctx, catalog.CreateTableInput{TableRef: ref, Format: catalog.FormatLance, Properties: req.Properties})
	switch {
	case err == nil && !created && t.State != catalog.StateDeclared:
		return NewError(CodeTableAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already exists",
			"Open it instead, drop it first to start over, or pick another name.")
	case err == nil:
	case errors.Is(err, fault.Conflict), errors.Is(err, fault.AlreadyExists):
		return formatConflict(err, c.id, c.delim)
	case errors.Is(err, fault.NotFound):
		return nsNotFound(c.id[:len(c.id)-1], c.delim)
	default:
		return asError(err, CodeNamespaceNotFound)
	}
	opts, _, e := s.storageOptions(ctx, t, c.vendAccess(tableResource(ref)), vend)
	if e != nil {
		return e
	}
	managed, e := s.managed(ctx, t)
	if e != nil {
		return e
	}
	return writeJSON(w, declareTableResponse{Location: t.Location, StorageOptions: opts, ManagedVersioning: managed})
}

type registerTableResponse struct {
	Location   string            `json:"location"`
	Properties map[string]string `json:"properties"`
}

// registerTable: POST /v1/table/{id}/register. Records an existing dataset
// inside the bucket's warehouse directory; Overwrite repoints an entry and
// deletes nothing.
func registerTable(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req registerTableRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeRegisterTable(b, c.id); return }); e != nil {
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
	loc, e := s.registerLocation(ctx, req.Location)
	if e != nil {
		return e
	}
	force, e := s.force(ctx, c, tableResource(ref))
	if e != nil {
		return e
	}
	t, err := s.store.RegisterTableWith(ctx, ref, loc, req.overwrite, force)
	switch {
	case err == nil:
	case fault.Field(err) == catalog.FieldProtected, fault.Field(err) == catalog.FieldRecentlyDeleted:
		return asError(err, CodeTableNotFound)
	case errors.Is(err, fault.AlreadyExists):
		return NewError(CodeTableAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already exists",
			"Use mode Overwrite to repoint the entry (no data is deleted), or pick another name.")
	case errors.Is(err, fault.Conflict):
		return formatConflict(err, c.id, c.delim)
	case errors.Is(err, fault.NotFound):
		return nsNotFound(c.id[:len(c.id)-1], c.delim)
	default:
		return asError(err, CodeNamespaceNotFound)
	}
	return writeJSON(w, registerTableResponse{Location: t.Location})
}

// registerLocation parses the location and accepts only an existing
// dataset directory inside the warehouse, reached without symbolic links;
// the catalog then keeps it inside the bucket and apart from every other
// table, since a later drop deletes the location.
func (s *Server) registerLocation(ctx context.Context, raw string) (string, *Error) {
	wh := s.store.Storage()
	loc, err := wh.Parse(raw)
	if err != nil {
		return "", invalid(err.Error(), "Register a dataset that lives in the bucket's directory of the warehouse; floe deletes a table's location when it is dropped, so it only records locations it owns.")
	}
	ok, err := wh.Exists(ctx, loc)
	if warehouse.IsClientError(err) {
		return "", invalid(err.Error(), "Register the dataset's real directory inside the warehouse, not a link to it.")
	}
	if err != nil || !ok {
		return "", invalid("no dataset directory at location "+quote(raw), "Write the dataset first (its _versions/ directory must exist), then register it.")
	}
	return loc.String(), nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// checkDeclaredLocation accepts a location in DeclareTable only when it is the
// one floe would choose or already recorded (compared in canonical form):
// floe chooses where data lives.
func (s *Server) checkDeclaredLocation(ctx context.Context, ref catalog.TableRef, raw string) *Error {
	if loc, err := warehouse.Parse(raw); err == nil {
		if loc.String() == s.store.DefaultLocation(ref, catalog.FormatLance) {
			return nil
		}
		if t, err := s.store.GetTable(ctx, ref); err == nil && loc.String() == t.Location {
			return nil
		}
	}
	return invalid("floe chooses table locations",
		"Leave location out of DeclareTable; floe answers with the location to write. To record a dataset that already exists in the bucket, use RegisterTable.")
}
