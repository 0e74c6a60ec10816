package lancerest

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/floe/floe/catalog"
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
	if e := canWrite(c.key, ref.Bucket); e != nil {
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
	case errors.Is(err, catalog.ErrConflict), errors.Is(err, catalog.ErrAlreadyExists):
		return formatConflict(err, c.id, c.delim)
	case errors.Is(err, catalog.ErrNotFound):
		return nsNotFound(c.id[:len(c.id)-1], c.delim)
	default:
		return asError(err, CodeNamespaceNotFound)
	}
	return writeJSON(w, declareTableResponse{Location: t.Location, StorageOptions: storageOptions(t)})
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
	if e := canWrite(c.key, ref.Bucket); e != nil {
		return e
	}
	loc, e := s.registerLocation(ref, req.Location)
	if e != nil {
		return e
	}
	ctx := r.Context()
	t, err := s.store.RegisterTable(ctx, ref, loc, req.overwrite)
	switch {
	case err == nil:
	case errors.Is(err, catalog.ErrAlreadyExists):
		return NewError(CodeTableAlreadyExists, "table "+quote(joinIdentifier(c.id, c.delim))+" already exists",
			"Use mode Overwrite to repoint the entry (no data is deleted), or pick another name.")
	case errors.Is(err, catalog.ErrConflict):
		return formatConflict(err, c.id, c.delim)
	case errors.Is(err, catalog.ErrNotFound):
		return nsNotFound(c.id[:len(c.id)-1], c.delim)
	default:
		return asError(err, CodeNamespaceNotFound)
	}
	return writeJSON(w, registerTableResponse{Location: t.Location})
}

// registerLocation accepts only an existing directory inside the bucket's
// warehouse directory: a later drop deletes the location, so it must never
// point at anything floe does not own.
func (s *Server) registerLocation(ref catalog.TableRef, loc string) (string, *Error) {
	p, ok := localPath(loc)
	bucketDir := filepath.Join(s.store.Warehouse(), ref.Bucket)
	if !ok || !insideDir(p, bucketDir) {
		return "", invalid("location must be inside the bucket's warehouse directory",
			"Register a dataset that lives under "+quote(bucketDir)+"; floe deletes a table's location when it is dropped, so it only records locations it owns.")
	}
	if fi, err := statDir(p); err != nil || !fi {
		return "", invalid("no dataset directory at location "+quote(loc), "Write the dataset first (its _versions/ directory must exist), then register it.")
	}
	return p, nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// checkDeclaredLocation accepts a location in DeclareTable only when it is the
// one floe would choose or already recorded: floe chooses where data lives.
func (s *Server) checkDeclaredLocation(ctx context.Context, ref catalog.TableRef, loc string) *Error {
	want := s.store.DefaultLocation(ref, catalog.FormatLance)
	p, ok := localPath(loc)
	if ok && p == filepath.Clean(want) {
		return nil
	}
	if t, err := s.store.GetTable(ctx, ref); ok && err == nil && p == filepath.Clean(t.Location) {
		return nil
	}
	return invalid("floe chooses table locations",
		"Leave location out of DeclareTable; floe answers with the location to write. To record a dataset that already exists in the bucket, use RegisterTable.")
}
